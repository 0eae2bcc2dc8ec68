import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyQuotaSettings } from '../../src/core/quotas.ts';
import type { Unit } from '../../src/core/units.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';

describe('scan batches in both route families', () => {
  let h: Harness;
  let org: TestOrg;
  let repo: Unit;
  let app: Unit;
  before(async () => {
    h = await createHarness();
    org = await h.org('scanners');
    repo = await h.unit(org, ['github:acme/api@main']);
    app = await h.unit(org, ['github:acme/web@main', 'gitlab:acme/mobile@develop', 'azure_devops:acme/core/billing@trunk'], 'storefront');
  });
  after(() => h.close());

  const balance = async () => (await h.call('GET', '/api/v1/quotas/balance')).json();

  test('POST scans answers 202 with a queued batch and takes one sast_scans credit', async () => {
    const before = await balance();
    const res = await h.call('POST', `/api/v1/repositories/${repo.id}/scans`, { body: { scan_type: 'secrets_scan' } });
    assert.equal(res.statusCode, 202);
    const batch = res.json();
    assert.equal(batch.repository_id, repo.id);
    assert.equal(batch.scan_type, 'secrets_scan');
    assert.equal(batch.status, 'queued');
    assert.equal(batch.total_repositories, 1);
    assert.deepEqual(
      [batch.scans_created, batch.scans_failed, batch.scans_completed, batch.scans_assessed],
      [0, 0, 0, 0],
    );
    assert.equal(batch.error_message, null);
    assert.equal(batch.started_at, null);
    const after = await balance();
    assert.equal(after.sast_scans.used, before.sast_scans.used + 1);
    assert.equal(after.deep_ai_scans.used, before.deep_ai_scans.used);
  });

  test('deep_ai_scan takes a deep_ai_scans credit instead', async () => {
    const before = await balance();
    const res = await h.call('POST', `/api/v1/repositories/${repo.id}/scans`, { body: { scan_type: 'deep_ai_scan' } });
    assert.equal(res.statusCode, 202);
    const after = await balance();
    assert.equal(after.deep_ai_scans.used, before.deep_ai_scans.used + 1);
    assert.equal(after.sast_scans.used, before.sast_scans.used);
  });

  test('an application batch spans every source repo, with placeholders in progress while queued', async () => {
    const created = await h.call('POST', `/api/v1/applications/${app.id}/scans`, { body: { scan_type: 'semgrep_scan' } });
    assert.equal(created.statusCode, 202);
    const batch = created.json();
    assert.equal(batch.application_id, app.id);
    assert.equal(batch.total_repositories, 3);

    const progress = (await h.call('GET', `/api/v1/applications/${app.id}/scans/${batch.batch_id}/progress`)).json();
    assert.equal(progress.batch_id, batch.batch_id);
    assert.equal(progress.status, 'queued');
    assert.equal(progress.percent_complete, 0);
    assert.deepEqual(
      progress.repositories.map((r: any) => [r.repository, r.branch, r.status, r.findings_count]),
      [
        ['acme/web', 'main', 'pending', null],
        ['acme/mobile', 'develop', 'pending', null],
        ['acme/core/billing', 'trunk', 'pending', null],
      ],
    );

    // The same unit, read through the repository family.
    const viaRepo = await h.call('GET', `/api/v1/repositories/${app.id}/scans/${batch.batch_id}`);
    assert.equal(viaRepo.statusCode, 200);
    assert.equal(viaRepo.json().repository_id, app.id);

    const results = (await h.call('GET', `/api/v1/applications/${app.id}/scans/${batch.batch_id}/results`)).json();
    assert.deepEqual(results, { batch_id: batch.batch_id, scan_type: 'semgrep_scan', status: 'queued', findings_count: 0, findings: [] });
  });

  test('the application family refuses sbom_scan; the repository family accepts it', async () => {
    const refused = await h.call('POST', `/api/v1/applications/${app.id}/scans`, { body: { scan_type: 'sbom_scan' } });
    assert.equal(refused.statusCode, 422);
    assert.deepEqual(refused.json().detail[0].loc, ['body', 'scan_type']);
    const accepted = await h.call('POST', `/api/v1/repositories/${app.id}/scans`, { body: { scan_type: 'sbom_scan' } });
    assert.equal(accepted.statusCode, 202);
  });

  test('results list every finding attributed to the batch, with fingerprints', async () => {
    const batch = (await h.call('POST', `/api/v1/repositories/${repo.id}/scans`, { body: { scan_type: 'secrets_scan' } })).json();
    await h.finding(repo, { scan_batch_id: batch.batch_id, fingerprint: 'abc123', file_path: 'a.js' });
    await h.finding(repo, { scan_batch_id: batch.batch_id, fingerprint: 'def456', file_path: 'b.js' });
    await h.finding(repo, { scan_batch_id: null, fingerprint: 'other' });
    const results = (await h.call('GET', `/api/v1/repositories/${repo.id}/scans/${batch.batch_id}/results`)).json();
    assert.equal(results.findings_count, 2);
    assert.deepEqual(results.findings.map((f: any) => f.fingerprint).sort(), ['abc123', 'def456']);
    assert.deepEqual(results.findings[0].cwe, ['CWE-798']);
  });

  test('the list filters by scan_type and status, newest first, and rejects unknown scan types', async () => {
    // Its own repository and batches, so the counts do not depend on which tests ran before.
    const own = await h.unit(org, ['github:acme/listed']);
    const ids: string[] = [];
    for (const scan_type of ['secrets_scan', 'deep_ai_scan', 'semgrep_scan']) {
      const res = await h.call('POST', `/api/v1/repositories/${own.id}/scans`, { body: { scan_type } });
      assert.equal(res.statusCode, 202, res.body);
      ids.push(res.json().batch_id);
    }
    const all = (await h.call('GET', `/api/v1/repositories/${own.id}/scans?limit=200`)).json();
    assert.equal(all.total, 3);
    assert.deepEqual(all.items.map((b: any) => b.batch_id), [...ids].reverse(), 'newest first');
    const created = all.items.map((b: any) => b.created_at);
    assert.deepEqual(created, [...created].sort().reverse());
    const deep = (await h.call('GET', `/api/v1/repositories/${own.id}/scans?scan_type=deep_ai_scan`)).json();
    assert.deepEqual(deep.items.map((b: any) => b.batch_id), [ids[1]]);
    assert.equal(deep.total, 1);
    const queued = (await h.call('GET', `/api/v1/repositories/${own.id}/scans?status=QUEUED`)).json();
    assert.equal(queued.total, 3);
    const none = (await h.call('GET', `/api/v1/repositories/${own.id}/scans?status=completed`)).json();
    assert.equal(none.total, 0);
    const bad = await h.call('GET', `/api/v1/repositories/${repo.id}/scans?scan_type=nope`);
    assert.equal(bad.statusCode, 422);
    assert.equal(bad.json().detail[0].type, 'enum');
    const appSbom = await h.call('GET', `/api/v1/applications/${app.id}/scans?scan_type=sbom_scan`);
    assert.equal(appSbom.statusCode, 422);
    const page = (await h.call('GET', `/api/v1/repositories/${repo.id}/scans`)).json();
    assert.equal(page.limit, 20);
  });

  test('a scan id of another unit answers 404', async () => {
    const other = await h.unit(org, ['github:acme/other']);
    const batch = (await h.call('POST', `/api/v1/repositories/${repo.id}/scans`, { body: { scan_type: 'secrets_scan' } })).json();
    for (const suffix of ['', '/progress', '/results']) {
      const res = await h.call('GET', `/api/v1/repositories/${other.id}/scans/${batch.batch_id}${suffix}`);
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().detail.error_code, 'NOT_FOUND');
    }
  });

  test('with no credits left the scan is refused with 403 and nothing is created', async () => {
    const quotaOrg = await h.org('quota-poor');
    const unit = await h.unit(quotaOrg, ['github:poor/repo']);
    await applyQuotaSettings(h.database.store.db, quotaOrg.id, { plans: { sast_scans: 1 } });
    const first = await h.call('POST', `/api/v1/repositories/${unit.id}/scans`, { key: quotaOrg.key, body: { scan_type: 'secrets_scan' } });
    assert.equal(first.statusCode, 202);
    const refused = await h.call('POST', `/api/v1/repositories/${unit.id}/scans`, { key: quotaOrg.key, body: { scan_type: 'semgrep_scan' } });
    assert.equal(refused.statusCode, 403);
    const detail = refused.json().detail;
    assert.equal(detail.error_code, 'OPERATION_FAILED');
    assert.equal(detail.quota_type, 'sast_scans');
    assert.ok(Date.parse(detail.period_end) > Date.now());
    const list = (await h.call('GET', `/api/v1/repositories/${unit.id}/scans`, { key: quotaOrg.key })).json();
    assert.equal(list.total, 1);
    const balance = (await h.call('GET', '/api/v1/quotas/balance', { key: quotaOrg.key })).json();
    assert.deepEqual(balance.sast_scans, { plan: 1, topup: 0, used: 1, remaining: 0 });
    // A top-up makes room again.
    await applyQuotaSettings(h.database.store.db, quotaOrg.id, { topups: { sast_scans: 1 } });
    const again = await h.call('POST', `/api/v1/repositories/${unit.id}/scans`, { key: quotaOrg.key, body: { scan_type: 'semgrep_scan' } });
    assert.equal(again.statusCode, 202);
  });
});
