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

  before(async () => {
    host = await startScanReportStandIn({ provider: 'github', token: TOKEN, fullName: 'acme/api', pullRequests: [5, 6] });
    h = await createHarness({ scanning: true, env: { BULWARK_GITHUB_API_URL: host.url } });
    db = h.database.store.db;
    org = await h.org('pr-scans');
    repo = TestRepo.create('main');
    repo.commit({ 'src/config.js': CONFIG }, 'configuration');
  });
  after(async () => {
    await h.close();
    await host.close();
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
  });
});
