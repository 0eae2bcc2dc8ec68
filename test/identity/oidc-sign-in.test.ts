import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createUser, setMembership, setUserDisabled } from '../../src/core/accounts.ts';
import { createOrganization } from '../../src/core/organizations.ts';
import { buildApp } from '../../src/http/app.ts';
import { OidcSignIn } from '../../src/identity/oidc.ts';
import { startOidcProviderStandin, type OidcProviderStandin } from '../support/oidc-provider-standin.ts';
import { createTestDatabase, type TestDatabase } from '../support/store.ts';

let database: TestDatabase;
let provider: OidcProviderStandin;
let app: FastifyInstance;

const cookieOf = (setCookie: unknown, name: string) =>
  ([] as string[]).concat((setCookie as string | string[] | undefined) ?? []).find((c) => c.startsWith(`${name}=`) && !c.startsWith(`${name}=;`))?.split(';')[0];

/** A browser going through the whole sign-in: the console, the provider, and back. */
async function signInThroughProvider(tamper: (callback: URL) => void = () => {}) {
  const start = await app.inject({ method: 'GET', url: '/console/api/oidc/start?return_to=/findings' });
  assert.equal(start.statusCode, 302);
  const pending = cookieOf(start.headers['set-cookie'], 'bulwark_oidc');
  assert.ok(pending);
  const atProvider = await fetch(String(start.headers.location), { redirect: 'manual' });
  const callback = new URL(atProvider.headers.get('location')!);
  tamper(callback);
  const back = await app.inject({ method: 'GET', url: `${callback.pathname}${callback.search}`, headers: { cookie: pending } });
  assert.equal(back.statusCode, 302);
  return { location: String(back.headers.location), session: cookieOf(back.headers['set-cookie'], 'bulwark_session') };
}

