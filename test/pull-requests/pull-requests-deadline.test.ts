import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { after, before, describe, test } from 'node:test';
import { createApiKey } from '../../src/core/api-keys.ts';
import { PullRequestError } from '../../src/core/pull-request-errors.ts';
import { buildApp } from '../../src/http/app.ts';
import type { CodeHostClient } from '../../src/code-hosts/code-host.ts';
import { github as gitHub } from '../../src/code-hosts/github.ts';
import { startGitHubStandIn, startSilentHost, type SilentHost, type StandIn } from '../support/code-host-standins.ts';
import { commitsOnTop, createPullRequestFixture, type PullRequestFixture } from '../support/pull-request-fixture.ts';

// Opening a pull request has an overall deadline: a code host that never answers ends the attempt with a
// timed-out PullRequestError (504 PR_TIMEOUT over HTTP), the fix is left retryable, and a retry with the
// same branch reuses the branch the first attempt pushed.

const TOKEN = `ghp_${'D3adl1ne'.repeat(4)}xyz`;
const DEADLINE_MS = 4000;

describe('the pull request deadline', () => {
  let fx: PullRequestFixture;
  let github: StandIn;
  let silent: SilentHost;

  before(async () => {
    fx = await createPullRequestFixture({ provider: 'github', fullName: 'acme/api', token: TOKEN });
    github = await startGitHubStandIn({ token: TOKEN, repos: { 'acme/api': fx.remote.dir } });
    silent = await startSilentHost();
  });
  after(async () => {
    await silent.close();
    await github.close();
    await fx.close();
  });

  /** Until `answering` is set, the GitHub API is the host that never answers. */
  let answering = false;
  const switchable: CodeHostClient = {
    provider: 'github',
    openPullRequest: async (request) => (await gitHub.connect({ url: answering ? github.url : silent.url, timeoutMs: 60_000 })).openPullRequest(request),
  };
  const opener = (deadlineMs = DEADLINE_MS) => fx.opener({}, { deadlineMs, clients: { github: switchable } });

  test('a host that never answers ends the attempt at the deadline, with the branch pushed and the request aborted', async () => {
    answering = false;
    const view = fx.fixView();
    const branch = 'bulwark/deadline-direct';
    const receivedBefore = silent.received();
    await assert.rejects(opener().open(view, fx.unit, { branch_name: branch }), (error: Error) => {
      assert.ok(error instanceof PullRequestError, String(error));
      assert.equal(error.timedOut, true);
      assert.equal(error.stage, 'pull_request');
      assert.equal(error.branchPushed, true);
      assert.equal(
        error.message,
        `Opening the pull request did not finish within 4 seconds: branch "${branch}" is on the GitHub repository acme/api, ` +
          'but the code host did not answer the request to open the pull request. Try again; the same branch_name reuses the branch once it is pushed',
      );
      assert.ok(!error.message.includes(TOKEN));
      return true;
    });
    assert.equal(silent.received(), receivedBefore + 1, 'the host was asked once');
    assert.equal(commitsOnTop(fx.remote, branch).length, 1, 'the branch was pushed before the host went silent');
    for (let i = 0; i < 100 && silent.abandoned() < silent.received(); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(silent.abandoned(), silent.received(), 'the pending API request was aborted, not left running');
  });

  describe('over HTTP', () => {
    let app: FastifyInstance;
    /** The same server with a deadline no attempt reaches, however slow the machine: for what must not time out. */
    let patient: FastifyInstance;
    let key: string;
    before(async () => {
      app = await buildApp({ store: fx.database.store, pullRequests: opener() });
      patient = await buildApp({ store: fx.database.store, pullRequests: opener(300_000) });
      ({ key } = await createApiKey(fx.database.store.db, { orgId: fx.unit.org_id, name: 'pr', scopes: ['read', 'pr:write'] }));
    });
    after(async () => {
      await app.close();
      await patient.close();
    });

    const call = (method: 'GET' | 'POST', url: string, body?: unknown, server = patient) =>
      server.inject({ method, url, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, payload: body ? JSON.stringify(body) : undefined });

    async function storedFix() {
      const view = fx.fixView();
      const db = fx.database.store.db;
      // The fixture's fix is what the opener reads; the columns it leaves out get their stored defaults.
      await db.insertInto('fixes').values({ ...view.fix, diff_ciphertext: null, pr_opening_since: null, run_attempt: view.fix.run_attempt ?? 1 }).execute();
      await db.insertInto('fix_findings').values(view.findingIds.map((finding_id, position) => ({ fix_id: view.fix.id, finding_id, position }))).execute();
      return view.fix;
    }

    test('504 PR_TIMEOUT leaves the fix retryable with the reason, and the retry reuses the pushed branch', async () => {
      answering = false;
      const fix = await storedFix();
      const url = `/api/v1/repositories/${fx.unit.id}/fixes/${fix.id}`;
      const branch = 'bulwark/deadline-http';

      const timedOut = await call('POST', `${url}/pull-requests`, { branch_name: branch }, app);
      assert.equal(timedOut.statusCode, 504, timedOut.body);
      const detail = timedOut.json().detail;
      assert.equal(detail.error_code, 'PR_TIMEOUT');
      assert.match(detail.detail, /^Opening the pull request did not finish within 4 seconds: branch "bulwark\/deadline-http" is on the GitHub repository acme\/api/);
      const failed = (await call('GET', url)).json();
      assert.equal(failed.status, 'pr_creation_failed');
      assert.equal(failed.error_message, detail.detail);
      assert.deepEqual(failed.pull_requests, []);
      const pushed = fx.remote.branch(branch);
      assert.ok(pushed, 'the branch is on the host');

      answering = true;
      const creationsBefore = github.creations().length;
      const retried = await call('POST', `${url}/pull-requests`, { branch_name: branch });
      assert.equal(retried.statusCode, 201, retried.body);
      assert.equal(retried.json().pull_requests[0].branch_name, branch);
      assert.equal(fx.remote.branch(branch), pushed, 'the retry reused the branch instead of pushing another commit');
      assert.equal(github.creations().length, creationsBefore + 1);
      assert.equal((github.creations().at(-1)!.body as { head: string }).head, branch);
      const completed = (await call('GET', url)).json();
      assert.equal(completed.status, 'completed');
      assert.equal(completed.error_message, null);
    });

    test('a branch holding other work answers 409 BRANCH_EXISTS from the catalog and leaves the fix as it was', async () => {
      answering = true;
      const fix = await storedFix();
      const url = `/api/v1/repositories/${fx.unit.id}/fixes/${fix.id}`;
      fx.remote.pushBranch('feature/theirs', { 'notes.txt': 'theirs\n' });
      const refused = await call('POST', `${url}/pull-requests`, { branch_name: 'feature/theirs' });
      assert.equal(refused.statusCode, 409, refused.body);
      assert.deepEqual(refused.json().detail, {
        detail: 'Branch "feature/theirs" already exists in the GitHub repository acme/api with other changes; choose another branch_name or delete the branch',
        error_code: 'BRANCH_EXISTS',
      });
      assert.equal((await call('GET', url)).json().status, 'completed');
    });

    test('a fix whose source was removed from the repository answers 409 INVALID_STATE before anything is pushed', async () => {
      const fix = await storedFix();
      await fx.database.store.db.updateTable('fixes').set({ source_repo: 'acme/gone' }).where('id', '=', fix.id).execute();
      const refused = await call('POST', `/api/v1/repositories/${fx.unit.id}/fixes/${fix.id}/pull-requests`, {});
      assert.equal(refused.statusCode, 409, refused.body);
      assert.equal(refused.json().detail.error_code, 'INVALID_STATE');
      assert.match(refused.json().detail.detail, /"acme\/gone" is no longer one of its sources/);
    });
  });
});
