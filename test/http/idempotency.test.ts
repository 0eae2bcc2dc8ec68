import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { PullRequestOpener } from '../../src/core/fixes.ts';
import type { Unit } from '../../src/core/units.ts';
import { buildApp } from '../../src/http/app.ts';
import { nowIso } from '../../src/ids.ts';
import { expectApiError, expectStatus } from '../support/helpers.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';

// Idempotency-Key on the creating POSTs: a retry with the same key and request gets the first answer and
// is charged once; another request under the key is refused; a key whose request still runs is busy.

const FIX = { title: 'Rotate the AWS key', instructions: 'Move the key to the secret store', source_repo: 'acme/api' };

/** An opener that holds every pull request until `release()`; counts how often it is asked. */
function gatedOpener() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  const opener: PullRequestOpener = {
    async open(fix, _unit, input) {
      calls++;
      await gate;
      return [
        {
          repo_full_name: fix.fix.source_repo ?? '',
          branch_name: input.branch_name ?? 'bulwark/fix',
          pr_number: calls,
          pr_url: `https://github.com/${fix.fix.source_repo}/pull/${calls}`,
          merge_status: 'open',
          created_at: nowIso(),
          merged_at: null,
        },
      ];
    },
  };
  return { opener, release, calls: () => calls };
}

