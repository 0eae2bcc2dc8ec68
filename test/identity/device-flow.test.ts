import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createUser, setMembership } from '../../src/core/accounts.ts';
import type { Role } from '../../src/core/roles.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';
import { CONTRACT_FIXTURES_DIR } from '../support/contract.ts';

const PASSWORD = 'correct horse battery staple';
const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

const published = JSON.parse(fs.readFileSync(path.join(CONTRACT_FIXTURES_DIR, 'device-flow.schemas.json'), 'utf8')).schemas;
const ajv = new Ajv2020({ strict: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
/** Asserts a body has the published CLI's shape. */
function conforms(schema: string, body: unknown) {
  const validate = ajv.compile({ ...published[schema], $defs: published });
  assert.ok(validate(body), `${schema}: ${JSON.stringify(validate.errors)}`);
}

let h: Harness;
let org: TestOrg;
let people = 0;

async function signedIn(role: Role) {
  const email = `device${++people}@example.com`;
  const user = await createUser(h.database.store.db, { email, password: PASSWORD });
  await setMembership(h.database.store.db, org.id, user.id, role);
  const response = await h.app.inject({ method: 'POST', url: '/console/api/session', payload: { email, password: PASSWORD } });
  const cookie = String(response.headers['set-cookie']).split(';')[0];
  const csrf = response.json().csrf_token as string;
  return {
    userId: user.id,
    cookie,
    call: (method: string, url: string, body?: object) =>
      h.app.inject({ method: method as 'GET', url, headers: { cookie, 'x-csrf-token': csrf }, ...(body ? { payload: body } : {}) }),
  };
}

/** The CLI's first request: JSON with the client's name. */
async function requestCode(clientName = 'kolega-cli on build-host') {
  const response = await h.app.inject({ method: 'POST', url: '/oauth/device/code', payload: { client_name: clientName } });
  assert.equal(response.statusCode, 200);
  conforms('DeviceCodeResponse', response.json());
  return response.json() as { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string; expires_in: number; interval: number };
}

/** The CLI's poll: form fields, as RFC 8628 §3.4 has them. */
function poll(deviceCode: string, grantType = GRANT) {
  return h.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ grant_type: grantType, device_code: deviceCode }).toString(),
  });
}

