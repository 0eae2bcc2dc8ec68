import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createUser, removeMember, setMembership, setUserDisabled } from '../../src/core/accounts.ts';
import { createApiKey } from '../../src/core/api-keys.ts';
import { SCOPES } from '../../src/core/scopes.ts';
import type { Role } from '../../src/core/roles.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';

const PASSWORD = 'correct horse battery staple';
const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

let h: Harness;
let org: TestOrg;
let people = 0;

async function person(role: Role) {
  const email = `keymaker${++people}@example.com`;
  const user = await createUser(h.database.store.db, { email, password: PASSWORD });
  await setMembership(h.database.store.db, org.id, user.id, role);
  return { email, id: user.id };
}

/** A key with every scope, made by the person (as the console makes them). */
async function keyOf(userId: string | null) {
  return (await createApiKey(h.database.store.db, { orgId: org.id, name: 'made by a person', scopes: [...SCOPES], createdByUserId: userId })).key;
}

const me = (key: string) => h.call('GET', '/api/v1/me', { key });
const startScan = (key: string) => h.call('POST', '/api/v1/repositories/nope/scans', { key, body: { scan_type: 'secrets_scan' } });

describe("API keys act as their maker's account and role are now", () => {
  before(async () => {
    h = await createHarness();
    org = await h.org('bindings');
  });
  after(() => h.close());

  test("a disabled maker's keys are refused, from the next request on, and work again once re-enabled", async () => {
    const maker = await person('admin');
    const key = await keyOf(maker.id);
    assert.equal((await me(key)).statusCode, 200);
    await setUserDisabled(h.database.store.db, maker.email, true);
    const refused = await me(key);
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().detail.error_code, 'UNAUTHORIZED');
    await setUserDisabled(h.database.store.db, maker.email, false);
    assert.equal((await me(key)).statusCode, 200);
  });

  test('a maker removed from the organization leaves keys that are refused', async () => {
    const maker = await person('member');
    const key = await keyOf(maker.id);
    assert.equal((await me(key)).statusCode, 200);
    await removeMember(h.database.store.db, org.id, maker.id);
    assert.equal((await me(key)).statusCode, 401);
  });

  test("a demoted maker's keys hold only what the new role allows, and /me shows those scopes", async () => {
    const maker = await person('admin');
    const key = await keyOf(maker.id);
    assert.deepEqual((await me(key)).json().api_key.scopes, [...SCOPES]);
    assert.equal((await startScan(key)).statusCode, 404, 'allowed to try: the repository is not found');
    await setMembership(h.database.store.db, org.id, maker.id, 'viewer');
    assert.deepEqual((await me(key)).json().api_key.scopes, ['read']);
    const scan = await startScan(key);
    assert.equal(scan.statusCode, 403);
    assert.equal(scan.json().detail.error_code, 'INSUFFICIENT_SCOPE');
    await setMembership(h.database.store.db, org.id, maker.id, 'member');
    assert.deepEqual((await me(key)).json().api_key.scopes, [...SCOPES], 'never more than the key was made with, and again all of it');
  });

  test('keys made by the operator (admin CLI, no person) keep working as before', async () => {
    const key = await keyOf(null);
    assert.deepEqual((await me(key)).json().api_key.scopes, [...SCOPES]);
    assert.equal((await startScan(key)).statusCode, 404);
  });

  test('a device login approved by someone disabled, or removed, before the device collects it mints no key', async () => {
    for (const [change, outcome] of [
      ['disabled', async (u: { email: string; id: string }) => setUserDisabled(h.database.store.db, u.email, true)],
      ['removed', async (u: { email: string; id: string }) => removeMember(h.database.store.db, org.id, u.id)],
    ] as const) {
      const approver = await person('member');
      const signIn = await h.app.inject({ method: 'POST', url: '/console/api/session', payload: { email: approver.email, password: PASSWORD } });
      const cookie = String(signIn.headers['set-cookie']).split(';')[0];
      const code = (await h.app.inject({ method: 'POST', url: '/oauth/device/code', payload: { client_name: `cli ${change}` } })).json();
      const approval = await h.app.inject({
        method: 'POST',
        url: `/device-authorizations/${code.user_code}/approve`,
        headers: { cookie, 'x-csrf-token': signIn.json().csrf_token },
        payload: { organization_id: org.id, device_label: `device ${change}` },
      });
      assert.equal(approval.statusCode, 200);
      await outcome(approver);
      const collected = await h.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: GRANT, device_code: code.device_code }).toString(),
      });
      assert.equal(collected.statusCode, 400, change);
      assert.equal(collected.json().error, 'access_denied', change);
      const minted = await h.database.store.db.selectFrom('api_keys').select('id').where('name', '=', `device ${change}`).execute();
      assert.deepEqual(minted, [], change);
    }
  });
});