describe('OpenID Connect sign-in', () => {
  before(async () => {
    database = await createTestDatabase();
    provider = await startOidcProviderStandin();
    app = await buildApp({
      store: database.store,
      oidc: new OidcSignIn({ issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, name: 'Acme SSO' }),
    });
  });
  after(async () => {
    await app.close();
    await provider.close();
    await database.cleanup();
  });

  test('the sign-in page learns of the provider; without one, only passwords', async () => {
    assert.deepEqual((await app.inject({ method: 'GET', url: '/console/api/sign-in-methods' })).json(), {
      password: true,
      oidc: { name: 'Acme SSO', start_url: '/console/api/oidc/start' },
    });
    const plain = await buildApp({ store: database.store });
    assert.deepEqual((await plain.inject({ method: 'GET', url: '/console/api/sign-in-methods' })).json(), { password: true, oidc: null });
    assert.equal((await plain.inject({ method: 'GET', url: '/console/api/oidc/start' })).statusCode, 404);
    await plain.close();
  });

  test('a person the provider vouches for signs in to their account with its organizations, by PKCE, state and nonce', async () => {
    const org = await createOrganization(database.store.db, { name: 'SSO Org', slug: 'sso-org' });
    const user = await createUser(database.store.db, { email: 'member@example.com', password: null });
    await setMembership(database.store.db, org.id, user.id, 'member');
    provider.signInAs({ sub: 'u-42', email: 'Member@Example.com', email_verified: true, name: 'Mem Ber' });
    const { location, session } = await signInThroughProvider();
    assert.equal(location, '/findings');
    assert.ok(session);
    const asked = provider.authorizations.at(-1)!;
    assert.equal(asked.get('code_challenge_method'), 'S256');
    assert.ok(asked.get('nonce') && asked.get('state'));
    assert.match(asked.get('scope')!, /openid/);
    const me = (await app.inject({ method: 'GET', url: '/console/api/session', headers: { cookie: session } })).json();
    assert.equal(me.user.id, user.id);
    assert.deepEqual(me.organizations.map((o: { slug: string; role: string }) => [o.slug, o.role]), [['sso-org', 'member']]);
  });

  test('someone new gets an account with no organization until an admin adds them', async () => {
    provider.signInAs({ sub: 'u-new', email: 'newcomer@example.com', email_verified: true });
    const { session } = await signInThroughProvider();
    const me = (await app.inject({ method: 'GET', url: '/console/api/session', headers: { cookie: session } })).json();
    assert.equal(me.user.email, 'newcomer@example.com');
    assert.deepEqual(me.organizations, []);
  });

  test('a forged state, a wrong nonce, an unverified email or a disabled account get no session', async () => {
    provider.signInAs({ sub: 'u-1', email: 'someone@example.com', email_verified: true });
    const forged = await signInThroughProvider((callback) => callback.searchParams.set('state', 'forged'));
    assert.equal(forged.session, undefined);
    assert.match(forged.location, /^\/login\?error=/);

    provider.signInAs({ sub: 'u-1', email: 'someone@example.com', email_verified: true, wrongNonce: true });
    assert.equal((await signInThroughProvider()).session, undefined);

    provider.signInAs({ sub: 'u-2', email: 'unverified@example.com', email_verified: false });
    const unverified = await signInThroughProvider();
    assert.equal(unverified.session, undefined);
    assert.equal(unverified.location, '/login?error=unverified_email', 'the page shows its own message for the code');

    // Without the claim at all, the address is not taken as verified: the password account of that email stays out of reach.
    const owner = await createUser(database.store.db, { email: 'owner@example.com', password: 'a long owner passphrase' });
    const ownedOrg = await createOrganization(database.store.db, { name: 'Owned Org', slug: 'owned-org' });
    await setMembership(database.store.db, ownedOrg.id, owner.id, 'owner');
    provider.signInAs({ sub: 'u-4', email: 'owner@example.com' });
    const unclaimed = await signInThroughProvider();
    assert.equal(unclaimed.session, undefined);
    assert.equal(unclaimed.location, '/login?error=unverified_email');

    await createUser(database.store.db, { email: 'gone@example.com', password: null });
    await setUserDisabled(database.store.db, 'gone@example.com', true);
    provider.signInAs({ sub: 'u-3', email: 'gone@example.com', email_verified: true });
    const disabled = await signInThroughProvider();
    assert.equal(disabled.session, undefined);
    assert.equal(disabled.location, '/login?error=account_disabled');

    const noCookie = await app.inject({ method: 'GET', url: '/console/api/oidc/callback?code=x&state=y' });
    assert.equal(noCookie.headers.location, '/login?error=sign_in_expired');
  });

  test('a return path to another site, or holding tabs, line breaks or backslashes, is not followed and never fails the sign-in', async () => {
    provider.signInAs({ sub: 'u-9', email: 'redirect@example.com', email_verified: true });
    const returnTo = async (raw: string) => {
      const start = await app.inject({ method: 'GET', url: `/console/api/oidc/start?return_to=${raw}` });
      assert.equal(start.statusCode, 302, raw);
      const pending = cookieOf(start.headers['set-cookie'], 'bulwark_oidc');
      const atProvider = await fetch(String(start.headers.location), { redirect: 'manual' });
      const callback = new URL(atProvider.headers.get('location')!);
      const back = await app.inject({ method: 'GET', url: `${callback.pathname}${callback.search}`, headers: { cookie: pending! } });
      assert.equal(back.statusCode, 302, raw);
      assert.ok(cookieOf(back.headers['set-cookie'], 'bulwark_session'), raw);
      return back.headers.location;
    };
    // As written in the query string: %09 a tab, %0A a line break, %5C a backslash, %252F a slash once decoded.
    for (const raw of ['//evil.example/x', '/%09/evil.example', '%2F%2Fevil.example', '/%5Cevil.example', '/%0A/evil.example', '/x%0D%0ASet-Cookie:%20a=b',
      '/%2509/evil.example', 'javascript:alert(1)', 'https://evil.example/', '/%20/evil.example']) {
      assert.equal(await returnTo(raw), '/', raw);
    }
    assert.equal(await returnTo('/orgs/o1/findings%3Fseverity%3Dhigh'), '/orgs/o1/findings?severity=high');
  });
});
