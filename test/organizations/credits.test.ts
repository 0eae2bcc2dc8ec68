import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { refundBatchCredit, refundFixCredit } from '../../src/core/credits.ts';
import { newId } from '../../src/ids.ts';
import { failBatch, giveUpBatch, runBatch, type BatchRunnerDeps } from '../../src/scanning/batch-runner.ts';
import { finishRun, giveUpFix, type FixRunnerDeps } from '../../src/fixing/fix-runner.ts';
import { fixById, moveFix } from '../../src/store/fixes.ts';
import { batchById } from '../../src/store/scan-batches.ts';
import { expectApiError, expectStatus, prsUsed } from '../support/helpers.ts';
import { createHarness, testTokenBox, type Harness, type TestOrg } from '../support/api.ts';

// Who pays for work that never happened: refusals charge nothing, the service's failures give the
// credit back exactly once, the caller's own doing keeps it spent.

const fixBody = (findingIds: string[]) => ({
  ...(findingIds.length ? { finding_ids: findingIds } : {}),
  title: 'Rotate the key',
  instructions: 'Read it from the environment',
  source_repo: 'acme/credits',
});

describe('a fix nothing could carry out is refused at creation', () => {
  let h: Harness;
  let org: TestOrg;
  before(async () => {
    h = await createHarness(); // no LLM agent configured
    org = await h.org('refusals');
  });
  after(() => h.close());

  test('a finding no deterministic fixer handles: 409 NO_FIXER_AVAILABLE, no credit taken, no fix stored, no event', async () => {
    const unit = await h.unit(org, ['github:acme/credits']);
    const fixable = await h.finding(unit); // a secret: the secrets fixer handles it
    const review = await h.finding(unit, { scan_type: 'deep_ai_scan', check_id: 'ai.review.authz', fingerprint: newId() });
    const base = `/api/v1/repositories/${unit.id}/fixes`;
    const used = await prsUsed(h, org.key);
    const refused = expectApiError(await h.call('POST', base, { body: fixBody([fixable.id, review.id]) }), 409, 'NO_FIXER_AVAILABLE');
    assert.match(refused.detail, /ai\.review\.authz/);
    assert.match(refused.detail, /BULWARK_LLM_PROVIDER/);
    assert.equal(await prsUsed(h, org.key), used);
    assert.equal(expectStatus(await h.call('GET', base), 200).total, 0);
    assert.equal((await h.database.store.db.selectFrom('fixes').select('id').where('unit_id', '=', unit.id).execute()).length, 0);
    const events = expectStatus(await h.call('GET', `/api/v1/finding-events?finding_id=${review.id}`), 200).items;
    assert.deepEqual(events.filter((e: { event_type: string }) => e.event_type === 'fix_created'), []);
  });

  test('a fix without findings needs the agent: 409 NO_FIXER_AVAILABLE, nothing charged', async () => {
    const unit = await h.unit(org, ['github:acme/credits']);
    const used = await prsUsed(h, org.key);
    const refused = expectApiError(await h.call('POST', `/api/v1/applications/${unit.id}/fixes`, { body: fixBody([]) }), 409, 'NO_FIXER_AVAILABLE');
    assert.match(refused.detail, /without findings/);
    assert.equal(await prsUsed(h, org.key), used);
  });

  test('a fix whose findings all have a deterministic fixer is accepted and charged', async () => {
    const unit = await h.unit(org, ['github:acme/credits']);
    const used = await prsUsed(h, org.key);
    expectStatus(await h.call('POST', `/api/v1/repositories/${unit.id}/fixes`, { body: fixBody([(await h.finding(unit)).id]) }), 201);
    assert.equal(await prsUsed(h, org.key), used + 1);
  });
});

