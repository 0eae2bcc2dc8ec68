import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { defaultBranchName, InvalidBranchNameError } from '../../src/scm/pull-requests/branch-name.ts';
import { BranchExistsError, PullRequestError, PullRequestTokenError } from '../../src/core/pull-request-errors.ts';
import { startGitLabStandIn, type StandIn } from '../support/code-host-standins.ts';
import { commitsOnTop, createPullRequestFixture, FIXED_CONFIG, type PullRequestFixture } from '../support/pull-request-fixture.ts';

const TOKEN = `glpat-${'G1tL4bT0k3n'.repeat(2)}`;
const FULL_NAME = 'acme/platform/web';

describe('merge requests on GitLab', () => {
  let fx: PullRequestFixture;
  let gitlab: StandIn;

  // A fresh remote, database and stand-in per test, so no test sees another's branches or requests.
  beforeEach(async () => {
    fx = await createPullRequestFixture({ provider: 'gitlab', fullName: FULL_NAME, token: TOKEN });
    gitlab = await startGitLabStandIn({ token: TOKEN, repos: { [FULL_NAME]: fx.remote.dir } });
  });
  afterEach(async () => {
    await gitlab.close();
    await fx.close();
  });

  const opener = () => fx.opener({ gitlab: gitlab.url });

  test('pushes the fix branch and opens the merge request through gitbeaker', async () => {
    const view = fx.fixView();
    const branch = defaultBranchName(view.fix.id);
    const before = gitlab.creations().length;
    const [row] = await opener().open(view, fx.unit, {});

    const commits = commitsOnTop(fx.remote, branch);
    assert.equal(commits.length, 1);
    assert.equal(fx.remote.git('rev-parse', `${commits[0]}^`), fx.remote.base);
    assert.equal(fx.remote.git('show', `${commits[0]}:src/config.js`) + '\n', FIXED_CONFIG);

    // The request this test made (others of this file may have made theirs before).
    const made = gitlab.creations().slice(before);
    assert.equal(made.length, 1);
    const [request] = made;
    assert.equal(request.method, 'POST');
    // The project's full path is its id, with its slashes encoded.
    assert.equal(request.path, '/api/v4/projects/acme%2Fplatform%2Fweb/merge_requests');
    assert.equal(request.headers['private-token'], TOKEN);
    assert.equal(request.headers.authorization, undefined);
    const payload = request.body as Record<string, unknown>;
    assert.deepEqual(Object.keys(payload).sort(), ['description', 'remove_source_branch', 'source_branch', 'target_branch', 'title']);
    assert.equal(payload.source_branch, branch);
    assert.equal(payload.target_branch, 'main');
    assert.equal(payload.title, 'Fix 2 security findings: Read the AWS key from the environment');
    assert.equal(payload.remove_source_branch, true);
    assert.match(String(payload.description), /\| Medium \| `hardcoded-region` \| \[CWE-547\]\(https:\/\/cwe\.mitre\.org\/data\/definitions\/547\.html\) \| `src\/config\.js:2` \|/);

    assert.deepEqual(row, {
      repo_full_name: FULL_NAME,
      branch_name: branch,
      pr_number: 5,
      pr_url: 'https://gitlab.example/acme/platform/web/-/merge_requests/5',
      merge_status: 'checking',
      created_at: '2024-05-01T10:03:00.123Z',
      merged_at: null,
    });
  });

  test('409 from GitLab (a merge request already exists) becomes a clear PullRequestError after the push', async () => {
    gitlab.respondWith({ status: 409, body: { message: ['Another open merge request already exists for this source branch: !5'] } });
    try {
      await assert.rejects(opener().open(fx.fixView(), fx.unit, { branch_name: 'bulwark/dup' }), (error: Error) => {
        assert.ok(error instanceof PullRequestError);
        assert.equal(
          error.message,
          'Branch "bulwark/dup" was pushed to the GitLab repository acme/platform/web, but the pull request could not be opened: ' +
            'GitLab refused the merge request (409): Another open merge request already exists for this source branch: !5',
        );
        assert.equal(error.status, 409);
        assert.equal(error.branchPushed, true);
        assert.ok(!error.message.includes(TOKEN));
        return true;
      });
    } finally {
      gitlab.respondWith(null);
    }
    assert.equal(commitsOnTop(fx.remote, 'bulwark/dup').length, 1);
  });

  test('422 with field errors is spelled out', async () => {
    gitlab.respondWith({ status: 422, body: { message: { title: ['is too long (maximum is 255 characters)'] } } });
    try {
      await assert.rejects(opener().open(fx.fixView(), fx.unit, { branch_name: 'bulwark/field-errors' }), (error: Error) => {
        assert.match(error.message, /GitLab refused the merge request \(422\): title is too long \(maximum is 255 characters\)$/);
        return true;
      });
    } finally {
      gitlab.respondWith(null);
    }
  });

  test('a token GitLab does not accept is a refused token, without the token in the message', async () => {
    const other = await startGitLabStandIn({ token: 'glpat-the-right-one', repos: { [FULL_NAME]: fx.remote.dir } });
    try {
      await assert.rejects(fx.opener({ gitlab: other.url }).open(fx.fixView(), fx.unit, { branch_name: 'bulwark/gl-401' }), (error: Error) => {
        assert.ok(error instanceof PullRequestTokenError);
        assert.equal(error.problem, 'rejected');
        assert.match(error.message, /GitLab refused the merge request \(401\): 401 Unauthorized \(the stored access token was not accepted\)\. Store a token/);
        assert.ok(!error.message.includes(TOKEN));
        return true;
      });
      assert.equal(other.requests[0].headers['private-token'], TOKEN);
    } finally {
      await other.close();
    }
  });

  test('an unknown project is a 404 with a hint', async () => {
    const other = await startGitLabStandIn({ token: TOKEN, repos: {} });
    try {
      await assert.rejects(fx.opener({ gitlab: other.url }).open(fx.fixView(), fx.unit, { branch_name: 'bulwark/gl-404' }), (error: Error) => {
        assert.match(error.message, /GitLab refused the merge request \(404\): 404 Project Not Found \(the repository was not found, or the access token cannot see it\)$/);
        return true;
      });
    } finally {
      await other.close();
    }
  });

  test('invalid branch names and taken branches are refused before anything is sent', async () => {
    const before = gitlab.creations().length;
    await assert.rejects(opener().open(fx.fixView(), fx.unit, { branch_name: 'bad name' }), InvalidBranchNameError);
    fx.remote.pushBranch('taken', { 'x.txt': 'x\n' });
    await assert.rejects(opener().open(fx.fixView(), fx.unit, { branch_name: 'taken' }), BranchExistsError);
    assert.equal(gitlab.creations().length, before);
  });
});
