import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyQuotaSettings } from '../../src/core/quotas.ts';
import type { Unit } from '../../src/core/units.ts';
import { newId } from '../../src/ids.ts';
import type { FixRow } from '../../src/store/schema.ts';
import { FAMILIES, expectApiError, expectStatus, expectValidationError, prsUsed, readEvents, withQuery } from '../support/helpers.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';

/** Two sources whose default branches differ from the parser's `main`, so a default is visibly the source's. */
const SOURCES = ['github:acme/api@develop', 'gitlab:acme/web@trunk'];
const DIFF = '--- a/src/config.js\n+++ b/src/config.js\n@@ -3 +3 @@\n-const key = "AKIA...";\n+const key = process.env.AWS_KEY;\n';

const fixBody = (overrides: Record<string, unknown> = {}) => ({
  title: 'Move the AWS key to the environment',
  instructions: 'Read the key from process.env and drop the literal.',
  source_repo: 'acme/api',
  ...overrides,
});

let h: Harness;
let org: TestOrg;
before(async () => {
  h = await createHarness({ agentConfigured: true });
  org = await h.org('acme'); // the first organization's key is the harness default
});
after(() => h.close());

/** Sets a fix's stored state directly, standing in for the worker that runs fixes. */
const setFix = (id: string, changes: Partial<FixRow>) => h.database.store.db.updateTable('fixes').set(changes).where('id', '=', id).execute();

/** A fix that the agent finished with a diff. */
const complete = (id: string) =>
  setFix(id, {
    status: 'completed',
    diff: DIFF,
    started_at: '2024-05-01T10:00:00.000Z',
    completed_at: '2024-05-01T10:02:00.000Z',
    agent_steps_completed: 7,
  });

/** The `fix_created` events the feed shows for one fix. */
async function fixCreatedEvents(unit: Unit, fixId: string) {
  const page = await readEvents(h, org.key, { repository_id: unit.id, event_type: 'fix_created', limit: 200 });
  return page.items.filter((e: { metadata: { fix_id?: string } }) => e.metadata.fix_id === fixId);
}

