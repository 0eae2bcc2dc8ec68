import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';

describe('GET /me and /quotas/balance', () => {
  let h: Harness;
  let org: TestOrg;
  before(async () => {
    h = await createHarness();
    org = await h.org('acme');
  });
  after(() => h.close());

  test('/me names the organization and the calling key without revealing it', async () => {
    const limited = await h.key(org, ['read'], 'ci reader');
    const res = await h.call('GET', '/api/v1/me', { key: limited.key });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.organization_id, org.id);
    assert.equal(body.organization_name, 'acme');
    assert.equal(body.organization_slug, org.slug);
    assert.deepEqual(body.api_key, { id: limited.id, name: 'ci reader', key_prefix: limited.key.slice(0, 12), scopes: ['read'] });
    assert.ok(!res.body.includes(limited.key), 'the full key never appears in a response');
  });

  test('/quotas/balance shows every counter and both unit counters', async () => {
    await h.unit(org, ['github:acme/api']);
    const res = await h.call('GET', '/api/v1/quotas/balance', { key: org.key });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    for (const type of ['prs', 'sast_scans', 'deep_ai_scans']) {
      assert.deepEqual(Object.keys(body[type]).sort(), ['plan', 'remaining', 'topup', 'used']);
      assert.equal(body[type].remaining, body[type].plan + body[type].topup - body[type].used);
    }
    assert.deepEqual(body.repositories, { max: null, current: 1 });
    assert.deepEqual(body.applications, { max: null, current: 1 });
    assert.ok(Date.parse(body.period_start) < Date.now() && Date.now() < Date.parse(body.period_end));
  });
});
