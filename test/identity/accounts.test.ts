import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createUser, setMembership } from '../../src/core/accounts.ts';
import type { Role } from '../../src/core/roles.ts';
import { buildApp } from '../../src/http/app.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';

const PASSWORD = 'correct horse battery staple';

interface Browser {
  cookie: string;
  csrf: string;
  body: { user: { id: string; email: string }; organizations: { id: string; role: string }[] };
}

let h: Harness;
let org: TestOrg;
let users = 0;

async function person(role: Role, inOrg: TestOrg = org): Promise<{ email: string; id: string }> {
  const email = `person${++users}@example.com`;
  const user = await createUser(h.database.store.db, { email, password: PASSWORD });
  await setMembership(h.database.store.db, inOrg.id, user.id, role);
  return { email, id: user.id };
}

async function signIn(email: string, password = PASSWORD, address = '10.0.0.1') {
  return h.app.inject({ method: 'POST', url: '/console/api/session', payload: { email, password }, remoteAddress: address });
}

async function browserOf(email: string): Promise<Browser> {
  const response = await signIn(email);
  assert.equal(response.statusCode, 200, response.body);
  const cookie = String(response.headers['set-cookie']).split(';')[0];
  return { cookie, csrf: response.json().csrf_token, body: response.json() };
}

/** A console call: the session cookie, the organization, and the CSRF token unless told otherwise. */
function consoleCall(browser: Browser, method: string, url: string, options: { body?: unknown; csrf?: string | null; orgId?: string } = {}) {
  const headers: Record<string, string> = { cookie: browser.cookie, 'x-bulwark-organization': options.orgId ?? org.id };
  const csrf = options.csrf === undefined ? browser.csrf : options.csrf;
  if (csrf) headers['x-csrf-token'] = csrf;
  return h.app.inject({ method: method as 'GET', url, headers, ...(options.body === undefined ? {} : { payload: options.body as object }) });
}

