import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { ingestScanFindings, resolveUnseenFindings } from '../../src/core/finding-ingest.ts';
import type { Unit } from '../../src/core/units.ts';
import type { RawFinding } from '../../src/scanning/engine.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { planScans, type BatchRunnerDeps } from '../../src/scanning/batch-runner.ts';
import type { Database, ScanBatchRow, ScanRow } from '../../src/store/schema.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';
import { positiveSample } from '../support/secret-samples.ts';

// Overlapping scans of one unchanged source repository: every scan completes, each finding exists once,
// and nothing is resolved or reopened, since nothing changed.

const PLANTED = ['github-pat', 'slack-bot-token', 'stripe-secret-key'];
const TERMINAL = ['completed', 'partial_failure', 'failed'];

async function eventCounts(db: Kysely<Database>, unitId: string): Promise<Record<string, number>> {
  const rows = await db.selectFrom('finding_events').select('event_type').where('unit_id', '=', unitId).execute();
  const counts: Record<string, number> = {};
  for (const row of rows) counts[row.event_type] = (counts[row.event_type] ?? 0) + 1;
  return counts;
}

describe('overlapping scans of one source repository through the API, with several scans running at once', () => {
  let h: Harness;
  let org: TestOrg;
  let unit: Unit;
  let repo: TestRepo;

  before(async () => {
    h = await createHarness({ scanning: true, env: { BULWARK_JOB_LEASE_SECONDS: '10', BULWARK_WORKER_CONCURRENCY: '4' } });
    org = await h.org('overlap');
    repo = TestRepo.create();
    const files: Record<string, string> = {};
    PLANTED.forEach((id, i) => {
      files[`src/service-${i}.js`] = `export const credential = "${positiveSample(SECRET_RULES.find((r) => r.id === id)!, 700 + i)}";\n`;
    });
    repo.commit(files, 'add services');
    unit = await h.unit(org, ['github:acme/overlap@main'], 'overlap', [repo.url]);
  });
  after(async () => {
    await h.close();
    repo.remove();
  });

  async function scanAtOnce(count: number): Promise<void> {
    const created = await Promise.all(
      Array.from({ length: count }, () => h.call('POST', `/api/v1/repositories/${unit.id}/scans`, { body: { scan_type: 'secrets_scan' } })),
    );
    for (const res of created) assert.equal(res.statusCode, 202, res.body);
    const ids = created.map((res) => res.json().batch_id as string);
    const deadline = Date.now() + 120_000;
    for (const id of ids) {
      for (;;) {
        const progress = (await h.call('GET', `/api/v1/repositories/${unit.id}/scans/${id}/progress`)).json();
        if (TERMINAL.includes(progress.status)) {
          assert.equal(progress.status, 'completed', progress.error_message ?? '');
          assert.equal(progress.scans_completed, 1);
          assert.equal(progress.scans_assessed, 1);
          break;
        }
        assert.ok(Date.now() < deadline, `batch ${id} still ${progress.status}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  async function assertFindingsOnceAndOpen() {
    const db = h.database.store.db;
    const findings = await db.selectFrom('findings').select(['fingerprint', 'check_id', 'status']).where('unit_id', '=', unit.id).execute();
    assert.deepEqual(findings.map((f) => f.check_id).sort(), PLANTED.map((id) => `secrets.${id}`).sort());
    assert.equal(new Set(findings.map((f) => f.fingerprint)).size, PLANTED.length);
    assert.deepEqual(
      findings.map((f) => f.status),
      PLANTED.map(() => 'open'),
    );
    const events = await eventCounts(db, unit.id);
    assert.deepEqual(events, { detected: PLANTED.length }, 'one detected event per finding and no resolved or reopened one');
  }

  test('first scans started together create each finding once and every batch completes', async () => {
    await scanAtOnce(6);
    await assertFindingsOnceAndOpen();
  });

  test('later overlapping scans of the unchanged code resolve and reopen nothing', async () => {
    await scanAtOnce(6);
    await scanAtOnce(6);
    await assertFindingsOnceAndOpen();
  });
});

describe('ingest and auto-resolution of one source repository called concurrently on the real store', () => {
  let h: Harness;
  let org: TestOrg;

  before(async () => {
    h = await createHarness();
    org = await h.org('concurrent-ingest');
  });
  after(() => h.close());

  const rawFinding = (i: number): RawFinding => ({
    checkId: `secrets.rule-${i}`,
    severity: 'high',
    category: 'secrets',
    title: `rule ${i}`,
    message: `a secret of kind ${i}`,
    filePath: `src/file-${i}.js`,
    startLine: i + 1,
    endLine: i + 1,
    cwe: [],
    owasp: [],
    references: [],
    fingerprint: `fingerprint-${i}`,
    commitSha: null,
    metadata: {},
  });

  /** `count` batches of one unit, each with its scan of the unit's one source, started in creation order. */
  async function batchesWithScans(unit: Unit, count: number): Promise<{ batch: ScanBatchRow; scan: ScanRow }[]> {
    const db = h.database.store.db;
    const deps = { db, enqueue: async () => {} } as unknown as BatchRunnerDeps;
    const sources = await db.selectFrom('source_repos').selectAll().where('unit_id', '=', unit.id).execute();
    const made: { batch: ScanBatchRow; scan: ScanRow }[] = [];
    for (let i = 0; i < count; i++) {
      const res = await h.call('POST', `/api/v1/repositories/${unit.id}/scans`, { body: { scan_type: 'secrets_scan' } });
      assert.equal(res.statusCode, 202, res.body);
      const batch = await db.selectFrom('scan_batches').selectAll().where('id', '=', res.json().batch_id).executeTakeFirstOrThrow();
      assert.ok(await planScans(deps, batch, sources));
      const scan = await db.selectFrom('scans').selectAll().where('batch_id', '=', batch.id).executeTakeFirstOrThrow();
      const startedAt = new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString();
      await db.updateTable('scans').set({ status: 'scanning', started_at: startedAt }).where('id', '=', scan.id).execute();
      made.push({ batch, scan: { ...scan, status: 'scanning', started_at: startedAt } });
    }
    return made;
  }

  /** Ingest then assess, for every scan at once, the newest-started ones first to provoke out-of-order commits. */
  async function runAll(work: { batch: ScanBatchRow; scan: ScanRow }[], found: RawFinding[]) {
    const db = h.database.store.db;
    const outcomes = await Promise.allSettled(
      [...work].reverse().map(async ({ batch, scan }) => {
        await ingestScanFindings(db, batch, scan, found);
        await resolveUnseenFindings(db, batch, scan);
      }),
    );
    const failures = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => String(o.reason));
    assert.deepEqual(failures, [], 'no ingest or assessment failed');
  }

  test('the same findings seen by many concurrent scans exist once, with no resolved or reopened event', async () => {
    const unit = await h.unit(org, ['github:acme/concurrent@main'], 'concurrent', []);
    const found = [0, 1, 2, 3].map(rawFinding);
    for (let round = 0; round < 3; round++) await runAll(await batchesWithScans(unit, 8), found);
    const db = h.database.store.db;
    const findings = await db.selectFrom('findings').select(['fingerprint', 'status']).where('unit_id', '=', unit.id).execute();
    assert.equal(findings.length, found.length);
    assert.equal(new Set(findings.map((f) => f.fingerprint)).size, found.length);
    assert.ok(findings.every((f) => f.status === 'open'));
    assert.deepEqual(await eventCounts(db, unit.id), { detected: found.length });
    const assessed = await db.selectFrom('scans').select('assessed').where('unit_id', '=', unit.id).execute();
    assert.ok(assessed.every((s) => s.assessed === 1), 'every scan was assessed, overtaken ones included');
  });

  test('an older scan that finishes after a newer one neither reopens nor resolves what the newer one decided', async () => {
    const unit = await h.unit(org, ['github:acme/ordered@main'], 'ordered', []);
    const db = h.database.store.db;
    const [first] = await batchesWithScans(unit, 1);
    await ingestScanFindings(db, first.batch, first.scan, [rawFinding(0), rawFinding(1)]);
    await resolveUnseenFindings(db, first.batch, first.scan);

    // The older scan still saw finding 0; the newer one, on code where it was fixed, sees finding 1 only.
    const [older, newer] = await batchesWithScans(unit, 2);
    await ingestScanFindings(db, newer.batch, newer.scan, [rawFinding(1)]);
    await resolveUnseenFindings(db, newer.batch, newer.scan);
    await ingestScanFindings(db, older.batch, older.scan, [rawFinding(0), rawFinding(2)]);
    await resolveUnseenFindings(db, older.batch, older.scan);

    const findings = await db.selectFrom('findings').select(['check_id', 'status', 'scan_id']).where('unit_id', '=', unit.id).orderBy('check_id').execute();
    assert.deepEqual(
      findings.map((f) => [f.check_id, f.status, f.scan_id]),
      [
        ['secrets.rule-0', 'resolved', first.scan.id],
        ['secrets.rule-1', 'open', newer.scan.id],
      ],
    );
    assert.deepEqual(await eventCounts(db, unit.id), { detected: 2, resolved_auto: 1 });
  });
});
