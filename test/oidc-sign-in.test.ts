import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createUser, setMembership, setUserDisabled } from '../src/core/accounts.ts';
import { createOrganization } from '../src/core/organizations.ts';
import { buildApp } from '../src/http/app.ts';
import { OidcSignIn } from '../src/identity/oidc.ts';
import { startOidcProviderStandin, type OidcProviderStandin } from './support/oidc-provider-standin.ts';
import { createTestDatabase, type TestDatabase } from './support/store.ts';

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
    assert.match(decodeURIComponent(unverified.location), /not verified/);

    await createUser(database.store.db, { email: 'gone@example.com', password: null });
    await setUserDisabled(database.store.db, 'gone@example.com', true);
    provider.signInAs({ sub: 'u-3', email: 'gone@example.com', email_verified: true });
    assert.equal((await signInThroughProvider()).session, undefined);

    const noCookie = await app.inject({ method: 'GET', url: '/console/api/oidc/callback?code=x&state=y' });
    assert.match(String(noCookie.headers.location), /^\/login\?error=/);
  });

  test('a return path to another site is not followed', async () => {
    provider.signInAs({ sub: 'u-9', email: 'redirect@example.com', email_verified: true });
    const start = await app.inject({ method: 'GET', url: '/console/api/oidc/start?return_to=//evil.example/x' });
    const pending = cookieOf(start.headers['set-cookie'], 'bulwark_oidc');
    const atProvider = await fetch(String(start.headers.location), { redirect: 'manual' });
    const callback = new URL(atProvider.headers.get('location')!);
    const back = await app.inject({ method: 'GET', url: `${callback.pathname}${callback.search}`, headers: { cookie: pending! } });
    assert.equal(back.headers.location, '/');
  });
});
