// Scans of pull requests, end to end: a repository on a local git remote is scanned, its code host's webhook
// reports a pull request into the scanned branch, the worker scans the head commit and publishes on the pull
// request (through the real GitHub client, against a loopback stand-in) only what the pull request adds.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { createWebhook } from '../../src/core/code-host-webhooks.ts';
import { reportOf } from '../../src/core/pull-request-scans.ts';
import { setScanTriggers } from '../../src/core/scan-triggers.ts';
import type { RawFinding } from '../../src/scanning/engine.ts';
import type { Database } from '../../src/store/schema.ts';
import { createHarness, testTokenBox, type Harness, type TestOrg } from '../support/api.ts';
import { startScanReportStandIn, type ScanReportStandIn } from '../support/code-host-standins.ts';
import { githubSignature, scanRepository, waitFor } from '../support/helpers.ts';
import { TestRepo } from '../support/git-repo.ts';
import { positiveSample } from '../support/secret-samples.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';

const TOKEN = 'ghp_prScanToken0123456789abcdefABCDEFabcd';
const stripeKey = (seed: number) => positiveSample(SECRET_RULES.find((rule) => rule.id === 'stripe-secret-key')!, seed);
/** The key the scanned branch has, and the one the pull request adds. */
const [KEPT, ADDED] = [stripeKey(41), stripeKey(42)];
const CONFIG = ['const payments = {', `  key: "${KEPT}",`, '};', ''].join('\n');