for (const family of FAMILIES) {
  describe(`/api/v1/${family.collection}/{${family.idField}}/fixes`, () => {
    /** A unit of its own for each test, and the path of its fixes collection. */
    async function freshUnit(owner = org) {
      const unit = await h.unit(owner, SOURCES);
      return { unit, base: `/api/v1/${family.collection}/${unit.id}/fixes` };
    }
    const create = (base: string, body: unknown, key = org.key) => h.call('POST', base, { key, body });
    const createdFix = async (base: string, body: unknown) => expectStatus(await create(base, body), 201);
    const fixIds = async (base: string, query?: Record<string, string>) =>
      expectStatus(await h.call('GET', withQuery(base, query)), 200).items.map((f: { id: string }) => f.id);

    describe('create', () => {
      test('stores a pending fix for the findings, writes one fix_created event per finding and takes one prs credit', async () => {
        const { unit, base } = await freshUnit();
        const [f1, f2] = [await h.finding(unit), await h.finding(unit, { scan_type: 'semgrep_scan' })];
        const usedBefore = await prsUsed(h, org.key);
        const started = Date.now();

        const fix = await createdFix(base, fixBody({ finding_ids: [f2.id, f1.id] }));
        // Exactly the contract's fields, the family's own included.
        const { id, created_at, ...rest } = fix;
        assert.equal(typeof id, 'string');
        assert.ok(Date.parse(created_at) >= started - 1);
        assert.deepEqual(rest, {
          [family.idField]: unit.id,
          finding_ids: [f2.id, f1.id],
          title: 'Move the AWS key to the environment',
          status: 'pending',
          source_repo: 'acme/api',
          source_repo_provider: 'github',
          source_scan_branch: 'develop',
          ...Object.fromEntries(family.fixFields.map((field) => [field, null])),
          error_message: null,
          pull_requests: [],
          started_at: null,
          completed_at: null,
          notes: [],
          finding_outcomes: [],
        });

        const events = await fixCreatedEvents(unit, fix.id);
        assert.deepEqual(events.map((e: { finding_id: string }) => e.finding_id).sort(), [f1.id, f2.id].sort());
        for (const event of events) assert.equal(event.actor_user_id, org.keyId);
        assert.equal(await prsUsed(h, org.key), usedBefore + 1);
      });

      test('source_repo_provider picks the source; source_scan_branch overrides its default branch', async () => {
        const { unit, base } = await freshUnit();
        const finding = await h.finding(unit);
        const gitlab = await createdFix(base, fixBody({ finding_ids: [finding.id], source_repo: 'acme/web', source_repo_provider: 'gitlab' }));
        assert.deepEqual([gitlab.source_repo, gitlab.source_repo_provider, gitlab.source_scan_branch], ['acme/web', 'gitlab', 'trunk']);
        const branch = await createdFix(base, fixBody({ finding_ids: [finding.id], source_scan_branch: 'feature/rotate-key' }));
        assert.deepEqual([branch.source_repo, branch.source_repo_provider, branch.source_scan_branch], ['acme/api', 'github', 'feature/rotate-key']);
      });

      test('refuses invalid requests without creating a fix or taking a credit', async () => {
        const { unit, base } = await freshUnit();
        const finding = await h.finding(unit);
        const foreign = await h.finding((await freshUnit()).unit);
        const usedBefore = await prsUsed(h, org.key);
        const valid = { finding_ids: [finding.id] };

        const invalid: [Record<string, unknown>, string, string][] = [
          [{ title: '' }, 'title', 'string_too_short'],
          [{ title: 'x'.repeat(201) }, 'title', 'string_too_long'],
          [{ finding_ids: [] }, 'finding_ids', 'too_short'],
          [{ instructions: undefined }, 'instructions', 'missing'],
          [{ source_repo_provider: 'bitbucket' }, 'source_repo_provider', 'enum'],
          [{ source_repo: 'acme/elsewhere' }, 'source_repo', 'value_error'],
          [{ source_repo: 'acme/web' }, 'source_repo', 'value_error'], // a source, but on gitlab, not the default github
        ];
        for (const [overrides, field, type] of invalid) {
          expectValidationError(await create(base, fixBody({ ...valid, ...overrides })), ['body', field], type);
        }
        expectApiError(await create(base, fixBody({ finding_ids: [finding.id, newId()] })), 404, 'NOT_FOUND');
        expectApiError(await create(base, fixBody({ finding_ids: [foreign.id] })), 404, 'NOT_FOUND');

        assert.deepEqual(await fixIds(base), []);
        assert.equal(await prsUsed(h, org.key), usedBefore);
        assert.deepEqual((await readEvents(h, org.key, { finding_id: finding.id })).items, []);
      });

      test('an exhausted prs quota is a 403 OPERATION_FAILED naming the quota, and creates nothing', async () => {
        const limited = await h.org(`quota-${family.collection}`);
        await applyQuotaSettings(h.database.store.db, limited.id, { plans: { prs: 1 } });
        const { unit, base } = await freshUnit(limited);
        const finding = await h.finding(unit);
        const body = fixBody({ finding_ids: [finding.id] });
        const first = expectStatus(await create(base, body, limited.key), 201);

        const detail = expectApiError(await create(base, body, limited.key), 403, 'OPERATION_FAILED');
        const balance = expectStatus(await h.call('GET', '/api/v1/quotas/balance', { key: limited.key }), 200);
        assert.equal(detail.quota_type, 'prs');
        assert.equal(detail.period_end, balance.period_end);
        assert.deepEqual([balance.prs.used, balance.prs.remaining], [1, 0]);
        const listed = expectStatus(await h.call('GET', base, { key: limited.key }), 200);
        assert.deepEqual(listed.items.map((f: { id: string }) => f.id), [first.id]);
        assert.equal((await readEvents(h, limited.key, { event_type: 'fix_created' })).total, 1);
      });
    });

    describe('read', () => {
      test('lists the unit’s fixes newest first, filtered by finding_id', async () => {
        const { unit, base } = await freshUnit();
        // In files of their own: a live fix of a credential of a code file claims the file's other credentials.
        const [f1, f2] = [await h.finding(unit, { file_path: 'src/one.js' }), await h.finding(unit, { file_path: 'src/two.js' })];
        // A live fix claims its findings' lines (409 FIX_OVERLAPS), so each fix ends before the next takes them.
        const ended = async (fix: { id: string }) => {
          await h.database.store.db.updateTable('fixes').set({ status: 'failed' }).where('id', '=', fix.id).execute();
          return expectStatus(await h.call('GET', `${base}/${fix.id}`), 200);
        };
        const a = await ended(await createdFix(base, fixBody({ finding_ids: [f1.id] })));
        const b = await ended(await createdFix(base, fixBody({ finding_ids: [f1.id, f2.id] })));
        const c = await createdFix(base, fixBody({ finding_ids: [f2.id] }));
        await createdFix((await freshUnit()).base, fixBody());

        const page = expectStatus(await h.call('GET', base), 200);
        assert.deepEqual(page.items.map((f: { id: string }) => f.id), [c.id, b.id, a.id]);
        assert.deepEqual([page.total, page.limit, page.skip, page.has_next], [3, 50, 0, false]);
        assert.deepEqual(page.items[1], b);
        assert.deepEqual(await fixIds(base, { finding_id: f1.id }), [b.id, a.id]);
        assert.deepEqual(await fixIds(base, { finding_id: f2.id }), [c.id, b.id]);
        assert.deepEqual(await fixIds(base, { finding_id: newId() }), []);
        const paged = expectStatus(await h.call('GET', withQuery(base, { limit: 1, skip: 1 })), 200);
        assert.deepEqual([paged.items.map((f: { id: string }) => f.id), paged.has_next], [[b.id], true]);
      });

      test('reads one fix, its diff (null while pending) and its progress', async () => {
        const { unit, base } = await freshUnit();
        const fix = await createdFix(base, fixBody({ finding_ids: [(await h.finding(unit)).id] }));
        assert.deepEqual(expectStatus(await h.call('GET', `${base}/${fix.id}`), 200), fix);
        assert.deepEqual(expectStatus(await h.call('GET', `${base}/${fix.id}/diff`), 200), { fix_id: fix.id, status: 'pending', diff: null });
        assert.deepEqual(expectStatus(await h.call('GET', `${base}/${fix.id}/progress`), 200), {
          fix_id: fix.id,
          [family.idField]: unit.id,
          status: 'pending',
          started_at: null,
          completed_at: null,
          duration_seconds: null,
          agent_steps_completed: 0,
          latest_activity_at: null,
          error_message: null,
          current_step: null,
        });
      });

      test('a completed fix shows its stored diff and progress', async () => {
        const { base } = await freshUnit();
        const fix = await createdFix(base, fixBody());
        await complete(fix.id);
        assert.deepEqual(expectStatus(await h.call('GET', `${base}/${fix.id}/diff`), 200), { fix_id: fix.id, status: 'completed', diff: DIFF });
        const progress = expectStatus(await h.call('GET', `${base}/${fix.id}/progress`), 200);
        assert.deepEqual(
          [progress.status, progress.agent_steps_completed, progress.duration_seconds],
          ['completed', 7, 120],
        );
      });

      test('an unknown fix, or another unit’s fix, is a 404 on every read', async () => {
        const { base } = await freshUnit();
        const foreign = await createdFix((await freshUnit()).base, fixBody());
        for (const id of [newId(), foreign.id]) {
          for (const suffix of ['', '/diff', '/progress']) {
            expectApiError(await h.call('GET', `${base}/${id}${suffix}`), 404, 'NOT_FOUND');
          }
        }
      });
    });

    test('pull requests for a fix that is not completed are a 409 INVALID_STATE, with an empty body or none', async () => {
      const { base } = await freshUnit();
      const fix = await createdFix(base, fixBody());
      expectApiError(await h.call('POST', `${base}/${fix.id}/pull-requests`, { body: {} }), 409, 'INVALID_STATE');
      expectApiError(await h.call('POST', `${base}/${fix.id}/pull-requests`), 409, 'INVALID_STATE');
      await setFix(fix.id, { status: 'running', diff: DIFF }); // a diff in the making is not one to publish
      expectApiError(await h.call('POST', `${base}/${fix.id}/pull-requests`, { body: {} }), 409, 'INVALID_STATE');
      expectApiError(await h.call('POST', `${base}/${newId()}/pull-requests`, { body: {} }), 404, 'NOT_FOUND');
    });
  });
}

