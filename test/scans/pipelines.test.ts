import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyFixers, newChanges, runAgent, type Changes, type FixRunnerDeps } from '../../src/fixing/fix-runner.ts';
import { FixError, type Fixer, type FixFinding } from '../../src/fixing/types.ts';
import { fixFinding } from '../support/finding-rows.ts';
import { concludeBatch, failBatch, planScans, type BatchRunnerDeps } from '../../src/scanning/batch-runner.ts';
import { batchById, scansOfBatches, sourceReposOfUnit } from '../../src/store/scan-batches.ts';
import { expectStatus } from '../support/helpers.ts';
import { createHarness, testTokenBox, type Harness, type TestOrg } from '../support/api.ts';

// The worker pipelines' steps, each on its own.

describe('scan batch steps', () => {
  let h: Harness;
  let org: TestOrg;
  const deps = (): BatchRunnerDeps => ({
    db: h.database.store.db,
    tokenBox: testTokenBox,
    checkouts: undefined as never,
    engines: { engineFor: async () => null },
    enqueue: async () => {},
  });
  before(async () => {
    h = await createHarness();
    org = await h.org('steps');
  });
  after(() => h.close());

  async function queuedBatch(sources: string[]) {
    const unit = await h.unit(org, sources, `app-${sources.length}-${Math.random()}`);
    const family = sources.length > 1 ? 'applications' : 'repositories';
    const id = expectStatus(await h.call('POST', `/api/v1/${family}/${unit.id}/scans`, { body: { scan_type: 'secrets_scan' } }), 202).batch_id;
    return { unit, batch: (await batchById(h.database.store.db, id))! };
  }

  test('planning creates one scan per source repository, once, even when run again after a restart', async () => {
    const { unit, batch } = await queuedBatch(['github:acme/one', 'gitlab:acme/two']);
    const sources = await sourceReposOfUnit(h.database.store.db, unit.id);
    assert.equal(await planScans(deps(), batch, sources), true);
    assert.equal(batch.status, 'scanning');
    const restarted = (await batchById(h.database.store.db, batch.id))!;
    await planScans(deps(), { ...restarted, status: 'creating_scans' }, sources);
    const scans = await scansOfBatches(h.database.store.db, [batch.id]);
    assert.deepEqual(scans.map((s) => s.repository).sort(), ['acme/one', 'acme/two']);
    assert.ok(scans.every((s) => s.status === 'pending'));
    assert.equal((await batchById(h.database.store.db, batch.id))?.status, 'scanning');
  });

  test('a finished batch is never overwritten by a late step of another run', async () => {
    const { batch } = await queuedBatch(['github:acme/late']);
    await failBatch(deps(), batch, 'The scan could not be completed (gave up).');
    await concludeBatch(deps(), { ...batch, status: 'assessing' }); // a stale run reaching its last step
    const stored = await batchById(h.database.store.db, batch.id);
    assert.equal(stored?.status, 'failed');
    assert.equal(stored?.error_message, 'The scan could not be completed (gave up).');
    assert.equal(await planScans(deps(), { ...batch, status: 'queued' }, []), false, 'planning refuses to reopen it');
    assert.equal((await batchById(h.database.store.db, batch.id))?.status, 'failed');
  });
});

describe('fix steps', () => {
  const finding = (id: string, checkId: string) => fixFinding({ id, checkId });
  const fixer: Fixer = {
    name: 'only-aws',
    handles: (f) => f.checkId === 'aws' || f.checkId === 'aws-data-file',
    apply: async (f) => ({ fixed: f.checkId === 'aws', changedFiles: f.checkId === 'aws' ? ['a.py'] : [], note: `${f.checkId} note` }),
  };
  const deps = { fixerFor: (f: FixFinding) => (fixer.handles(f) ? fixer : undefined), agent: null } as unknown as FixRunnerDeps;
  const steps: string[] = [];
  const workspace = { dir: '/nowhere', signal: new AbortController().signal, step: async () => {}, nowDoing: async (step: string) => void steps.push(step) } as never;

  test('the fixers fix what they can and leave the rest, in order, for the agent, each outcome recorded', async () => {
    const changes = newChanges();
    const findings = [finding('1', 'aws'), finding('2', 'stripe'), finding('3', 'aws-data-file')];
    const left = await applyFixers(deps, findings, workspace, changes);
    assert.deepEqual(left.map((f) => f.id), ['2', '3']);
    assert.deepEqual([...changes.files], ['a.py']);
    assert.deepEqual(Object.fromEntries(changes.outcomes), {
      1: { fixed: true, detail: 'aws note', files: ['a.py'] },
      2: { fixed: false, detail: 'no deterministic fixer handles stripe', files: [] },
      3: { fixed: false, detail: 'aws-data-file note', files: [] },
    });
    assert.match(steps.at(-1)!, /^fixing finding 3 of 3 \(aws-data-file in .*\) with the only-aws fixer$/);
  });

  test('a fixer that throws on one finding leaves the others fixed', async () => {
    const throwing: Fixer = { ...fixer, apply: async (f) => (f.id === '2' ? Promise.reject(new Error('boom')) : fixer.apply(f, workspace)) };
    const changes = newChanges();
    const left = await applyFixers({ ...deps, fixerFor: () => throwing }, [finding('1', 'aws'), finding('2', 'aws')], workspace, changes);
    assert.deepEqual(left.map((f) => f.id), ['2']);
    assert.equal(changes.outcomes.get('1')?.fixed, true);
    assert.deepEqual(changes.outcomes.get('2'), { fixed: false, detail: 'the only-aws fixer failed unexpectedly on aws', files: [] });
  });

  test('without an agent, a run that fixed nothing fails with the settings to set; one that fixed some goes on', async () => {
    const findings = [finding('1', 'aws'), finding('3', 'aws-data-file')];
    const nothingFixed = newChanges();
    nothingFixed.outcomes.set('3', { fixed: false, detail: 'aws-data-file note', files: [] });
    const run = (changes: Changes, left: FixFinding[]) => runAgent(deps, {} as never, findings, left, [], workspace, changes);
    await assert.rejects(run(nothingFixed, [findings[1]]), (error: unknown) => error instanceof FixError && /aws-data-file.*aws-data-file note.*BULWARK_LLM_PROVIDER/.test(error.message));
    const someFixed = newChanges();
    someFixed.outcomes.set('1', { fixed: true, detail: 'aws note', files: ['a.py'] });
    someFixed.outcomes.set('3', { fixed: false, detail: 'aws-data-file note', files: [] });
    await run(someFixed, [findings[1]]);
    assert.match(someFixed.outcomes.get('3')!.detail, /^aws-data-file note; set BULWARK_LLM_PROVIDER/);
    await run(newChanges(), []);
  });
});
