import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { PullRequestOpener, SourceBranchCheck } from '../../src/core/fixes.ts';
import type { Unit } from '../../src/core/units.ts';
import { buildApp } from '../../src/http/app.ts';
import { CheckoutCache } from '../../src/scm/checkout-cache.ts';
import { branchNameProblem } from '../../src/scm/pull-requests/branch-name.ts';
import { expectApiError, expectStatus, expectValidationError } from '../support/helpers.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';

const DIFF = '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n';

/** Names git would accept or misread that the service refuses all the same, and names git itself refuses. */
const BAD_BRANCHES = [
  'main~1', 'main^', 'HEAD@{1}', '@{-1}', 'a..b', 'a:b', 'a?b', 'a*b', 'a[b', 'a\\b', '-rf', '--upload-pack=touch /tmp/x',
  'with space', 'tab\there', 'nul\u0001char', 'del\u007fchar', 'bidi\u202eevil', 'isolate\u2066x', 'zero\u200bwidth', 'bom\ufeffx',
  'nbsp\u00a0x', 'tag\u{e0041}x', '.hidden', 'a/.b', 'x.lock', 'ends.', 'ends/', '/starts', 'a//b', 'HEAD', '', 'refs/heads/main', 'refs/tags/v1',
];

describe('branch names', () => {
  test('every bad name is refused by the service\'s own rules, before git sees it', () => {
    for (const name of BAD_BRANCHES) assert.ok(branchNameProblem(name), JSON.stringify(name));
    for (const name of ['main', 'feature/rotate-key', 'bulwark/fix-0190aa', 'release-1.2', 'fix_ü-umlaut']) assert.equal(branchNameProblem(name), null, name);
  });
});

describe('POST fixes: source_scan_branch', () => {
  let h: Harness;
  let org: TestOrg;
  let repo: TestRepo;
  let unit: Unit;
  let app: FastifyInstance;
  const asked: string[] = [];

  before(async () => {
    h = await createHarness({ agentConfigured: true });
    org = await h.org('branches');
    repo = TestRepo.create();
    repo.commit({ 'a.txt': 'a\n' });
    repo.git('branch', 'feature/rotate-key');
    unit = await h.unit(org, ['github:acme/api@main'], 'api', [repo.url]);
    const cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-branch-cache-'));
    const cache = new CheckoutCache({ root: cacheRoot, allowLocal: true, localRoot: os.tmpdir(), timeoutMs: 30_000 });
    const exists: SourceBranchCheck = (source, branch) => {
      asked.push(branch);
      return cache.branchExists({ id: source.id, provider: source.provider, cloneUrl: source.clone_url, token: null }, branch);
    };
    app = await buildApp({ store: h.database.store, agentConfigured: true, sourceBranchExists: exists });
  });
  after(async () => {
    await app.close();
    await h.close();
    repo.remove();
  });
  // Each test reads only the look-ups it caused, whatever ran before it.
  beforeEach(() => {
    asked.length = 0;
  });

  const create = (body: Record<string, unknown>) =>
    app.inject({
      method: 'POST',
      url: `/api/v1/repositories/${unit.id}/fixes`,
      headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ title: 't', instructions: 'i', source_repo: 'acme/api', ...body }),
    });
  const fixCount = async () => (await h.database.store.db.selectFrom('fixes').select('id').execute()).length;

  test('a branch of the source repository is accepted', async () => {
    const fix = expectStatus(await create({ source_scan_branch: 'feature/rotate-key' }), 201);
    assert.equal(fix.source_scan_branch, 'feature/rotate-key');
    assert.deepEqual(asked.splice(0), ['feature/rotate-key']);
  });

  test('a name that is not a plain branch name is 422, stores nothing and is never looked up', async () => {
    const before = await fixCount();
    for (const name of BAD_BRANCHES) {
      expectValidationError(await create({ source_scan_branch: name }), ['body', 'source_scan_branch'], 'value_error');
    }
    assert.equal(await fixCount(), before);
    assert.deepEqual(asked, [], 'a bad name reached the repository');
  });

  test('a branch the source repository does not have is 422 with a clear message', async () => {
    const before = await fixCount();
    for (const name of ['nope', 'feature', 'rotate-key', 'feature/rotate-key/x']) {
      const res = await create({ source_scan_branch: name });
      expectValidationError(res, ['body', 'source_scan_branch'], 'value_error');
      assert.match(res.json().detail[0].msg, new RegExp(`branch "${name.replace('/', '\\/')}" does not exist in acme/api`));
    }
    assert.equal(await fixCount(), before);
  });
});

