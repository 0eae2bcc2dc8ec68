// Opening a pull request that fails for a reason the caller can fix (no token stored, a token the code
// host refuses) answers 409 and leaves the fix as it was, on each code host, through the API.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { findingsInOrder } from '../../src/core/fixes.ts';
import type { CodeHostName } from '../../src/code-hosts/index.ts';
import { setSourceToken } from '../../src/core/source-repos.ts';
import { CheckoutCache } from '../../src/scm/checkout-cache.ts';
import { gitRefusedToken, hostRefusedToken } from '../../src/scm/pull-requests/token-refusals.ts';
import { createPullRequestOpener } from '../../src/scm/pull-requests/opener.ts';
import { expectApiError, expectStatus } from '../support/helpers.ts';
import { createHarness, testTokenBox, type Harness, type TestOrg } from '../support/api.ts';
import { startAzureDevOpsStandIn, startGitHubStandIn, startGitLabStandIn, type StandIn, type StandInOptions } from '../support/code-host-standins.ts';
import { BareRemote, FIX_DIFF } from '../support/pull-request-fixture.ts';

const TOKEN = `tok_${'R1ghtT0k3n'.repeat(3)}`;
const WRONG = `tok_${'Wr0ngT0k3n'.repeat(3)}`;

const HOSTS: { provider: CodeHostName; fullName: string; start: (options: StandInOptions) => Promise<StandIn> }[] = [
  { provider: 'github', fullName: 'acme/api', start: startGitHubStandIn },
  { provider: 'gitlab', fullName: 'acme/platform/api', start: startGitLabStandIn },
  { provider: 'azure_devops', fullName: 'acme/platform/api', start: startAzureDevOpsStandIn },
];