describe('scans of pull requests', () => {
  let h: Harness;
  let db: Kysely<Database>;
  let org: TestOrg;
  let repo: TestRepo;
  let host: ScanReportStandIn;
  let gitlab: ScanReportStandIn;
  let azure: ScanReportStandIn;

  before(async () => {
    host = await startScanReportStandIn({ provider: 'github', token: TOKEN, fullName: 'acme/api', pullRequests: [5, 6] });
    gitlab = await startScanReportStandIn({ provider: 'gitlab', token: TOKEN, fullName: 'acme/api', pullRequests: [7] });
    azure = await startScanReportStandIn({ provider: 'azure_devops', token: TOKEN, fullName: 'acme/platform/api', pullRequests: [8] });
    h = await createHarness({ scanning: true, env: { BULWARK_GITHUB_API_URL: host.url, BULWARK_GITLAB_URL: gitlab.url, BULWARK_AZURE_DEVOPS_URL: azure.url } });
    db = h.database.store.db;
    org = await h.org('pr-scans');
    repo = TestRepo.create('main');
    repo.commit({ 'src/config.js': CONFIG }, 'configuration');
  });
  after(async () => {
    await h.close();
    await Promise.all([host.close(), gitlab.close(), azure.close()]);
    repo.remove();
  });

  test('a pull request is reported with what it adds, not what its branch already has', { timeout: 120_000 }, async () => {
    const unit = await h.unit(org, ['github:acme/api@main'], 'api', [repo.url]);
    await db.updateTable('source_repos').set({ token_ciphertext: testTokenBox.seal(TOKEN) }).where('unit_id', '=', unit.id).execute();
    const { progress } = await scanRepository(h, unit.id, 'secrets_scan');
    assert.equal(progress.status, 'completed', JSON.stringify(progress));
    const baseFindings = (await h.call('GET', `/api/v1/repositories/${unit.id}/findings`)).json();
    assert.equal(baseFindings.total, 1, 'the branch has the committed key');

    await setScanTriggers(db, org.id, unit.id, { on_push: [], on_pull_request: ['secrets_scan'] }, null);
    const { hook, secret } = await createWebhook(db, testTokenBox, { orgId: org.id, provider: 'github', unitId: null, userId: null });
    const deliver = (deliveryId: string, action: string, headSha: string, number = 5) => {
      const body = JSON.stringify({
        action,
        number,
        pull_request: { number, html_url: `https://github.com/acme/api/pull/${number}`, state: 'open', title: 'Add AWS client', body: null, merged: false, head: { sha: headSha, ref: 'feature' }, base: { ref: 'main' } },
        repository: { full_name: 'acme/api' },
      });
      return h.app.inject({
        method: 'POST',
        url: `/hooks/code-hosts/${hook.id}`,
        payload: body,
        headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': deliveryId, 'x-hub-signature-256': githubSignature(secret, body) },
      });
    };
    const scanOf = (headSha: string) =>
      waitFor(`the scan of ${headSha.slice(0, 8)}`, 90, async () => {
        const row = await db.selectFrom('pull_request_scans').selectAll().where('unit_id', '=', unit.id).where('head_sha', '=', headSha).executeTakeFirst();
        return row && (row.status === 'completed' || row.status === 'failed') ? row : undefined;
      });

    // The head moves the branch's key down two lines (not new) and adds a second key in a new file (new).
    repo.git('checkout', '--quiet', '-b', 'feature');
    const head = repo.commit({ 'src/config.js': `// configuration\n// of the api\n${CONFIG}`, 'src/aws.js': `const billing = "${ADDED}";\n` }, 'add billing');
    assert.equal((await deliver('pr-1', 'opened', head)).statusCode, 202);
    const first = await scanOf(head);
    assert.equal(first.status, 'completed', first.error_message ?? '');
    assert.equal(first.new_findings, 1);
    const [run] = [...host.published.checkRuns.values()].filter((r) => r.headSha === head);
    assert.ok(run, 'a check run on the head');
    assert.equal(run.fields.conclusion, 'failure');
    assert.deepEqual(run.annotations.map((a) => a.path), ['src/aws.js']);
    assert.ok(host.requests.every((r) => r.headers.authorization === `token ${TOKEN}`), 'published with the repository’s token');
    assert.equal((await h.call('GET', `/api/v1/repositories/${unit.id}/findings`)).json().total, 1, 'a pull request’s scan adds no finding to the branch');

    // The same head reported again is not scanned twice.
    assert.equal((await deliver('pr-1b', 'edited', head)).statusCode, 202);
    await waitFor('pr-1b applied', 30, async () => {
      const d = await db.selectFrom('code_host_deliveries').select('applied_at').where('delivery_id', '=', 'pr-1b').executeTakeFirstOrThrow();
      return d.applied_at ?? undefined;
    });
    assert.equal((await db.selectFrom('pull_request_scans').select('id').where('head_sha', '=', head).execute()).length, 1);

    // A push to the pull request: its new head gets a check run of its own.
    const next = repo.commit({ 'src/aws.js': 'const billing = process.env.BILLING_KEY;\n' }, 'key from the environment');
    assert.equal((await deliver('pr-1c', 'synchronize', next)).statusCode, 202);
    assert.equal((await scanOf(next)).status, 'completed');
    assert.equal([...host.published.checkRuns.values()].filter((r) => r.headSha === next).length, 1);
    assert.equal([...host.published.checkRuns.values()].filter((r) => r.headSha === head).length, 1, 'the earlier head keeps its own');

    // Another pull request that adds no credential passes.
    repo.git('checkout', '--quiet', '-b', 'docs', 'main');
    const clean = repo.commit({ 'README.md': '# api\n\nBilling reads its key from BILLING_KEY.\n' }, 'document the key');
    assert.equal((await deliver('pr-2', 'opened', clean, 6)).statusCode, 202);
    const second = await scanOf(clean);
    assert.equal(second.status, 'completed', second.error_message ?? '');
    assert.equal(second.new_findings, 0);
    const [passing] = [...host.published.checkRuns.values()].filter((r) => r.headSha === clean);
    assert.equal(passing?.fields.conclusion, 'success');
  });

  /** A repository on `source`, scanned, with pull-request scans, a webhook of its host, and a branch adding a key. */
  async function scannedRepository(source: string, provider: 'gitlab' | 'azure_devops') {
    const own = TestRepo.create('main');
    own.commit({ 'src/config.js': CONFIG }, 'configuration');
    const unit = await h.unit(org, [source], source, [own.url]);
    await db.updateTable('source_repos').set({ token_ciphertext: testTokenBox.seal(TOKEN) }).where('unit_id', '=', unit.id).execute();
    assert.equal((await scanRepository(h, unit.id, 'secrets_scan')).progress.status, 'completed');
    await setScanTriggers(db, org.id, unit.id, { on_push: [], on_pull_request: ['secrets_scan'] }, null);
    const webhook = await createWebhook(db, testTokenBox, { orgId: org.id, provider, unitId: unit.id, userId: null });
    own.git('checkout', '--quiet', '-b', 'feature');
    const head = own.commit({ 'src/aws.js': `const billing = "${ADDED}";\n` }, 'add billing');
    const next = () => own.commit({ 'src/aws.js': 'const billing = process.env.BILLING_KEY;\n' }, 'key from the environment');
    return { own, unit, webhook, head, next };
  }
  const finished = (unitId: string, headSha: string) =>
    waitFor(`the scan of ${headSha.slice(0, 8)}`, 90, async () => {
      const row = await db.selectFrom('pull_request_scans').selectAll().where('unit_id', '=', unitId).where('head_sha', '=', headSha).executeTakeFirst();
      return row && (row.status === 'completed' || row.status === 'failed') ? row : undefined;
    });

  test('GitLab: a merge request gets a failed commit status and one note, which the next head edits', { timeout: 120_000 }, async () => {
    const { own, unit, webhook, head, next } = await scannedRepository('gitlab:acme/api@main', 'gitlab');
    // https://docs.gitlab.com/user/project/integrations/webhook_events/#merge-request-events
    const deliver = (uuid: string, sha: string) =>
      h.app.inject({
        method: 'POST',
        url: `/hooks/code-hosts/${webhook.hook.id}`,
        payload: JSON.stringify({
          object_kind: 'merge_request',
          project: { path_with_namespace: 'acme/api' },
          object_attributes: { iid: 7, state: 'opened', title: 'Add billing', description: '', url: 'https://gitlab.com/acme/api/-/merge_requests/7', target_branch: 'main', last_commit: { id: sha, message: 'add billing' } },
        }),
        headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-token': webhook.secret, 'x-gitlab-event-uuid': uuid },
      });
    try {
      assert.equal((await deliver('mr-1', head)).statusCode, 202);
      assert.equal((await finished(unit.id, head)).status, 'completed');
      assert.deepEqual(gitlab.published.statuses.map((st) => [st.sha, st.state]), [[head, 'failed']]);
      const notes = [...gitlab.published.comments.values()];
      assert.equal(notes.length, 1);
      assert.match(notes[0].body, /src\/aws\.js/);
      const second = next();
      assert.equal((await deliver('mr-2', second)).statusCode, 202);
      assert.equal((await finished(unit.id, second)).status, 'completed');
      assert.equal(gitlab.published.comments.size, 1, 'the note is edited, not repeated');
      assert.equal(gitlab.published.statuses.at(-1)?.sha, second);
    } finally {
      own.remove();
    }
  });

  test('Azure DevOps: a pull request gets a failed status and one active thread', { timeout: 120_000 }, async () => {
    const { own, unit, webhook, head } = await scannedRepository('azure_devops:acme/platform/api@main', 'azure_devops');
    // https://learn.microsoft.com/azure/devops/service-hooks/events#git.pullrequest.created
    const body = JSON.stringify({
      id: 'event-8',
      eventType: 'git.pullrequest.created',
      resource: {
        pullRequestId: 8,
        status: 'active',
        title: 'Add billing',
        description: '',
        targetRefName: 'refs/heads/main',
        lastMergeSourceCommit: { commitId: head },
        repository: { name: 'api', webUrl: 'https://dev.azure.com/acme/platform/_git/api' },
      },
    });
    try {
      const answer = await h.app.inject({
        method: 'POST',
        url: `/hooks/code-hosts/${webhook.hook.id}`,
        payload: body,
        headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`bulwark:${webhook.secret}`).toString('base64')}` },
      });
      assert.equal(answer.statusCode, 202);
      assert.equal((await finished(unit.id, head)).status, 'completed');
      assert.deepEqual(azure.published.statuses.map((st) => [st.pullRequest, st.state]), [[8, 'failed']]);
      const threads = [...azure.published.threads.values()];
      assert.equal(threads.length, 1);
      assert.equal(threads[0].status, 'active');
      assert.match([...threads[0].comments.values()][0], /src\/aws\.js/);
    } finally {
      own.remove();
    }
  });

  test('the report lists the new findings most severe first, fails on high or more, and annotates at most 50 lines', () => {
    const finding = (i: number, severity: RawFinding['severity']): RawFinding =>
      ({ checkId: `rule-${i}`, severity, message: `problem ${i}`, filePath: `src/f${i}.py`, startLine: i + 1, endLine: i + 1, fingerprint: `f${i}`, category: 'sast' }) as RawFinding;
    const low = reportOf([finding(1, 'low'), finding(2, 'medium')], ['semgrep_scan']);
    assert.equal(low.conclusion, 'success');
    assert.equal(low.title, 'Bulwark: 2 new findings (1 medium, 1 low)');
    const many = reportOf([...Array.from({ length: 60 }, (_, i) => finding(i, 'low')), finding(99, 'high')], ['semgrep_scan']);
    assert.equal(many.conclusion, 'failure');
    assert.equal(many.annotations.length, 50);
    assert.equal(many.annotations[0].title, 'high: rule-99');
    assert.match(many.summary, /…and 41 more\./);
    assert.equal(reportOf([], ['secrets_scan']).title, 'Bulwark: no new findings');
    assert.match(reportOf([], ['secrets_scan'], 'the commit has more than 10 files').summary, /> the commit has more than 10 files/, 'a head past the scan budget says so');
  });
});