describe('POST fixes through the service, on a real repository', () => {
  let h: Harness;
  let repo: TestRepo;
  before(async () => {
    h = await createHarness({ scanning: true, agentConfigured: true });
    repo = TestRepo.create();
    repo.commit({ 'a.txt': 'a\n' });
  });
  after(async () => {
    await h.close();
    repo.remove();
  });

  test('main~1 is not evaluated as a revision, and a missing branch is 422', async () => {
    const org = await h.org('service');
    const unit = await h.unit(org, ['github:acme/api@main'], 'api', [repo.url]);
    const post = (branch: string) => h.call('POST', `/api/v1/repositories/${unit.id}/fixes`, { body: { title: 't', instructions: 'i', source_repo: 'acme/api', source_scan_branch: branch } });
    expectValidationError(await post('main~1'), ['body', 'source_scan_branch'], 'value_error');
    expectValidationError(await post('develop'), ['body', 'source_scan_branch'], 'value_error');
  });
});

describe('POST pull-requests: one branch per fix', () => {
  let h: Harness;
  let org: TestOrg;
  let unit: Unit;
  let app: FastifyInstance;
  const opened: string[] = [];

  const opener: PullRequestOpener = {
    async open(view, _unit, input) {
      opened.push(input.branch_name!);
      return [{
        repo_full_name: view.fix.source_repo!, branch_name: input.branch_name!, pr_number: opened.length,
        pr_url: `https://github.com/acme/api/pull/${opened.length}`, merge_status: 'open', created_at: new Date().toISOString(), merged_at: null,
      }];
    },
  };

  before(async () => {
    h = await createHarness({ agentConfigured: true });
    org = await h.org('shared');
    unit = await h.unit(org, ['github:acme/api@main']);
    app = await buildApp({ store: h.database.store, agentConfigured: true, pullRequests: opener });
  });
  after(async () => {
    await app.close();
    await h.close();
  });

  const call = (url: string, body: unknown) =>
    app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  async function completedFix(): Promise<string> {
    const fix = expectStatus(await call(`/api/v1/repositories/${unit.id}/fixes`, { title: 't', instructions: 'i', source_repo: 'acme/api' }), 201);
    await h.database.store.db.updateTable('fixes').set({ status: 'completed', diff: DIFF }).where('id', '=', fix.id).execute();
    return fix.id;
  }
  const openPr = (fixId: string, branch_name?: string) => call(`/api/v1/repositories/${unit.id}/fixes/${fixId}/pull-requests`, branch_name === undefined ? {} : { branch_name });

  test('a second fix asking for a branch another fix holds gets 409 and nothing is opened', async () => {
    const [first, second] = [await completedFix(), await completedFix()];
    const openedBefore = opened.length;
    expectStatus(await openPr(first, 'security/rotate-key'), 201);
    const refused = expectApiError(await openPr(second, 'security/rotate-key'), 409, 'BRANCH_NAME_TAKEN');
    assert.match(refused.detail, /security\/rotate-key/);
    assert.deepEqual(opened.slice(openedBefore), ['security/rotate-key']);
    // The refused fix can still open its pull request on a branch of its own.
    expectStatus(await openPr(second, 'security/rotate-key-2'), 201);
  });

  test('two fixes racing for one branch: exactly one gets it', async () => {
    const fixes = await Promise.all([completedFix(), completedFix(), completedFix()]);
    const answers = await Promise.all(fixes.map((id) => openPr(id, 'security/race')));
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [201, 409, 409]);
  });

  test('a default branch names its fix, so fixes never share one', async () => {
    const [a, b] = [await completedFix(), await completedFix()];
    const first = expectStatus(await openPr(a), 201);
    const second = expectStatus(await openPr(b), 201);
    assert.equal(first.pull_requests[0].branch_name, `bulwark/fix-${a}`);
    assert.notEqual(first.pull_requests[0].branch_name, second.pull_requests[0].branch_name);
  });

  test('bad branch names are 422 and never reach the opener', async () => {
    const fixId = await completedFix();
    const before = opened.length;
    for (const name of BAD_BRANCHES.filter(Boolean)) {
      expectValidationError(await openPr(fixId, name), ['body', 'branch_name'], 'value_error');
    }
    assert.equal(opened.length, before);
  });
});
