import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createHarness, type Harness } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';
import { waitFor } from '../support/helpers.ts';

// Scans are grouped by organization: a large batch of one organization does not hold back another's scan.

const BACKLOG = 10;

describe('fair scheduling of scans by organization', () => {
  let h: Harness;
  const repos: TestRepo[] = [];

  before(async () => {
    h = await createHarness({
      scanning: true,
      // Two scans at a time in this worker, at most one of them of any one organization; slow scans.
      env: { BULWARK_WORKER_CONCURRENCY: '2', BULWARK_ORG_SCAN_CONCURRENCY: '1', BULWARK_FAULT_SCAN_DELAY_MS: '700', BULWARK_JOB_LEASE_SECONDS: '10' },
    });
  });

  after(async () => {
    await h.close();
    for (const repo of repos) repo.remove();
  });

  function repo(): TestRepo {
    const made = TestRepo.create();
    made.commit({ 'README.md': 'nothing to see\n' }, 'start');
    repos.push(made);
    return made;
  }


  async function scan(key: string, unitId: string): Promise<string> {
    const res = await h.call('POST', `/api/v1/repositories/${unitId}/scans`, { key, body: { scan_type: 'secrets_scan' } });
    assert.equal(res.statusCode, 202, res.body);
    return res.json().batch_id;
  }

  test("one organization's backlog of scans does not hold back another organization's scan", async () => {
    const big = await h.org('big');
    const small = await h.org('small');
    const sources = Array.from({ length: BACKLOG }, (_, i) => `github:big/service-${i}@main`);
    const application = await h.unit(big, sources, 'monolith', sources.map(() => repo().url));
    const single = await h.unit(small, ['github:small/site@main'], 'site', [repo().url]);
    const db = h.database.store.db;

    const bigBatch = await scan(big.key, application.id);
    await waitFor('the large batch to start scanning', 30, async () => {
      const running = await db.selectFrom('scans').select('id').where('batch_id', '=', bigBatch).where('started_at', 'is not', null).execute();
      return running.length ? true : undefined;
    });
    const smallBatch = await scan(small.key, single.id);

    const done = await waitFor('the small batch to end', 60, async () => {
      const row = await db.selectFrom('scan_batches').selectAll().where('id', '=', smallBatch).executeTakeFirstOrThrow();
      return ['completed', 'partial_failure', 'failed'].includes(row.status) ? row : undefined;
    });
    assert.equal(done.status, 'completed', done.error_message ?? '');
    const bigScans = await db.selectFrom('scans').select(['status', 'started_at']).where('batch_id', '=', bigBatch).execute();
    assert.equal(bigScans.length, BACKLOG);
    const notStarted = bigScans.filter((s) => s.started_at === null).length;
    assert.ok(notStarted > 0, `the small organization's scan waited for the whole backlog (${BACKLOG - notStarted} of ${BACKLOG} started first)`);

    const bigDone = await waitFor('the large batch to end', 120, async () => {
      const row = await db.selectFrom('scan_batches').selectAll().where('id', '=', bigBatch).executeTakeFirstOrThrow();
      return ['completed', 'partial_failure', 'failed'].includes(row.status) ? row : undefined;
    });
    assert.equal(bigDone.status, 'completed', bigDone.error_message ?? '');
  });
});