describe('fix lifecycle: cancel and refine (repository family)', () => {
  let base: string;
  before(async () => {
    const unit = await h.unit(org, SOURCES);
    base = `/api/v1/repositories/${unit.id}/fixes`;
  });
  const newFix = async () => expectStatus(await h.call('POST', base, { body: fixBody() }), 201);
  const statusOf = async (id: string) => expectStatus(await h.call('GET', `${base}/${id}`), 200).status;
  const refine = (id: string, instructions: string) => h.call('POST', `${base}/${id}/refine`, { body: { instructions } });

  test('cancels a pending fix once; a second cancel is a 409 INVALID_STATE', async () => {
    const fix = await newFix();
    const cancelled = expectStatus(await h.call('POST', `${base}/${fix.id}/cancel`), 200);
    assert.equal(cancelled.id, fix.id);
    assert.equal(cancelled.status, 'cancelled');
    assert.ok(cancelled.completed_at, 'a cancelled fix has ended');
    assert.equal(await statusOf(fix.id), 'cancelled');
    expectApiError(await h.call('POST', `${base}/${fix.id}/cancel`), 409, 'INVALID_STATE');
    assert.equal(await statusOf(fix.id), 'cancelled');
  });

  test('cancels a running fix but not a completed one', async () => {
    const running = await newFix();
    await setFix(running.id, { status: 'running', started_at: new Date().toISOString() });
    assert.equal(expectStatus(await h.call('POST', `${base}/${running.id}/cancel`), 200).status, 'cancelled');
    const completed = await newFix();
    await complete(completed.id);
    expectApiError(await h.call('POST', `${base}/${completed.id}/cancel`), 409, 'INVALID_STATE');
    assert.equal(await statusOf(completed.id), 'completed');
  });

  test('refining a pending fix is a 409 INVALID_STATE', async () => {
    const fix = await newFix();
    expectApiError(await refine(fix.id, 'also handle X'), 409, 'INVALID_STATE');
    assert.equal(await statusOf(fix.id), 'pending');
  });

  test('refining a completed fix sends it back to pending with the follow-up instructions', async () => {
    const fix = await newFix();
    await complete(fix.id);
    expectValidationError(await refine(fix.id, 'x'.repeat(12001)), ['body', 'instructions'], 'string_too_long');
    assert.equal(await statusOf(fix.id), 'completed', 'a rejected refine leaves the fix as it was');

    const refined = expectStatus(await refine(fix.id, 'also handle X'), 200);
    assert.equal(refined.id, fix.id);
    assert.equal(refined.status, 'pending');
    assert.equal(refined.completed_at, null);
    assert.equal(await statusOf(fix.id), 'pending');
    assert.deepEqual(expectStatus(await h.call('GET', `${base}/${fix.id}/diff`), 200), { fix_id: fix.id, status: 'pending', diff: null });
    expectApiError(await h.call('POST', `${base}/${fix.id}/pull-requests`), 409, 'INVALID_STATE'); // the old diff is superseded
    const refinements = await h.database.store.db.selectFrom('fix_refinements').select('instructions').where('fix_id', '=', fix.id).execute();
    assert.deepEqual(refinements.map((r) => r.instructions), ['also handle X'], 'the follow-up instructions are kept for the agent');
  });

  test('without an LLM agent, refining a completed fix is a 409 that names the settings, and changes nothing', async () => {
    const plain = await createHarness();
    try {
      const other = await plain.org('no-agent');
      const unit = await plain.unit(other, SOURCES);
      // A secret has a deterministic fixer, so the fix itself needs no agent.
      const finding = await plain.finding(unit);
      const fix = expectStatus(await plain.call('POST', `/api/v1/repositories/${unit.id}/fixes`, { body: fixBody({ finding_ids: [finding.id] }) }), 201);
      await plain.database.store.db.updateTable('fixes').set({ status: 'completed', diff: DIFF }).where('id', '=', fix.id).execute();
      const refused = expectApiError(
        await plain.call('POST', `/api/v1/repositories/${unit.id}/fixes/${fix.id}/refine`, { body: { instructions: 'also X' } }),
        409,
        'AGENT_UNAVAILABLE',
      );
      assert.match(refused.detail, /BULWARK_LLM_PROVIDER/);
      const row = await plain.database.store.db.selectFrom('fixes').selectAll().where('id', '=', fix.id).executeTakeFirstOrThrow();
      assert.equal(row.status, 'completed');
      assert.equal(row.runs, 1);
      assert.equal((await plain.database.store.db.selectFrom('fix_refinements').selectAll().where('fix_id', '=', fix.id).execute()).length, 0);
    } finally {
      await plain.close();
    }
  });

  test('refine and cancel of an unknown fix are 404s', async () => {
    expectApiError(await refine(newId(), 'also handle X'), 404, 'NOT_FOUND');
    expectApiError(await h.call('POST', `${base}/${newId()}/cancel`), 404, 'NOT_FOUND');
  });
});

test('the application family has no refine or cancel route', async () => {
  const unit = await h.unit(org, SOURCES);
  const base = `/api/v1/applications/${unit.id}/fixes`;
  const fix = expectStatus(await h.call('POST', base, { body: fixBody() }), 201);
  await complete(fix.id);
  expectApiError(await h.call('POST', `${base}/${fix.id}/refine`, { body: { instructions: 'also handle X' } }), 404, 'NOT_FOUND');
  expectApiError(await h.call('POST', `${base}/${fix.id}/cancel`), 404, 'NOT_FOUND');
  assert.equal(expectStatus(await h.call('GET', `${base}/${fix.id}`), 200).status, 'completed');
});