describe('Idempotency-Key', () => {
  let h: Harness;
  let app: FastifyInstance;
  let org: TestOrg;
  let gated: ReturnType<typeof gatedOpener>;

  before(async () => {
    h = await createHarness();
    gated = gatedOpener();
    app = await buildApp({ store: h.database.store, agentConfigured: true, pullRequests: gated.opener });
    org = await h.org('idem');
  });
  after(async () => {
    gated.release();
    await app.close();
    await h.close();
  });

  const post = (url: string, body: unknown, key: string | undefined, apiKey = org.key) =>
    app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const get = (url: string) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${org.key}` } });
  const used = async (type: 'sast_scans' | 'prs') => expectStatus(await get('/api/v1/quotas/balance'), 200)[type].used as number;
  const batchCount = async (unit: Unit) => expectStatus(await get(`/api/v1/repositories/${unit.id}/scans`), 200).total as number;

  function expectReused(res: LightMyRequestResponse) {
    const { detail } = expectStatus(res, 422);
    assert.deepEqual(detail[0].loc, ['header', 'idempotency-key']);
    assert.equal(detail[0].type, 'idempotency_key_reused');
  }

  test('a retried scan POST returns the first answer and is charged once', async () => {
    const unit = await h.unit(org, ['github:acme/api@main']);
    const url = `/api/v1/repositories/${unit.id}/scans`;
    const before = await used('sast_scans');
    const first = await post(url, { scan_type: 'secrets_scan' }, '"8e03978e-40d5-43e8-bc93-6894a57f9324"');
    expectStatus(first, 202);
    const retry = await post(url, { scan_type: 'secrets_scan' }, '"8e03978e-40d5-43e8-bc93-6894a57f9324"');
    assert.equal(retry.statusCode, 202);
    assert.equal(retry.body, first.body);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    // The bare form of the same key is the same key.
    assert.equal((await post(url, '{ "scan_type" : "secrets_scan" }', '8e03978e-40d5-43e8-bc93-6894a57f9324')).body, first.body);
    assert.equal(await used('sast_scans'), before + 1);
    assert.equal(await batchCount(unit), 1);

    // Without a key, or with another one, every POST is a new batch.
    expectStatus(await post(url, { scan_type: 'secrets_scan' }, undefined), 202);
    const other = expectStatus(await post(url, { scan_type: 'secrets_scan' }, 'another-key'), 202);
    assert.notEqual(other.batch_id, first.json().batch_id);
    assert.equal(await used('sast_scans'), before + 3);
  });

  test('the same key with another body or path is refused with 422, and nothing is created', async () => {
    const unit = await h.unit(org, ['github:acme/api@main']);
    const elsewhere = await h.unit(org, ['github:acme/web@main']);
    const url = `/api/v1/repositories/${unit.id}/scans`;
    expectStatus(await post(url, { scan_type: 'secrets_scan' }, 'reused'), 202);
    const before = await used('sast_scans');
    expectReused(await post(url, { scan_type: 'semgrep_scan' }, 'reused'));
    expectReused(await post(`/api/v1/repositories/${elsewhere.id}/scans`, { scan_type: 'secrets_scan' }, 'reused'));
    assert.equal(await used('sast_scans'), before);
    assert.equal(await batchCount(unit), 1);
    assert.equal(await batchCount(elsewhere), 0);
  });

  test('keys belong to one API key, and expire', async () => {
    const unit = await h.unit(org, ['github:acme/api@main']);
    const url = `/api/v1/repositories/${unit.id}/scans`;
    const second = await h.key(org, ['scan:write', 'read'], 'second');
    const mine = expectStatus(await post(url, { scan_type: 'secrets_scan' }, 'shared-name'), 202);
    const theirs = expectStatus(await post(url, { scan_type: 'secrets_scan' }, 'shared-name', second.key), 202);
    assert.notEqual(mine.batch_id, theirs.batch_id);

    await h.database.store.db.updateTable('idempotency_keys').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('idempotency_key', '=', 'shared-name').execute();
    const afterExpiry = expectStatus(await post(url, { scan_type: 'secrets_scan' }, 'shared-name'), 202);
    assert.notEqual(afterExpiry.batch_id, mine.batch_id);
    assert.equal(await batchCount(unit), 3);
  });

  test('concurrent requests with one key create one batch and take one credit', async () => {
    const unit = await h.unit(org, ['github:acme/api@main']);
    const url = `/api/v1/repositories/${unit.id}/scans`;
    const before = await used('sast_scans');
    const answers = await Promise.all(Array.from({ length: 12 }, () => post(url, { scan_type: 'secrets_scan' }, 'at-once')));
    const accepted = answers.filter((res) => res.statusCode === 202);
    assert.ok(accepted.length >= 1);
    assert.equal(new Set(accepted.map((res) => res.json().batch_id)).size, 1);
    for (const res of answers.filter((r) => r.statusCode !== 202)) expectApiError(res, 409, 'IDEMPOTENCY_KEY_IN_USE');
    assert.equal(await batchCount(unit), 1);
    assert.equal(await used('sast_scans'), before + 1);
    // Once answered, every retry gets that answer.
    assert.equal((await post(url, { scan_type: 'secrets_scan' }, 'at-once')).body, accepted[0].body);
  });

  test('a retried fix POST returns the same fix and takes one prs credit; a refused one keeps no key', async () => {
    const unit = await h.unit(org, ['github:acme/api@main']);
    const url = `/api/v1/repositories/${unit.id}/fixes`;
    const finding = await h.finding(unit);
    const body = { ...FIX, finding_ids: [finding.id] };
    const before = await used('prs');
    const first = expectStatus(await post(url, body, 'fix-1'), 201);
    const retry = await post(url, { finding_ids: [finding.id], source_repo: 'acme/api', instructions: FIX.instructions, title: FIX.title }, 'fix-1');
    assert.equal(retry.statusCode, 201);
    assert.equal(retry.json().id, first.id);
    assert.equal(await used('prs'), before + 1);
    expectReused(await post(url, { ...body, title: 'Something else' }, 'fix-1'));

    // A request refused (an unknown finding) does not hold its key: the same request runs again.
    const missing = { ...FIX, finding_ids: ['no-such-finding'] };
    expectApiError(await post(url, missing, 'fix-2'), 404, 'NOT_FOUND');
    expectApiError(await post(url, missing, 'fix-2'), 404, 'NOT_FOUND');
    await h.finding(unit, { id: 'no-such-finding', file_path: 'src/settings.js' });
    expectStatus(await post(url, missing, 'fix-2'), 201);
    assert.equal(await used('prs'), before + 2);
  });

  test('a pull request POST still running with the key answers 409; afterwards the first answer', async () => {
    const unit = await h.unit(org, ['github:acme/api@main']);
    const fix = expectStatus(await post(`/api/v1/repositories/${unit.id}/fixes`, { ...FIX, finding_ids: [(await h.finding(unit)).id] }, undefined), 201);
    await h.database.store.db.updateTable('fixes').set({ status: 'completed', diff: 'diff --git a/x b/x\n' }).where('id', '=', fix.id).execute();
    const url = `/api/v1/repositories/${unit.id}/fixes/${fix.id}/pull-requests`;

    const running = post(url, { branch_name: 'bulwark/rotate' }, 'pr-1');
    for (let i = 0; i < 200 && gated.calls() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(gated.calls(), 1, 'the first request reached the code host');
    expectApiError(await post(url, { branch_name: 'bulwark/rotate' }, 'pr-1'), 409, 'IDEMPOTENCY_KEY_IN_USE');
    gated.release();
    const first = await running;
    expectStatus(first, 201);
    const retry = await post(url, { branch_name: 'bulwark/rotate' }, 'pr-1');
    assert.equal(retry.statusCode, 201);
    assert.equal(retry.body, first.body);
    assert.equal(gated.calls(), 1, 'the retry did not reach the code host');
  });

  test('a malformed key is a 422 on the header', async () => {
    const unit = await h.unit(org, ['github:acme/api@main']);
    const res = await post(`/api/v1/repositories/${unit.id}/scans`, { scan_type: 'secrets_scan' }, 'x'.repeat(300));
    const { detail } = expectStatus(res, 422);
    assert.deepEqual(detail[0].loc, ['header', 'idempotency-key']);
    assert.equal(await batchCount(unit), 0);
  });
});