describe('device flow (RFC 8628) as the published CLI speaks it', () => {
  before(async () => {
    h = await createHarness();
    org = await h.org('devices');
  });
  after(() => h.close());

  test('a CLI polling at its interval, adding 5 s on slow_down, gets a key once the user approves, and uses it on the API', async () => {
    const code = await requestCode();
    assert.match(code.user_code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    assert.equal(code.verification_uri_complete, `${code.verification_uri}?user_code=${code.user_code}`);
    assert.match(code.verification_uri, /\/device$/);
    assert.equal(code.interval, 5);
    assert.equal(code.expires_in, 900);
    const approver = await signedIn('member');
    const view = await approver.call('GET', `/device-authorizations/${code.user_code.toLowerCase().replace('-', '')}`);
    assert.equal(view.statusCode, 200);
    conforms('DeviceAuthorizationView', view.json());
    assert.equal(view.json().client_name, 'kolega-cli on build-host');
    assert.equal(view.json().status, 'pending');

    let interval = code.interval;
    let token: { access_token: string; token_type: string; scope: string } | undefined;
    let approved = false;
    const seen: string[] = [];
    while (!token) {
      const response = await poll(code.device_code);
      assert.equal(response.headers['cache-control'], 'no-store');
      if (response.statusCode === 200) {
        token = response.json();
        break;
      }
      assert.equal(response.statusCode, 400);
      const { error } = response.json();
      seen.push(error);
      if (error === 'slow_down') interval += 5;
      else assert.equal(error, 'authorization_pending');
      if (!approved) {
        const approval = await approver.call('POST', `/device-authorizations/${code.user_code}/approve`, { organization_id: org.id, device_label: 'build-host' });
        assert.equal(approval.statusCode, 200);
        conforms('DeviceApprovalResponse', approval.json());
        assert.equal(approval.json().status, 'approved');
        approved = true;
      }
      await sleep(interval * 1000);
    }
    assert.deepEqual(seen, ['authorization_pending']);
    assert.ok(token);
    assert.equal(token.token_type, 'Bearer');
    assert.equal(token.scope, 'read scan:write finding:write fix:write pr:write');
    const me = await h.call('GET', '/api/v1/me', { key: token.access_token });
    assert.equal(me.statusCode, 200);
    assert.equal(me.json().organization_id, org.id);
    assert.equal(me.json().api_key.name, 'build-host');
    assert.equal((await h.call('GET', '/api/v1/quotas/balance', { key: token.access_token })).statusCode, 200);
    // Single use: the code gives no second key.
    assert.equal((await poll(code.device_code)).json().error, 'invalid_grant');
    assert.equal((await approver.call('GET', `/device-authorizations/${code.user_code}`)).json().status, 'consumed');
    // The key is the organization's like any other: listed with its maker, and revocable.
    const admin = await signedIn('admin');
    const keys = (await admin.call('GET', `/console/api/organizations/${org.id}/api-keys`)).json().items;
    const minted = keys.find((k: { name: string }) => k.name === 'build-host');
    assert.equal(minted.created_by.id, approver.userId);
    await admin.call('DELETE', `/console/api/organizations/${org.id}/api-keys/${minted.id}`);
    assert.equal((await h.call('GET', '/api/v1/me', { key: token.access_token })).statusCode, 401);
  });

  test('polling faster than the interval gets slow_down, and the interval grows', async () => {
    const code = await requestCode();
    assert.equal((await poll(code.device_code)).json().error, 'authorization_pending');
    const fast = await poll(code.device_code);
    assert.equal(fast.statusCode, 400);
    assert.equal(fast.json().error, 'slow_down');
    const stored = await h.database.store.db.selectFrom('device_authorizations').select('interval_seconds').where('user_code', '=', code.user_code).executeTakeFirstOrThrow();
    assert.equal(stored.interval_seconds, 10);
  });

  test('a viewer approves with read scope only; a denied code gives access_denied and no key', async () => {
    const viewer = await signedIn('viewer');
    const code = await requestCode('viewer laptop');
    await viewer.call('POST', `/device-authorizations/${code.user_code}/approve`, { organization_id: org.id });
    const token = (await poll(code.device_code)).json();
    assert.equal(token.scope, 'read');
    assert.equal((await h.call('POST', '/api/v1/repositories/x/scans', { key: token.access_token, body: { scan_type: 'secrets_scan' } })).statusCode, 403);

    const denied = await requestCode('stranger');
    const decision = await viewer.call('POST', `/device-authorizations/${denied.user_code}/deny`);
    assert.equal(decision.json().status, 'denied');
    assert.equal((await poll(denied.device_code)).json().error, 'access_denied');
    assert.equal((await viewer.call('POST', `/device-authorizations/${denied.user_code}/approve`, { organization_id: org.id })).statusCode, 409, 'decided once');
  });

  test('an expired code gives expired_token and cannot be approved; wrong grants and unknown codes are refused', async () => {
    const approver = await signedIn('owner');
    const code = await requestCode();
    await h.database.store.db.updateTable('device_authorizations').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('user_code', '=', code.user_code).execute();
    assert.equal((await poll(code.device_code)).json().error, 'expired_token');
    assert.equal((await approver.call('POST', `/device-authorizations/${code.user_code}/approve`, { organization_id: org.id })).statusCode, 404);
    assert.equal((await poll(code.device_code, 'authorization_code')).json().error, 'unsupported_grant_type');
    assert.equal((await poll('not-a-code')).json().error, 'invalid_grant');
  });

  test('codes asked for are bounded per client address: 5 waiting at once, 10 in 15 minutes; other addresses are not affected', async () => {
    const ask = (address: string) => h.app.inject({ method: 'POST', url: '/oauth/device/code', payload: { client_name: 'flood' }, remoteAddress: address });
    const approver = await signedIn('member');
    const first = [];
    for (let i = 0; i < 5; i++) {
      const response = await ask('10.9.0.1');
      assert.equal(response.statusCode, 200);
      first.push(response.json().user_code as string);
    }
    const waiting = await ask('10.9.0.1');
    assert.equal(waiting.statusCode, 429);
    assert.equal(waiting.json().detail.error_code, 'DEVICE_FLOW_LIMITED');
    assert.ok(Number(waiting.headers['retry-after']) > 0);
    for (const userCode of first) assert.equal((await approver.call('POST', `/device-authorizations/${userCode}/deny`)).statusCode, 200);
    for (let i = 0; i < 4; i++) assert.equal((await ask('10.9.0.1')).statusCode, 200, 'none waiting now');
    const tooMany = await ask('10.9.0.1');
    assert.equal(tooMany.statusCode, 429, 'the eleventh within the window');
    assert.equal(tooMany.json().detail.error_code, 'DEVICE_FLOW_LIMITED');
    assert.equal((await ask('10.9.0.2')).statusCode, 200);
  });

  test('a code nobody used is gone at its expiry, not kept for a day', async () => {
    const code = await requestCode('forgotten');
    await h.database.store.db.updateTable('device_authorizations').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('user_code', '=', code.user_code).execute();
    await h.app.inject({ method: 'POST', url: '/oauth/device/code', payload: { client_name: 'next' }, remoteAddress: '10.9.1.1' });
    const kept = await h.database.store.db.selectFrom('device_authorizations').select('id').where('user_code', '=', code.user_code).execute();
    assert.deepEqual(kept, []);
  });

  test('user codes looked up in vain are limited per session (10) and per address (30); found codes do not count', async () => {
    const code = (await h.app.inject({ method: 'POST', url: '/oauth/device/code', payload: { client_name: 'real' }, remoteAddress: '10.9.2.9' })).json();
    const sessionAt = async (address: string) => {
      const email = `guesser${++people}@example.com`;
      const user = await createUser(h.database.store.db, { email, password: PASSWORD });
      await setMembership(h.database.store.db, org.id, user.id, 'member');
      const response = await h.app.inject({ method: 'POST', url: '/console/api/session', payload: { email, password: PASSWORD }, remoteAddress: address });
      const cookie = String(response.headers['set-cookie']).split(';')[0];
      return (userCode: string) => h.app.inject({ method: 'GET', url: `/device-authorizations/${userCode}`, headers: { cookie }, remoteAddress: address });
    };
    const look = await sessionAt('10.9.2.1');
    for (let i = 0; i < 12; i++) assert.equal((await look(code.user_code)).statusCode, 200, 'a found code is not a guess');
    for (let i = 0; i < 10; i++) assert.equal((await look(`BBBB-BBB${'CDFGHJKLMN'[i]}`)).statusCode, 404);
    const stopped = await look(code.user_code);
    assert.equal(stopped.statusCode, 429, 'locked, even for a real code');
    assert.equal(stopped.json().detail.error_code, 'DEVICE_FLOW_LIMITED');
    // Fresh sessions from one address share the address's limit.
    for (let s = 0; s < 2; s++) {
      const other = await sessionAt('10.9.2.1');
      for (let i = 0; i < 10; i++) assert.equal((await other(`CCCC-CCC${'BDFGHJKLMN'[i]}`)).statusCode, 404);
    }
    assert.equal((await (await sessionAt('10.9.2.1'))(code.user_code)).statusCode, 429, 'the address used up its 30');
    assert.equal((await (await sessionAt('10.9.2.2'))(code.user_code)).statusCode, 200, 'another address is not affected');
  });

  test('the approval page learns when and from which address the code was asked for', async () => {
    const code = (await h.app.inject({ method: 'POST', url: '/oauth/device/code', payload: { client_name: 'Your Bank CLI' }, remoteAddress: '192.0.2.44' })).json();
    const approver = await signedIn('member');
    const view = (await approver.call('GET', `/device-authorizations/${code.user_code}`)).json();
    conforms('DeviceAuthorizationView', view);
    assert.equal(view.requested_from, '192.0.2.44');
    assert.equal(view.client_name, 'Your Bank CLI');
    assert.ok(Math.abs(Date.parse(view.requested_at) - Date.now()) < 60_000);
  });

  test('approving needs a signed-in member of the organization, with the CSRF token', async () => {
    const code = await requestCode();
    assert.equal((await h.app.inject({ method: 'GET', url: `/device-authorizations/${code.user_code}` })).statusCode, 401);
    const stranger = await h.org('elsewhere');
    const approver = await signedIn('member');
    assert.equal((await approver.call('POST', `/device-authorizations/${code.user_code}/approve`, { organization_id: stranger.id })).statusCode, 404);
    const forged = await h.app.inject({ method: 'POST', url: `/device-authorizations/${code.user_code}/approve`, headers: { cookie: approver.cookie }, payload: { organization_id: org.id } });
    assert.equal(forged.statusCode, 403);
    assert.equal((await poll(code.device_code)).json().error, 'authorization_pending');
  });
});