describe('credits given back', () => {
  let h: Harness;
  let org: TestOrg;
  const fixDeps = (): FixRunnerDeps => ({
    db: h.database.store.db,
    tokenBox: testTokenBox,
    checkouts: undefined as never,
    fixerFor: () => undefined,
    verify: async () => ({ stillDetected: [], unparsable: [] }),
    agent: null,
    gitTimeoutMs: 1000,
  });
  const batchDeps = (engines: BatchRunnerDeps['engines']): BatchRunnerDeps => ({
    db: h.database.store.db,
    tokenBox: testTokenBox,
    checkouts: undefined as never,
    engines,
    enqueue: async () => {},
  });
  const sastUsed = async () => expectStatus(await h.call('GET', '/api/v1/quotas/balance', { key: org.key }), 200).sast_scans.used as number;

  before(async () => {
    h = await createHarness({ agentConfigured: true });
    org = await h.org('refunds');
  });
  after(() => h.close());

  async function newFix() {
    const unit = await h.unit(org, ['github:acme/credits']);
    const created = expectStatus(await h.call('POST', `/api/v1/repositories/${unit.id}/fixes`, { body: fixBody([(await h.finding(unit)).id]) }), 201);
    return { unit, fixId: created.id as string, base: `/api/v1/repositories/${unit.id}/fixes/${created.id}` };
  }

  async function runningFix() {
    const made = await newFix();
    assert.ok(await moveFix(h.database.store.db, made.fixId, 'running', { run_attempt: 1 }));
    return { ...made, fix: (await fixById(h.database.store.db, made.fixId))! };
  }

  test('a fix cancelled before it starts returns its credit, once', async () => {
    const { base } = await newFix();
    const used = await prsUsed(h, org.key);
    expectStatus(await h.call('POST', `${base}/cancel`), 200);
    assert.equal(await prsUsed(h, org.key), used - 1);
    expectApiError(await h.call('POST', `${base}/cancel`), 409, 'INVALID_STATE');
    assert.equal(await prsUsed(h, org.key), used - 1);
  });

  test('a fix cancelled while it runs keeps its credit', async () => {
    const { base } = await runningFix();
    const used = await prsUsed(h, org.key);
    expectStatus(await h.call('POST', `${base}/cancel`), 200);
    assert.equal(await prsUsed(h, org.key), used);
  });

  test('a fix failing through the service (agent error, verification) returns its credit once, even when its end is recorded again', async () => {
    const { fix, base } = await runningFix();
    const used = await prsUsed(h, org.key);
    const outcome = { status: 'failed' as const, changes: { error_message: 'the model provider answered 503' } };
    await finishRun(fixDeps(), fix, outcome);
    await finishRun(fixDeps(), fix, outcome); // a retried job recording the same end
    await giveUpFix(fixDeps(), `${fix.id}#1`, 'too many attempts');
    assert.equal(expectStatus(await h.call('GET', base), 200).status, 'failed');
    assert.equal(await prsUsed(h, org.key), used - 1);
    const stored = await fixById(h.database.store.db, fix.id);
    assert.ok(stored?.credit_refunded_at, 'the refund is recorded on the fix');
    assert.equal(await refundFixCredit(h.database.store.db, stored!), false, 'a later refund attempt gives nothing back');
    assert.equal(await prsUsed(h, org.key), used - 1);
  });

  test('a fix the worker gave up on returns its credit', async () => {
    const { fix } = await runningFix();
    const used = await prsUsed(h, org.key);
    await giveUpFix(fixDeps(), `${fix.id}#1`, 'the lease expired 3 times');
    assert.equal((await fixById(h.database.store.db, fix.id))?.status, 'failed');
    assert.equal(await prsUsed(h, org.key), used - 1);
  });

  test('a fix the worker never got to run fails when the queue gives up, and returns its credit', async () => {
    const { fixId, base } = await newFix();
    const used = await prsUsed(h, org.key);
    await giveUpFix(fixDeps(), `${fixId}#1`, 'no worker could claim it');
    await giveUpFix(fixDeps(), `${fixId}#1`, 'no worker could claim it');
    const fix = expectStatus(await h.call('GET', base), 200);
    assert.equal(fix.status, 'failed');
    assert.match(fix.error_message, /no worker could claim it/);
    assert.equal(await prsUsed(h, org.key), used - 1);
  });

  test('a fix failing through the caller (its source repository removed) keeps its credit', async () => {
    const { fix } = await runningFix();
    const used = await prsUsed(h, org.key);
    await finishRun(fixDeps(), fix, { status: 'failed', changes: { error_message: 'the source repository was removed' }, callerCaused: true });
    assert.equal((await fixById(h.database.store.db, fix.id))?.status, 'failed');
    assert.equal(await prsUsed(h, org.key), used);
  });

  test('a batch in which no scan ran returns its credit once; one with a completed scan keeps it', async () => {
    const unit = await h.unit(org, ['github:acme/credits']);
    const scanOf = async () => expectStatus(await h.call('POST', `/api/v1/repositories/${unit.id}/scans`, { body: { scan_type: 'secrets_scan' } }), 202).batch_id as string;
    const db = h.database.store.db;

    const empty = await scanOf();
    const used = await sastUsed();
    await failBatch(batchDeps({ engineFor: async () => null }), (await batchById(db, empty))!, 'every checkout failed');
    await giveUpBatch(batchDeps({ engineFor: async () => null }), empty, 'retried');
    assert.equal(await sastUsed(), used - 1);
    assert.equal(await refundBatchCredit(db, (await batchById(db, empty))!), false);
    assert.equal(await sastUsed(), used - 1);

    const delivered = await scanOf();
    await db
      .insertInto('scans')
      .values({
        id: newId(),
        batch_id: delivered,
        org_id: org.id,
        unit_id: unit.id,
        source_repo_id: unit.sources[0]!.id,
        repository: 'acme/credits',
        branch: 'main',
        status: 'completed',
        status_reason: null,
        commit_sha: null,
        findings_count: 0,
        assessed: 0,
        created_at: new Date().toISOString(),
        started_at: null,
        completed_at: null,
      })
      .execute();
    const before = await sastUsed();
    await giveUpBatch(batchDeps({ engineFor: async () => null }), delivered, 'lease lost');
    assert.equal((await batchById(db, delivered))?.status, 'failed');
    assert.equal(await sastUsed(), before, 'a scan completed, so the credit stays spent');
  });

  test('a batch of a scan type this server does not know fails closed and returns its credit', async () => {
    const unit = await h.unit(org, ['github:acme/credits']);
    const batchId = expectStatus(await h.call('POST', `/api/v1/repositories/${unit.id}/scans`, { body: { scan_type: 'secrets_scan' } }), 202).batch_id;
    const db = h.database.store.db;
    await db.updateTable('scan_batches').set({ scan_type: 'quantum_scan' }).where('id', '=', batchId).execute();
    const used = await sastUsed();
    const { defaultEngines } = await import('../../src/scanning/engines.ts');
    const signal = new AbortController().signal;
    await runBatch(batchDeps(defaultEngines({ secretsHistoryDepth: 0 })), batchId, { signal, attempt: 1 });
    const batch = await batchById(db, batchId);
    assert.equal(batch?.status, 'failed');
    assert.match(batch?.error_message ?? '', /does not know the scan type quantum_scan/);
    assert.equal(await sastUsed(), used - 1);
  });
});
