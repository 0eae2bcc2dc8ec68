// The console's routes that set, replace and remove a source repository's access token: admins only,
// CSRF-guarded like every change, the token sealed and never in an answer or a log line.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { createUser, setMembership } from '../../src/core/accounts.ts';
import type { Role } from '../../src/core/roles.ts';
import { expectApiError, expectStatus, expectValidationError } from '../support/helpers.ts';
import { createHarness, testTokenBox, type Harness, type TestOrg } from '../support/api.ts';

const PASSWORD = 'correct horse battery staple';
const TOKEN = 'ghp_consoleRotatedToken0123456789abcdefAB';

let h: Harness;
let org: TestOrg;
let users = 0;
let logged = '';

interface Browser {
  cookie: string;
  csrf: string;
}

async function browser(role: Role, inOrg: TestOrg = org): Promise<Browser> {
  const email = `token-admin${++users}@example.com`;
  const user = await createUser(h.database.store.db, { email, password: PASSWORD });
  await setMembership(h.database.store.db, inOrg.id, user.id, role);
  const response = await h.app.inject({ method: 'POST', url: '/console/api/session', payload: { email, password: PASSWORD }, remoteAddress: `10.9.0.${users}` });
  assert.equal(response.statusCode, 200, response.body);
  return { cookie: String(response.headers['set-cookie']).split(';')[0], csrf: response.json().csrf_token };
}

function consoleCall(who: Browser, method: string, url: string, options: { body?: unknown; csrf?: string | null } = {}) {
  const headers: Record<string, string> = { cookie: who.cookie, 'x-bulwark-organization': org.id };
  const csrf = options.csrf === undefined ? who.csrf : options.csrf;
  if (csrf) headers['x-csrf-token'] = csrf;
  return h.app.inject({ method: method as 'GET', url, headers, ...(options.body === undefined ? {} : { payload: options.body as object }) });
}

