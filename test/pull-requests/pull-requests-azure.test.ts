import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { defaultBranchName } from '../../src/scm/pull-requests/branch-name.ts';
import { PullRequestError, PullRequestTokenError } from '../../src/core/pull-request-errors.ts';
import { startAzureDevOpsStandIn, type StandIn } from '../support/code-host-standins.ts';
import { commitsOnTop, createPullRequestFixture, FIXED_CONFIG, type PullRequestFixture } from '../support/pull-request-fixture.ts';

const TOKEN = 'azdopat' + 'Q'.repeat(45);
const FULL_NAME = 'contoso/Payments Platform/api';

describe('pull requests on Azure DevOps', () => {
  let fx: PullRequestFixture;
  let azure: StandIn;

  // A fresh remote, database and stand-in per test, so no test sees another's branches or requests.
  beforeEach(async () => {
    fx = await createPullRequestFixture({ provider: 'azure_devops', fullName: FULL_NAME, token: TOKEN });
    azure = await startAzureDevOpsStandIn({ token: TOKEN, repos: { [FULL_NAME]: fx.remote.dir } });
  });
  afterEach(async () => {
    await azure.close();
    await fx.close();
  });

  const opener = () => fx.opener({ azure_devops: azure.url });
  const basic = `Basic ${Buffer.from(`PAT:${TOKEN}`).toString('base64')}`;

  test('discovers the git area as the SDK does, then creates the pull request from refs/heads/<branch>', async () => {
    const view = fx.fixView();
    const branch = defaultBranchName(view.fix.id);
    // Only this test's requests: others of this file may have run before.
    const requestsBefore = azure.requests.length;
    const creationsBefore = azure.creations().length;
    const [row] = await opener().open(view, fx.unit, {});
    const requests = azure.requests.slice(requestsBefore);

    const commits = commitsOnTop(fx.remote, branch);
    assert.equal(commits.length, 1);
    assert.equal(fx.remote.git('show', `${commits[0]}:src/config.js`) + '\n', FIXED_CONFIG);

    // Resource-area and location discovery, then the creation, each with the PAT as Basic credentials.
    const calls = requests.map((r) => `${r.method} ${r.path.split('?')[0]}`);
    assert.deepEqual(calls, [
      'OPTIONS /contoso/_apis/Location',
      'GET /contoso/_apis/ResourceAreas',
      'OPTIONS /contoso/_apis/git',
      'POST /contoso/Payments%20Platform/_apis/git/repositories/api/pullRequests',
    ]);
    for (const request of requests) assert.equal(request.headers.authorization, basic);
    const [creation] = azure.creations().slice(creationsBefore);
    assert.match(String(creation.headers.accept), /api-version=7\.2-preview\.2/);
    const payload = creation.body as Record<string, string>;
    assert.deepEqual(Object.keys(payload).sort(), ['description', 'sourceRefName', 'targetRefName', 'title']);
    assert.equal(payload.sourceRefName, `refs/heads/${branch}`);
    assert.equal(payload.targetRefName, 'refs/heads/main');
    assert.equal(payload.title, 'Fix 2 security findings: Read the AWS key from the environment');
    assert.match(payload.description, /\[CWE-798\]\(https:\/\/cwe\.mitre\.org\/data\/definitions\/798\.html\)/);
    assert.ok(payload.description.length <= 4000);

    assert.deepEqual(row, {
      repo_full_name: FULL_NAME,
      branch_name: branch,
      pr_number: 42,
      pr_url: `${azure.url}/contoso/Payments%20Platform/_git/api/pullrequest/42`,
      merge_status: 'queued',
      created_at: '2024-05-01T10:03:00.500Z',
      merged_at: null,
    });
  });

  test('a long description is cut to Azure DevOps\' 4000 characters', async () => {
    await opener().open(fx.fixView(), fx.unit, { branch_name: 'bulwark/long-body', body: 'x'.repeat(5000) });
    const payload = azure.creations().at(-1)!.body as Record<string, string>;
    assert.equal(payload.description.length <= 4000, true);
    assert.match(payload.description, /description shortened/);
  });

  test('409 (an active pull request exists) keeps Azure DevOps\' words and says the branch was pushed', async () => {
    azure.respondWith({
      status: 409,
      body: {
        $id: '1',
        innerException: null,
        message: 'TF401179: An active pull request for the source and target branch already exists.',
        typeName: 'Microsoft.TeamFoundation.Git.Server.GitPullRequestExistsException, Microsoft.TeamFoundation.Git.Server',
        typeKey: 'GitPullRequestExistsException',
        errorCode: 0,
        eventId: 3000,
      },
    });
    try {
      await assert.rejects(opener().open(fx.fixView(), fx.unit, { branch_name: 'bulwark/az-dup' }), (error: Error) => {
        assert.ok(error instanceof PullRequestError);
        assert.equal(
          error.message,
          `Branch "bulwark/az-dup" was pushed to the Azure DevOps repository ${FULL_NAME}, but the pull request could not be opened: ` +
            'Azure DevOps refused the pull request (409): TF401179: An active pull request for the source and target branch already exists.',
        );
        assert.equal(error.status, 409);
        assert.ok(!error.message.includes(TOKEN));
        return true;
      });
    } finally {
      azure.respondWith(null);
    }
  });

  test('a PAT Azure DevOps does not accept is a 401 during discovery, reported as a refused token without the token', async () => {
    const other = await startAzureDevOpsStandIn({ token: 'the-right-pat', repos: { [FULL_NAME]: fx.remote.dir } });
    try {
      await assert.rejects(fx.opener({ azure_devops: other.url }).open(fx.fixView(), fx.unit, { branch_name: 'bulwark/az-401' }), (error: Error) => {
        assert.ok(error instanceof PullRequestTokenError);
        assert.equal(error.problem, 'rejected');
        assert.match(error.message, /Azure DevOps refused the pull request \(401\): TF400813: .* \(the stored access token was not accepted\)\. Store a token/);
        assert.ok(!error.message.includes(TOKEN));
        assert.ok(!error.message.includes(basic.slice(6)));
        return true;
      });
      assert.equal(other.requests.length, 1, 'nothing after the refused discovery call');
      assert.equal(other.creations().length, 0);
    } finally {
      await other.close();
    }
  });

  test('a repository Azure DevOps does not know is a 404 (the SDK answers it with no result)', async () => {
    const other = await startAzureDevOpsStandIn({ token: TOKEN, repos: {} });
    try {
      await assert.rejects(fx.opener({ azure_devops: other.url }).open(fx.fixView(), fx.unit, { branch_name: 'bulwark/az-404' }), (error: Error) => {
        assert.ok(error instanceof PullRequestError);
        assert.match(error.message, /Azure DevOps refused the pull request \(404\): repository "api" was not found in project "Payments Platform"/);
        return true;
      });
    } finally {
      await other.close();
    }
  });
});