describe('console accounts, sessions and roles', () => {
  before(async () => {
    h = await createHarness();
    org = await h.org('acme');
  });
  after(() => h.close());

  test('signing in sets an HttpOnly, SameSite=Strict session cookie and answers the user, their organizations and a CSRF token', async () => {
    const admin = await person('admin');
    const response = await signIn(admin.email.toUpperCase());
    assert.equal(response.statusCode, 200);
    const cookie = String(response.headers['set-cookie']);
    assert.match(cookie, /^bulwark_session=[\w-]{40,};/);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    const body = response.json();
    assert.equal(body.user.email, admin.email);
    assert.deepEqual(body.organizations.map((o: { id: string; role: string }) => [o.id, o.role]), [[org.id, 'admin']]);
    assert.ok(body.csrf_token.length >= 40);
    const again = await h.app.inject({ method: 'GET', url: '/console/api/session', headers: { cookie: cookie.split(';')[0] } });
    assert.equal(again.json().csrf_token, body.csrf_token);
    const stored = await h.database.store.db.selectFrom('users').select('password_hash').where('id', '=', admin.id).executeTakeFirstOrThrow();
    assert.match(stored.password_hash!, /^scrypt\$32768\$8\$1\$/, 'a memory-hard hash, never the password');
  });

  test('a wrong password and an unknown email get the same refusal; five failures lock the email from that address, even for the right password', async () => {
    const member = await person('member');
    const wrong = await signIn(member.email, 'not the password', '10.0.0.2');
    const unknown = await signIn('nobody@example.com', PASSWORD, '10.0.0.2');
    assert.equal(wrong.statusCode, 401);
    assert.equal(unknown.statusCode, 401);
    assert.equal(wrong.json().detail.detail, unknown.json().detail.detail);
    for (let i = 0; i < 4; i++) assert.equal((await signIn(member.email, `guess ${i}`, '10.0.0.2')).statusCode, 401);
    const locked = await signIn(member.email, PASSWORD, '10.0.0.2');
    assert.equal(locked.statusCode, 429);
    assert.equal(locked.json().detail.error_code, 'SIGN_IN_LOCKED');
    assert.ok(Number(locked.headers['retry-after']) > 0);
    const other = await person('member');
    assert.equal((await signIn(other.email, PASSWORD, '10.0.0.4')).statusCode, 200, 'other accounts are not locked by it');
  });

  test("another site's form cannot sign a browser in: sign-in takes only a JSON body", async () => {
    const admin = await person('admin');
    const forged = await h.app.inject({
      method: 'POST',
      url: '/console/api/session',
      headers: { 'content-type': 'text/plain' },
      payload: JSON.stringify({ email: admin.email, password: PASSWORD }),
    });
    assert.equal(forged.statusCode, 400);
    assert.equal(forged.headers['set-cookie'], undefined);
  });

  test('a change made with the session needs its CSRF token; without it nothing changes', async () => {
    const browser = await browserOf((await person('admin')).email);
    const url = `/console/api/organizations/${org.id}/api-keys`;
    const before = (await consoleCall(browser, 'GET', url)).json().items.length;
    const forged = await consoleCall(browser, 'POST', url, { body: { name: 'ci', scopes: ['read'] }, csrf: null });
    assert.equal(forged.statusCode, 403);
    assert.equal(forged.json().detail.error_code, 'CSRF_FAILED');
    const wrong = await consoleCall(browser, 'POST', url, { body: { name: 'ci', scopes: ['read'] }, csrf: 'x'.repeat(43) });
    assert.equal(wrong.statusCode, 403);
    assert.equal((await consoleCall(browser, 'GET', url)).json().items.length, before);
    const made = await consoleCall(browser, 'POST', url, { body: { name: 'ci', scopes: ['read'] } });
    assert.equal(made.statusCode, 201);
    // The public API too: a scan started with the session needs the token.
    const scan = await consoleCall(browser, 'POST', '/api/v1/repositories/none/scans', { body: { scan_type: 'secrets_scan' }, csrf: null });
    assert.equal(scan.json().detail.error_code, 'CSRF_FAILED');
  });

  test('a key made in the console works on the API once, with the scopes asked for, until it is revoked', async () => {
    const admin = await person('admin');
    const browser = await browserOf(admin.email);
    const url = `/console/api/organizations/${org.id}/api-keys`;
    const made = await consoleCall(browser, 'POST', url, { body: { name: 'deploy bot', scopes: ['read', 'scan:write'] } });
    assert.equal(made.statusCode, 201);
    const { key, api_key } = made.json();
    assert.match(key, /^bwk_/);
    assert.deepEqual(api_key.created_by, { id: admin.id, email: admin.email });
    assert.equal(key.startsWith(api_key.prefix), true);
    const me = await h.call('GET', '/api/v1/me', { key });
    assert.equal(me.statusCode, 200);
    assert.deepEqual(me.json().api_key.scopes, ['read', 'scan:write']);
    const listed = (await consoleCall(browser, 'GET', url)).json().items.find((k: { id: string }) => k.id === api_key.id);
    assert.equal(listed.name, 'deploy bot');
    assert.equal(JSON.stringify(listed).includes(key), false, 'the list never shows the key');
    const revoked = await consoleCall(browser, 'DELETE', `${url}/${api_key.id}`);
    assert.equal(revoked.statusCode, 200);
    assert.ok(revoked.json().revoked_at);
    assert.equal((await h.call('GET', '/api/v1/me', { key })).statusCode, 401);
  });

  test('a key with an expiry stops working when it passes; an expiry in the past is refused', async () => {
    const browser = await browserOf((await person('owner')).email);
    const url = `/console/api/organizations/${org.id}/api-keys`;
    const past = await consoleCall(browser, 'POST', url, { body: { name: 'old', scopes: ['read'], expires_at: '2020-01-01T00:00:00Z' } });
    assert.equal(past.statusCode, 422);
    const made = (await consoleCall(browser, 'POST', url, { body: { name: 'short', scopes: ['read'], expires_at: new Date(Date.now() + 3600_000).toISOString() } })).json();
    assert.equal((await h.call('GET', '/api/v1/me', { key: made.key })).statusCode, 200);
    await h.database.store.db.updateTable('api_keys').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', made.api_key.id).execute();
    await h.database.store.db.updateTable('organizations').set({ name: 'acme' }).where('id', '=', org.id).execute();
    assert.equal((await h.call('GET', '/api/v1/me', { key: made.key })).statusCode, 401);
  });

  test('roles decide on the server: a viewer reads but cannot scan, triage or make keys; a member cannot manage keys or members', async () => {
    const viewer = await browserOf((await person('viewer')).email);
    const member = await browserOf((await person('member')).email);
    assert.equal((await consoleCall(viewer, 'GET', '/api/v1/me')).statusCode, 200);
    assert.equal((await consoleCall(viewer, 'GET', '/api/v1/repositories')).statusCode, 200);
    const scan = await consoleCall(viewer, 'POST', '/api/v1/repositories/x/scans', { body: { scan_type: 'secrets_scan' } });
    assert.equal(scan.statusCode, 403);
    assert.equal(scan.json().detail.error_code, 'INSUFFICIENT_ROLE');
    const keys = `/console/api/organizations/${org.id}/api-keys`;
    for (const browser of [viewer, member]) {
      const refused = await consoleCall(browser, 'POST', keys, { body: { name: 'x', scopes: ['read'] } });
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json().detail.error_code, 'INSUFFICIENT_ROLE');
      assert.equal((await consoleCall(browser, 'GET', keys)).statusCode, 403);
      assert.equal((await consoleCall(browser, 'POST', `/console/api/organizations/${org.id}/members`, { body: { email: 'a@b.c', role: 'viewer' } })).statusCode, 403);
    }
    const me = (await consoleCall(member, 'GET', '/api/v1/me')).json();
    assert.deepEqual(me.api_key.scopes, ['read', 'scan:write', 'finding:write', 'fix:write', 'pr:write']);
  });

  test("another organization's data is not found through a session, and a call without the organization header is refused", async () => {
    const other = await h.org('other');
    const browser = await browserOf((await person('owner')).email);
    assert.equal((await consoleCall(browser, 'GET', '/api/v1/me', { orgId: other.id })).statusCode, 404);
    assert.equal((await consoleCall(browser, 'GET', `/console/api/organizations/${other.id}/api-keys`)).statusCode, 404);
    const bare = await h.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: browser.cookie } });
    assert.equal(bare.statusCode, 400);
  });

  test('members: added by email, role changed, removed; the last owner stays', async () => {
    const owner = await person('owner');
    const browser = await browserOf(owner.email);
    const members = `/console/api/organizations/${org.id}/members`;
    const newcomer = await createUser(h.database.store.db, { email: `new${++users}@example.com`, password: PASSWORD });
    const added = await consoleCall(browser, 'POST', members, { body: { email: newcomer.email, role: 'viewer' } });
    assert.equal(added.statusCode, 201);
    assert.equal(added.json().role, 'viewer');
    assert.equal((await consoleCall(browser, 'POST', members, { body: { email: newcomer.email, role: 'viewer' } })).json().detail.error_code, 'ALREADY_MEMBER');
    assert.equal((await consoleCall(browser, 'POST', members, { body: { email: 'ghost@example.com', role: 'viewer' } })).statusCode, 404);
    assert.equal((await consoleCall(browser, 'PATCH', `${members}/${newcomer.id}`, { body: { role: 'member' } })).json().role, 'member');
    assert.equal((await consoleCall(browser, 'DELETE', `${members}/${newcomer.id}`)).statusCode, 204);
    assert.equal((await consoleCall(browser, 'GET', members)).json().items.some((m: { user: { id: string } }) => m.user.id === newcomer.id), false);
    // A fresh organization with one owner: demoting or removing them is refused.
    const solo = await h.org('solo');
    const only = await person('owner', solo);
    const soloBrowser = await browserOf(only.email);
    const demote = await consoleCall(soloBrowser, 'PATCH', `/console/api/organizations/${solo.id}/members/${only.id}`, { body: { role: 'admin' }, orgId: solo.id });
    assert.equal(demote.json().detail.error_code, 'LAST_OWNER');
    const remove = await consoleCall(soloBrowser, 'DELETE', `/console/api/organizations/${solo.id}/members/${only.id}`, { orgId: solo.id });
    assert.equal(remove.json().detail.error_code, 'LAST_OWNER');
  });

  test('signing out ends this session; signing out everywhere ends them all; a disabled user is signed out', async () => {
    const user = await person('member');
    const first = await browserOf(user.email);
    const second = await browserOf(user.email);
    const third = await browserOf(user.email);
    assert.equal((await consoleCall(first, 'DELETE', '/console/api/session', { csrf: null })).statusCode, 403, 'signing out needs the CSRF token too');
    assert.equal((await consoleCall(first, 'DELETE', '/console/api/session')).statusCode, 204);
    assert.equal((await consoleCall(first, 'GET', '/api/v1/me')).statusCode, 401);
    assert.equal((await consoleCall(second, 'GET', '/api/v1/me')).statusCode, 200);
    assert.equal((await consoleCall(second, 'DELETE', '/console/api/sessions')).statusCode, 204);
    assert.equal((await consoleCall(third, 'GET', '/api/v1/me')).statusCode, 401);
    const fourth = await browserOf(user.email);
    const { setUserDisabled } = await import('../../src/core/accounts.ts');
    await setUserDisabled(h.database.store.db, user.email, true);
    assert.equal((await consoleCall(fourth, 'GET', '/console/api/session')).statusCode, 401);
    assert.equal((await signIn(user.email, PASSWORD, '10.0.0.9')).statusCode, 401);
  });

  test('behind a trusted proxy the cookie is Secure over https and failures count per forwarded address; an untrusted header is ignored', async () => {
    const user = await person('member');
    const proxied = await buildApp({ store: h.database.store, trustProxy: true });
    try {
      const viaProxy = (address: string, password = PASSWORD, email = user.email) =>
        proxied.inject({ method: 'POST', url: '/console/api/session', payload: { email, password }, headers: { 'x-forwarded-for': address, 'x-forwarded-proto': 'https' } });
      assert.match(String((await viaProxy('203.0.113.7')).headers['set-cookie']), /; Secure/);
      // Spraying one password over many accounts from one address.
      for (let i = 0; i < 30; i++) assert.equal((await viaProxy('203.0.113.66', 'Summer2026!', `sprayed${i}@example.com`)).statusCode, 401);
      const blocked = await proxied.inject({ method: 'POST', url: '/console/api/session', payload: { email: 'nobody-else@example.com', password: 'x' }, headers: { 'x-forwarded-for': '203.0.113.66' } });
      assert.equal(blocked.statusCode, 429, 'the guessing address is locked');
      assert.equal((await viaProxy('203.0.113.8')).statusCode, 200, 'other addresses are not');
    } finally {
      await proxied.close();
    }
    const direct = await h.app.inject({ method: 'POST', url: '/console/api/session', payload: { email: user.email, password: PASSWORD }, headers: { 'x-forwarded-proto': 'https' }, remoteAddress: '10.1.1.1' });
    assert.doesNotMatch(String(direct.headers['set-cookie']), /Secure/, 'without BULWARK_TRUST_PROXY the header is not believed');
  });

  test('an admin registers a repository, its token sealed; a member cannot; a refused clone URL stores nothing; archiving hides it', async () => {
    const admin = await browserOf((await person('admin')).email);
    const member = await browserOf((await person('member')).email);
    const url = `/console/api/organizations/${org.id}/repositories`;
    const token = 'ghp_consoleRegisteredToken0123456789abcd';
    assert.equal((await consoleCall(member, 'POST', url, { body: { provider: 'github', full_name: 'acme/refused' } })).statusCode, 403);
    const made = await consoleCall(admin, 'POST', url, { body: { provider: 'github', full_name: 'acme/web', default_branch: 'develop', access_token: token } });
    assert.equal(made.statusCode, 201, made.body);
    assert.deepEqual({ ...(made.json() as object), id: undefined }, {
      id: undefined,
      name: 'acme/web',
      provider: 'github',
      full_name: 'acme/web',
      default_branch: 'develop',
      clone_url: 'https://github.com/acme/web.git',
      has_token: true,
    });
    const stored = await h.database.store.db.selectFrom('source_repos').selectAll().where('unit_id', '=', made.json().id).executeTakeFirstOrThrow();
    assert.ok(stored.token_ciphertext && !stored.token_ciphertext.includes(token), 'the token is stored sealed');
    const listed = (await consoleCall(member, 'GET', '/api/v1/repositories')).json();
    assert.ok(JSON.stringify(listed).includes(made.json().id));
    assert.ok(!JSON.stringify(listed).includes(token));

    const before = await h.database.store.db.selectFrom('units').select('id').execute();
    const refused = await consoleCall(admin, 'POST', url, { body: { provider: 'github', full_name: 'acme/internal', clone_url: 'https://169.254.169.254/x.git' } });
    assert.equal(refused.statusCode, 422);
    assert.deepEqual(refused.json().detail[0].loc, ['body', 'clone_url']);
    const badName = await consoleCall(admin, 'POST', url, { body: { provider: 'github', full_name: 'no-owner' } });
    assert.equal(badName.statusCode, 422);
    assert.equal((await h.database.store.db.selectFrom('units').select('id').execute()).length, before.length);

    const archive = await consoleCall(admin, 'PATCH', `/console/api/organizations/${org.id}/units/${made.json().id}`, { body: { archived: true } });
    assert.deepEqual(archive.json(), { id: made.json().id, archived: true });
    assert.ok(!JSON.stringify((await consoleCall(member, 'GET', '/api/v1/repositories')).json()).includes(made.json().id));
    assert.equal((await consoleCall(member, 'PATCH', `/console/api/organizations/${org.id}/units/${made.json().id}`, { body: { archived: false } })).statusCode, 403);
  });

  test('triage through a session records the user as the actor', async () => {
    const user = await person('member');
    const browser = await browserOf(user.email);
    const unit = await h.unit(org, ['github:acme/triage']);
    const finding = await h.finding(unit);
    const changed = await consoleCall(browser, 'PATCH', `/api/v1/repositories/${unit.id}/findings/${finding.id}`, { body: { status: 'false_positive', comment: 'test data' } });
    assert.equal(changed.statusCode, 200, changed.body);
    const events = (await consoleCall(browser, 'GET', `/api/v1/finding-events?finding_id=${finding.id}`)).json();
    const triage = events.items.find((e: { event_type: string }) => e.event_type !== 'created') ?? events.items[0];
    assert.equal(triage.actor_user_id, user.id);
  });
});