describe('console: a source repository\'s access token', () => {
  let admin: Browser;
  before(async () => {
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        logged += String(chunk);
        done();
      },
    });
    h = await createHarness({ logStream });
    org = await h.org('tokens');
    admin = await browser('admin');
  });
  after(() => h.close());

  async function repository() {
    const unit = await h.unit(org, ['github:acme/api@main']);
    const base = `/console/api/organizations/${org.id}/units/${unit.id}/sources`;
    return { unit, base, tokenUrl: `${base}/${unit.sources[0].id}/token` };
  }
  const stored = async (sourceId: string) =>
    h.database.store.db.selectFrom('source_repos').selectAll().where('id', '=', sourceId).executeTakeFirstOrThrow();

  test('an admin sets, replaces and removes it; answers say only whether one is set and when it changed', async () => {
    const { unit, base, tokenUrl } = await repository();
    const [listed] = expectStatus(await consoleCall(admin, 'GET', base), 200).items;
    assert.deepEqual(listed, {
      id: unit.sources[0].id,
      provider: 'github',
      full_name: 'acme/api',
      default_branch: 'main',
      clone_url: 'https://github.com/acme/api.git',
      has_token: false,
      token_changed_at: null,
    });

    const set = await consoleCall(admin, 'PUT', tokenUrl, { body: { token: TOKEN } });
    const setBody = expectStatus(set, 200);
    assert.equal(setBody.has_token, true);
    assert.ok(Date.parse(setBody.token_changed_at) <= Date.now());
    assert.ok(!set.body.includes(TOKEN));
    const row = await stored(unit.sources[0].id);
    assert.ok(row.token_ciphertext && !row.token_ciphertext.includes(TOKEN), 'sealed at rest');
    assert.equal(testTokenBox.open(row.token_ciphertext), TOKEN);
    assert.ok(!set.body.includes(row.token_ciphertext));

    const rotated = `${TOKEN}Z`;
    const replaced = expectStatus(await consoleCall(admin, 'PUT', tokenUrl, { body: { token: rotated } }), 200);
    assert.ok(replaced.token_changed_at >= setBody.token_changed_at);
    assert.equal(testTokenBox.open((await stored(unit.sources[0].id)).token_ciphertext!), rotated);

    const listedAgain = await consoleCall(admin, 'GET', base);
    assert.equal(listedAgain.json().items[0].has_token, true);
    assert.ok(!listedAgain.body.includes(TOKEN));

    const removed = expectStatus(await consoleCall(admin, 'DELETE', tokenUrl), 200);
    assert.equal(removed.has_token, false);
    assert.ok(removed.token_changed_at >= replaced.token_changed_at, 'removing is a change too');
    assert.equal((await stored(unit.sources[0].id)).token_ciphertext, null);

    // Each change is logged with who made it, and no log line holds the token.
    const changes = logged.split('\n').filter((line) => line.includes(unit.sources[0].id) && /source_token_(set|removed)/.test(line)).map((line) => JSON.parse(line));
    assert.deepEqual(changes.map((c) => c.action), ['source_token_set', 'source_token_set', 'source_token_removed']);
    assert.ok(changes.every((c) => c.user_email && c.unit_id === unit.id));
    assert.ok(!logged.includes(TOKEN));
  });

  test('members and viewers are refused with INSUFFICIENT_ROLE, and nothing changes', async () => {
    const { unit, base, tokenUrl } = await repository();
    for (const role of ['member', 'viewer'] as const) {
      const who = await browser(role);
      expectApiError(await consoleCall(who, 'PUT', tokenUrl, { body: { token: TOKEN } }), 403, 'INSUFFICIENT_ROLE');
      expectApiError(await consoleCall(who, 'DELETE', tokenUrl), 403, 'INSUFFICIENT_ROLE');
      expectApiError(await consoleCall(who, 'GET', base), 403, 'INSUFFICIENT_ROLE');
    }
    assert.equal((await stored(unit.sources[0].id)).token_ciphertext, null);
  });

  test('a change without the session\'s CSRF token is refused', async () => {
    const { unit, tokenUrl } = await repository();
    expectApiError(await consoleCall(admin, 'PUT', tokenUrl, { body: { token: TOKEN }, csrf: null }), 403, 'CSRF_FAILED');
    expectApiError(await consoleCall(admin, 'PUT', tokenUrl, { body: { token: TOKEN }, csrf: 'x'.repeat(43) }), 403, 'CSRF_FAILED');
    expectApiError(await consoleCall(admin, 'DELETE', tokenUrl, { csrf: null }), 403, 'CSRF_FAILED');
    assert.equal((await stored(unit.sources[0].id)).token_ciphertext, null);
  });

  test('a token no host would issue is a 422 that does not echo it', async () => {
    const { tokenUrl } = await repository();
    for (const token of ['', 'ghp_with space0123456789', `ghp_${'x'.repeat(4000)}`, 'ghp_line\nbreak0123456789']) {
      const res = await consoleCall(admin, 'PUT', tokenUrl, { body: { token } });
      if (token) {
        expectValidationError(res, ['body', 'token'], 'value_error');
        assert.ok(!res.body.includes(token.slice(0, 12)), res.body);
      } else {
        assert.equal(res.statusCode, 422);
      }
    }
  });

  test('another organization\'s repository, or a source of another repository, is not found', async () => {
    const { tokenUrl } = await repository();
    const other = await h.org('elsewhere');
    const theirs = await h.unit(other, ['github:them/api@main']);
    const mine = await repository();
    expectApiError(await consoleCall(admin, 'PUT', `/console/api/organizations/${org.id}/units/${theirs.id}/sources/${theirs.sources[0].id}/token`, { body: { token: TOKEN } }), 404, 'NOT_FOUND');
    expectApiError(await consoleCall(admin, 'PUT', `${mine.base}/${theirs.sources[0].id}/token`, { body: { token: TOKEN } }), 404, 'NOT_FOUND');
    expectApiError(await consoleCall(admin, 'PUT', tokenUrl.replace(org.id, other.id), { body: { token: TOKEN } }), 404, 'NOT_FOUND');
    assert.equal((await stored(theirs.sources[0].id)).token_ciphertext, null);
  });

  test('the routes are in the OpenAPI document under the console tag', async () => {
    const doc = expectStatus(await h.call('GET', '/openapi.json'), 200);
    const path = doc.paths['/console/api/organizations/{org_id}/units/{unit_id}/sources/{source_id}/token'];
    assert.deepEqual(Object.keys(path).sort(), ['delete', 'put']);
    assert.deepEqual(path.put.tags, ['console']);
    assert.deepEqual(doc.paths['/console/api/organizations/{org_id}/units/{unit_id}/sources'].get.tags, ['console']);
  });
});