for (const host of HOSTS) {
  describe(`pull requests on ${host.provider} without a usable token`, () => {
    let h: Harness;
    let org: TestOrg;
    let standIn: StandIn;
    let cacheRoot: string;
    const remotes: BareRemote[] = [];

    before(async () => {
      // Every remote of this file lives in one folder the stand-in serves by full name, one per test.
      standIn = await host.start({ token: TOKEN, repos: new Proxy({}, { get: () => remotes.at(-1)?.dir }) });
      cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-pr-token-'));
      const checkouts = new CheckoutCache({ root: cacheRoot, allowLocal: true, localRoot: os.tmpdir(), timeoutMs: 30_000 });
      let opener: ReturnType<typeof createPullRequestOpener> | undefined;
      h = await createHarness({
        agentConfigured: true,
        pullRequests: { open: (...args) => opener!.open(...args) },
      });
      opener = createPullRequestOpener({
        findings: (ids) => findingsInOrder(h.database.store.db, ids),
        tokenBox: testTokenBox,
        checkouts,
        codeHosts: { github: standIn.url, gitlab: standIn.url, azure_devops: standIn.url },
        apiTimeoutMs: 10_000,
        gitTimeoutMs: 30_000,
      });
      org = await h.org(`pr-token-${host.provider.replace('_', '-')}`);
    });
    after(async () => {
      await h.close();
      await standIn.close();
      for (const remote of remotes) remote.remove();
      fs.rmSync(cacheRoot, { recursive: true, force: true });
    });

    /** A repository on a fresh remote (its token as given) with one completed fix, and that fix's path. */
    async function completedFix(token: string | null) {
      const remote = new BareRemote();
      remotes.push(remote);
      const unit = await h.unit(org, [`${host.provider}:${host.fullName}@main`], `api-${remotes.length}`, [remote.dir]);
      if (token) await setSourceToken(h.database.store.db, testTokenBox, unit, unit.sources[0].id, token);
      const finding = await h.finding(unit, { commit_sha: remote.base });
      const base = `/api/v1/repositories/${unit.id}/fixes`;
      const fix = expectStatus(
        await h.call('POST', base, { body: { title: 'Drop the key', instructions: 'Read it from the environment.', source_repo: host.fullName, source_repo_provider: host.provider, finding_ids: [finding.id] } }),
        201,
      );
      await h.database.store.db
        .updateTable('fixes')
        .set({ status: 'completed', diff: FIX_DIFF, source_base_commit_sha: remote.base, completed_at: new Date().toISOString() })
        .where('id', '=', fix.id)
        .execute();
      return { remote, unit, fixPath: `${base}/${fix.id}` };
    }

    const statusOf = async (fixPath: string) => expectStatus(await h.call('GET', fixPath), 200);

    test('no stored token: 409 PR_TOKEN_MISSING, nothing pushed, the fix stays completed and can be refined', async () => {
      const { remote, fixPath } = await completedFix(null);
      const before = standIn.requests.length;
      const refused = expectApiError(await h.call('POST', `${fixPath}/pull-requests`, { body: {} }), 409, 'PR_TOKEN_MISSING');
      assert.match(refused.detail, /^No access token is stored for the .* repository acme\/.*api; opening a pull request needs one/);
      assert.equal(remote.git('for-each-ref', '--format=%(refname)', 'refs/heads/bulwark'), '', 'nothing was pushed');
      assert.equal(standIn.requests.length, before, 'the code host was not asked');
      const fix = await statusOf(fixPath);
      assert.equal(fix.status, 'completed');
      assert.equal(fix.error_message, null);
      const refined = expectStatus(await h.call('POST', `${fixPath}/refine`, { body: { instructions: 'also log where the key comes from' } }), 200);
      assert.equal(refined.status, 'pending');
    });

    test('a token stored afterwards opens the pull request on retry', async () => {
      const { unit, fixPath } = await completedFix(null);
      expectApiError(await h.call('POST', `${fixPath}/pull-requests`, { body: {} }), 409, 'PR_TOKEN_MISSING');
      await setSourceToken(h.database.store.db, testTokenBox, unit, unit.sources[0].id, TOKEN);
      const opened = expectStatus(await h.call('POST', `${fixPath}/pull-requests`, { body: {} }), 201);
      assert.equal(opened.pull_requests.length, 1);
      assert.equal((await statusOf(fixPath)).status, 'completed');
    });

    test('a token the host does not accept (401): 409 PR_TOKEN_REJECTED, the fix stays completed and can be refined', async () => {
      const { fixPath } = await completedFix(WRONG);
      const refused = expectApiError(await h.call('POST', `${fixPath}/pull-requests`, { body: { branch_name: 'bulwark/wrong-token' } }), 409, 'PR_TOKEN_REJECTED');
      assert.match(refused.detail, /\(401\).*the stored access token was not accepted/);
      assert.ok(!refused.detail.includes(WRONG));
      const fix = await statusOf(fixPath);
      assert.equal(fix.status, 'completed');
      assert.equal(fix.error_message, null);
      assert.equal(expectStatus(await h.call('POST', `${fixPath}/refine`, { body: { instructions: 'retry later' } }), 200).status, 'pending');
    });

    test('a token without the rights to open it (403): 409 PR_TOKEN_REJECTED, the fix stays completed', async () => {
      const { fixPath } = await completedFix(TOKEN);
      standIn.respondWith({ status: 403, body: { message: 'Resource not accessible by personal access token' } });
      try {
        const refused = expectApiError(await h.call('POST', `${fixPath}/pull-requests`, { body: { branch_name: 'bulwark/no-rights' } }), 409, 'PR_TOKEN_REJECTED');
        assert.match(refused.detail, /\(403\)/);
        assert.ok(!refused.detail.includes(TOKEN));
      } finally {
        standIn.respondWith(null);
      }
      assert.equal((await statusOf(fixPath)).status, 'completed');
      // Once the token has the rights, the same branch is reused and the pull request opens.
      expectStatus(await h.call('POST', `${fixPath}/pull-requests`, { body: { branch_name: 'bulwark/no-rights' } }), 201);
    });

    test('a code host failure that is not about the token is still 502 PR_CREATION_FAILED', async () => {
      const { fixPath } = await completedFix(TOKEN);
      standIn.respondWith({ status: 500, body: { message: 'Internal error' } });
      try {
        expectApiError(await h.call('POST', `${fixPath}/pull-requests`, { body: { branch_name: 'bulwark/host-down' } }), 502, 'PR_CREATION_FAILED');
      } finally {
        standIn.respondWith(null);
      }
      assert.equal((await statusOf(fixPath)).status, 'pr_creation_failed');
    });
  });
}

describe('telling a refused token from other failures', () => {
  test("git's words for refused credentials, and not for other failures", () => {
    for (const said of [
      "fatal: Authentication failed for 'https://github.com/acme/api.git/'",
      "remote: Permission to acme/api.git denied to bot.\nfatal: unable to access 'https://github.com/acme/api.git/': The requested URL returned error: 403",
      "fatal: could not read Username for 'https://gitlab.com': terminal prompts disabled",
      'remote: HTTP Basic: Access denied',
    ]) {
      assert.equal(gitRefusedToken(said), true, said);
    }
    for (const said of ["fatal: repository 'https://github.com/acme/gone.git/' not found", 'error: failed to push some refs (non-fast-forward)', 'Could not resolve host: github.com']) {
      assert.equal(gitRefusedToken(said), false, said);
    }
  });

  test('401 and 403 are about the token, except a rate limit', () => {
    assert.equal(hostRefusedToken(401, 'Bad credentials'), true);
    assert.equal(hostRefusedToken(403, 'Resource not accessible by integration'), true);
    assert.equal(hostRefusedToken(403, 'You have exceeded a secondary rate limit'), false);
    assert.equal(hostRefusedToken(404, 'Not Found'), false);
    assert.equal(hostRefusedToken(500, 'Internal error'), false);
  });
});
