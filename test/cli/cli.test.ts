import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { loadTokenBox, TokenBox } from '../../src/crypto/token-box.ts';
import { buildApp } from '../../src/http/app.ts';
import { createTestDatabase, POSTGRES_URL, TEST_DATABASE, type TestDatabase } from '../support/store.ts';
import { waitFor } from '../support/helpers.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ADMIN_TABLES = ['organizations', 'api_keys', 'units', 'source_repos', 'quota_plans', 'quota_usage', 'users', 'memberships', 'user_sessions'] as const;
const DAY_MS = 24 * 60 * 60 * 1000;

type Env = Record<string, string | undefined>;

let database: TestDatabase;
let api: FastifyInstance;

/**
 * Runs the real CLI in a child process against the test database. Database and key settings the
 * developer's shell may carry are cleared first, so only the test's own reach the child.
 */
function bulwark(args: string[], env: Env = {}, input?: string) {
  const result = spawnSync(process.execPath, [CLI, ...args, '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
    input,
    env: { ...process.env, DATABASE_URL: undefined, BULWARK_ENCRYPTION_KEY: undefined, ...database.env, ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A command that must succeed and print exactly one JSON object. */
function ok(args: string[], env?: Env, input?: string) {
  const { status, stdout, stderr } = bulwark(args, env, input);
  assert.equal(status, 0, `bulwark ${args.join(' ')} failed: ${stderr}`);
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 1, `one JSON object expected, got: ${stdout}`);
  return JSON.parse(lines[0]);
}

/** Every row of the tables the CLI writes, to prove a refused command wrote nothing. */
async function adminRows() {
  const rows: Record<string, string[]> = {};
  for (const table of ADMIN_TABLES) {
    rows[table] = (await database.store.db.selectFrom(table).selectAll().execute()).map((r) => JSON.stringify(r)).sort();
  }
  return rows;
}

/** A command that must fail, print nothing on stdout and write nothing; returns its stderr message. */
async function refused(args: string[], env?: Env): Promise<string> {
  const before = await adminRows();
  const { status, stdout, stderr } = bulwark(args, env);
  assert.notEqual(status, 0, `bulwark ${args.join(' ')} should fail`);
  assert.equal(stdout, '');
  assert.deepEqual(await adminRows(), before, `bulwark ${args.join(' ')} failed but wrote`);
  const lastLine = stderr.trim().split('\n').at(-1) ?? '';
  return JSON.parse(lastLine).error;
}

function createOrg(name: string): { id: string; slug: string } {
  return ok(['org', 'create', '--name', name]);
}

function call(key: string, url: string) {
  return api.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
}

async function pgQuery(text: string) {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A database nothing has migrated yet, of the kind under test: a new SQLite directory or PostgreSQL schema. */
async function emptyDatabase(): Promise<{ env: Env; cleanup(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-cli-'));
  const removeDir = () => fs.rmSync(dataDir, { recursive: true, force: true });
  if (TEST_DATABASE === 'sqlite') return { env: { BULWARK_DATA_DIR: dataDir }, cleanup: async () => removeDir() };
  const schema = `t_cli_${crypto.randomBytes(6).toString('hex')}`;
  await pgQuery(`create schema ${schema}`);
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    env: { DATABASE_URL: url.toString(), BULWARK_DATA_DIR: dataDir },
    // The schema stays, like createTestDatabase's: the run's database goes, with all of them, at the end of the run.
    async cleanup() {
      removeDir();
    },
  };
}

describe('the bulwark CLI', () => {
  before(async () => {
    database = await createTestDatabase();
    api = await buildApp({ store: database.store });
  });
  after(async () => {
    await api.close();
    await database.cleanup();
  });

  test('migrate brings an empty database to the latest schema and says what it applied; a rerun applies nothing', async () => {
    const empty = await emptyDatabase();
    try {
      const first = ok(['migrate'], empty.env);
      assert.ok(first.applied.includes('001_initial'), JSON.stringify(first));
      assert.equal(typeof first.database, 'string');
      assert.deepEqual(ok(['migrate'], empty.env).applied, []);
      assert.equal(ok(['org', 'create', '--name', 'Fresh'], empty.env).slug, 'fresh', 'the migrated schema is usable');
    } finally {
      await empty.cleanup();
    }
    assert.deepEqual(ok(['migrate']).applied, [], 'the test database is already current');
  });

  test('org create prints the organization it stored', async () => {
    const org = ok(['org', 'create', '--name', 'Acme Corp']);
    assert.equal(org.name, 'Acme Corp');
    assert.equal(org.slug, 'acme-corp');
    const row = await database.store.db.selectFrom('organizations').selectAll().where('id', '=', org.id).executeTakeFirstOrThrow();
    assert.equal(row.slug, 'acme-corp');
  });

  describe('API keys', () => {
    test('key create prints the plaintext key once; the database keeps only its hash; the key works', async () => {
      const org = createOrg('Keyholders');
      const created = ok(['key', 'create', '--org', org.slug, '--name', 'ci', '--scopes', 'read,scan:write']);
      assert.match(created.key, /^bwk_[A-Za-z0-9_-]{40}$/);
      assert.equal(created.key_prefix, created.key.slice(0, created.key_prefix.length));
      assert.ok(created.key_prefix.length < created.key.length / 2, 'the visible prefix is a small part of the key');
      assert.deepEqual(created.scopes, ['read', 'scan:write']);
      assert.equal(created.name, 'ci');
      assert.ok(!('key_hash' in created));

      const row = await database.store.db.selectFrom('api_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
      assert.match(row.key_hash, /^[0-9a-f]{64}$/);
      for (const [column, value] of Object.entries(row)) {
        assert.ok(!String(value).includes(created.key), `api_keys.${column} holds the plaintext key`);
      }

      const me = await call(created.key, '/api/v1/me');
      assert.equal(me.statusCode, 200, me.body);
      assert.equal(me.json().organization_slug, org.slug);
      assert.deepEqual(me.json().api_key.scopes, ['read', 'scan:write']);
    });

    test('key list shows each key by prefix and scopes, never the key or its hash', async () => {
      const org = createOrg('Listers');
      const ci = ok(['key', 'create', '--org', org.slug, '--name', 'ci', '--scopes', 'read,scan:write']);
      const bot = ok(['key', 'create', '--org', org.slug, '--name', 'bot', '--scopes', 'read']);
      const { status, stdout } = bulwark(['key', 'list', '--org', org.slug]);
      assert.equal(status, 0);
      const { keys } = JSON.parse(stdout);
      assert.deepEqual(
        keys.map((k: { name: string; key_prefix: string; scopes: string[] }) => [k.name, k.key_prefix, k.scopes]),
        [['ci', ci.key_prefix, ['read', 'scan:write']], ['bot', bot.key_prefix, ['read']]],
      );
      const hashes = await database.store.db.selectFrom('api_keys').select('key_hash').where('org_id', '=', org.id).execute();
      for (const secret of [ci.key, bot.key, ...hashes.map((h) => h.key_hash)]) assert.ok(!stdout.includes(secret));
    });

    test('key revoke by prefix makes the API refuse the key with 401', async () => {
      const org = createOrg('Revokers');
      const { key, key_prefix } = ok(['key', 'create', '--org', org.slug, '--name', 'ci', '--scopes', 'read']);
      assert.equal((await call(key, '/api/v1/me')).statusCode, 200);

      const revoked = ok(['key', 'revoke', key_prefix]);
      assert.equal(revoked.key_prefix, key_prefix);
      assert.ok(Date.parse(revoked.revoked_at) <= Date.now());

      // A server that had the key in memory hears of the revocation by a notice on PostgreSQL.
      const res = await waitFor('401 for the revoked key', 5, async () => {
        const answer = await call(key, '/api/v1/me');
        return answer.statusCode === 401 ? answer : undefined;
      });
      assert.equal(res.json().detail.error_code, 'UNAUTHORIZED');
      assert.ok(ok(['key', 'list', '--org', org.slug]).keys[0].revoked_at);
    });
  });

  describe('users', () => {
    const PASSWORD = 'a long enough passphrase';

    function signIn(email: string, password = PASSWORD) {
      return api.inject({ method: 'POST', url: '/console/api/session', payload: { email, password } });
    }

    test('user create reads the password from the environment, stores only its hash, and the user signs in with the role', async () => {
      const org = createOrg('Console Org');
      const created = ok(['user', 'create', '--email', 'Owner@Example.com', '--password-env', 'NEW_PASSWORD', '--org', org.slug, '--role', 'owner'], { NEW_PASSWORD: PASSWORD });
      assert.equal(created.email, 'owner@example.com');
      assert.deepEqual(created.organizations, [{ slug: org.slug, role: 'owner' }]);
      const row = await database.store.db.selectFrom('users').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
      for (const value of Object.values(row)) assert.ok(!String(value).includes(PASSWORD), 'the password is never stored');
      const session = await signIn('owner@example.com');
      assert.equal(session.statusCode, 200);
      assert.deepEqual(session.json().organizations.map((o: { slug: string; role: string }) => [o.slug, o.role]), [[org.slug, 'owner']]);
      const listed = ok(['user', 'list']).users.find((u: { id: string }) => u.id === created.id);
      assert.deepEqual(listed.organizations, [{ slug: org.slug, role: 'owner' }]);
      assert.ok(!JSON.stringify(listed).includes('password'), 'no hash in the list');
    });

    test('user disable ends the sessions and refuses sign-in; --enable lets the user back in', async () => {
      const org = createOrg('Disablers');
      ok(['user', 'create', '--email', 'leaver@example.com', '--password-env', 'P', '--org', org.slug, '--role', 'member'], { P: PASSWORD });
      const cookie = String((await signIn('leaver@example.com')).headers['set-cookie']).split(';')[0];
      assert.ok(ok(['user', 'disable', 'leaver@example.com']).disabled_at);
      assert.equal((await api.inject({ method: 'GET', url: '/console/api/session', headers: { cookie } })).statusCode, 401);
      assert.equal((await signIn('leaver@example.com')).statusCode, 401);
      assert.equal(ok(['user', 'disable', 'leaver@example.com', '--enable']).disabled_at, null);
      assert.equal((await signIn('leaver@example.com')).statusCode, 200);
    });

    test('user create refuses a missing password variable, a short password, an unknown role or a taken email, and writes nothing', async () => {
      const org = createOrg('Refusers');
      assert.match(await refused(['user', 'create', '--email', 'a@example.com', '--password-env', 'UNSET_VARIABLE', '--org', org.slug]), /UNSET_VARIABLE/);
      assert.match(await refused(['user', 'create', '--email', 'a@example.com', '--password-env', 'P', '--org', org.slug], { P: 'short' }), /at least 12/);
      assert.match(await refused(['user', 'create', '--email', 'a@example.com', '--password-env', 'P', '--org', org.slug], { P: 'aaaaaaaaaaaa' }), /fewer than 6 different characters/);
      assert.match(await refused(['user', 'create', '--email', 'a@example.com', '--password-env', 'P', '--role', 'god'], { P: PASSWORD }), /--role must be one of/);
      ok(['user', 'create', '--email', 'taken@example.com', '--password-env', 'P'], { P: PASSWORD });
      assert.match(await refused(['user', 'create', '--email', 'TAKEN@example.com', '--password-env', 'P'], { P: PASSWORD }), /already exists/);
    });
  });

  describe('repositories and applications', () => {
    const TOKEN = 'ghp_cliTestToken0123456789abcdefABCDEF';

    async function sourceRows(unitId: string) {
      return database.store.db.selectFrom('source_repos').selectAll().where('unit_id', '=', unitId).orderBy('position').execute();
    }

    test('repo add --token-env stores the token sealed, under the key kept in the data directory', async () => {
      const org = createOrg('Tokened');
      const { key } = ok(['key', 'create', '--org', org.slug, '--name', 'reader', '--scopes', 'read']);
      const repo = ok(['repo', 'add', '--org', org.slug, '--source', 'github:acme/api@develop', '--token-env', 'MY_TOKEN'], { MY_TOKEN: TOKEN });
      assert.deepEqual(
        repo.repositories.map((r: Record<string, unknown>) => [r.provider, r.full_name, r.default_branch, r.has_token]),
        [['github', 'acme/api', 'develop', true]],
      );

      const [row] = await sourceRows(repo.id);
      assert.ok(row.token_ciphertext, 'a token is stored');
      for (const [column, value] of Object.entries(row)) {
        assert.ok(!String(value).includes(TOKEN), `source_repos.${column} holds the plaintext token`);
      }
      const keyFile = path.join(database.dataDir, 'encryption.key');
      assert.equal(fs.statSync(keyFile).mode & 0o777, 0o600);
      assert.equal(loadTokenBox(null, database.dataDir).open(row.token_ciphertext), TOKEN, 'the sealed token can be recovered for cloning');

      const res = await call(key, `/api/v1/repositories/${repo.id}`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().repositories[0].default_branch, 'develop');
      assert.ok(!res.body.includes(TOKEN) && !res.body.includes(row.token_ciphertext));
    });

    test('repo add seals the token with BULWARK_ENCRYPTION_KEY when it is set', async () => {
      const org = createOrg('Keyed');
      const secret = crypto.randomBytes(32);
      const repo = ok(['repo', 'add', '--org', org.slug, '--source', 'gitlab:acme/infra', '--token-env', 'GL_TOKEN'], {
        GL_TOKEN: TOKEN,
        BULWARK_ENCRYPTION_KEY: secret.toString('hex'),
      });
      const [row] = await sourceRows(repo.id);
      assert.equal(new TokenBox(secret).open(row.token_ciphertext!), TOKEN);
    });

    test('app add groups every --source, in order, into one application', async () => {
      const org = createOrg('Grouped');
      const { key } = ok(['key', 'create', '--org', org.slug, '--name', 'reader', '--scopes', 'read']);
      const sources = ['github:acme/web', 'gitlab:acme/api@release', 'azure:contoso/shop/checkout'];
      const app = ok(['app', 'add', '--org', org.slug, '--name', 'storefront', ...sources.flatMap((s) => ['--source', s])]);
      const expected = [
        ['github', 'acme/web', 'main'],
        ['gitlab', 'acme/api', 'release'],
        ['azure_devops', 'contoso/shop/checkout', 'main'],
      ];
      assert.equal(app.name, 'storefront');
      assert.deepEqual(app.repositories.map((r: Record<string, unknown>) => [r.provider, r.full_name, r.default_branch]), expected);
      assert.ok(app.repositories.every((r: { has_token: boolean }) => r.has_token === false));

      const res = await call(key, `/api/v1/applications/${app.id}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().repositories.map((r: Record<string, unknown>) => [r.provider, r.full_name, r.default_branch]), expected);
    });

    test('repo token set stores, replaces and removes a source\'s token, read from a variable or stdin, never shown', async () => {
      const org = createOrg('Rotating');
      const repo = ok(['repo', 'add', '--org', org.slug, '--source', 'github:acme/rotating']);
      assert.equal(repo.repositories[0].has_token, false);
      const tokenOf = async () => {
        const [row] = await sourceRows(repo.id);
        return { sealed: row.token_ciphertext, plain: row.token_ciphertext && loadTokenBox(null, database.dataDir).open(row.token_ciphertext), at: row.token_changed_at };
      };

      const set = ok(['repo', 'token', 'set', repo.id, '--token-env', 'NEW_TOKEN'], { NEW_TOKEN: TOKEN });
      assert.deepEqual({ ...set.source, id: undefined, token_changed_at: undefined }, {
        id: undefined, provider: 'github', full_name: 'acme/rotating', has_token: true, token_changed_at: undefined,
      });
      const first = await tokenOf();
      assert.equal(first.plain, TOKEN);
      assert.ok(!first.sealed!.includes(TOKEN));
      assert.equal(set.source.token_changed_at, first.at);

      const rotated = `${TOKEN}-rotated`;
      const { stdout } = bulwark(['repo', 'token', 'set', repo.id], {}, `${rotated}\n`);
      assert.ok(!stdout.includes(rotated), 'the token is never printed');
      const second = await tokenOf();
      assert.equal(second.plain, rotated, 'stdin replaces the token, without its line break');
      assert.ok(second.at! >= first.at!);

      assert.match(await refused(['repo', 'token', 'set', repo.id, 'ghp_onTheCommandLine000000000000000000']), /never given as an argument/);
      assert.match(await refused(['repo', 'token', 'set', repo.id], {}), /no token on stdin/);
      assert.match(await refused(['repo', 'token', 'set', repo.id, '--token-env', 'EMPTY'], { EMPTY: '' }), /EMPTY/);
      assert.match(await refused(['repo', 'token', 'set', 'no-such-id', '--token-env', 'T'], { T: TOKEN }), /no repository or application/);

      const removed = ok(['repo', 'token', 'remove', repo.id]);
      assert.equal(removed.source.has_token, false);
      assert.equal((await tokenOf()).sealed, null);
      assert.ok(removed.source.token_changed_at >= second.at!);
    });

    test('app token set names the source with --source when the application has several', async () => {
      const org = createOrg('Several');
      const app = ok(['app', 'add', '--org', org.slug, '--name', 'shop', '--source', 'github:acme/web', '--source', 'gitlab:acme/api']);
      assert.match(await refused(['app', 'token', 'set', app.id, '--token-env', 'T'], { T: TOKEN }), /--source one of .*github:acme\/web, gitlab:acme\/api/);
      assert.match(await refused(['app', 'token', 'set', app.id, '--source', 'github:acme/other', '--token-env', 'T'], { T: TOKEN }), /is not/);
      const set = ok(['app', 'token', 'set', app.id, '--source', 'gitlab:acme/api', '--token-env', 'T'], { T: TOKEN });
      assert.equal(set.source.full_name, 'acme/api');
      assert.deepEqual((await sourceRows(app.id)).map((r) => r.token_ciphertext !== null), [false, true]);
    });

    test('repo archive hides the repository from GET /repositories; --unarchive brings it back', async () => {
      const org = createOrg('Archivists');
      const { key } = ok(['key', 'create', '--org', org.slug, '--name', 'reader', '--scopes', 'read']);
      const kept = ok(['repo', 'add', '--org', org.slug, '--source', 'github:acme/kept']);
      const old = ok(['repo', 'add', '--org', org.slug, '--source', 'github:acme/old']);
      // The server hears of the CLI's commit by a notice on PostgreSQL, a moment after the command ends.
      const listed = async (expected: string[], query = '') =>
        waitFor(`GET /repositories${query} to list ${expected.length}`, 5, async () => {
          const ids = (await call(key, `/api/v1/repositories${query}`)).json().items.map((r: { id: string }) => r.id).sort();
          return JSON.stringify(ids) === JSON.stringify([...expected].sort()) ? ids : undefined;
        });

      await listed([kept.id, old.id]);
      assert.equal(ok(['repo', 'archive', old.id]).archived, true);
      await listed([kept.id]);
      await listed([kept.id, old.id], '?include_archived=true');

      assert.equal(ok(['repo', 'archive', old.id, '--unarchive']).archived, false);
      await listed([kept.id, old.id]);
    });
  });

  test('quota set changes plan, top-up, period and unit limit; quota show and the API agree', async () => {
    const org = createOrg('Metered');
    const { key } = ok(['key', 'create', '--org', org.slug, '--name', 'reader', '--scopes', 'read']);
    ok(['quota', 'set', '--org', org.slug, '--sast-scans', '3', '--topup-sast-scans', '2', '--period', 'weekly', '--max-repositories', '5']);

    const shown = ok(['quota', 'show', '--org', org.slug]);
    assert.deepEqual(shown.counters.sast_scans, { plan: 3, topup: 2, used: 0, remaining: 5 });
    assert.equal(shown.repositories.max, 5);
    const start = new Date(shown.period.start);
    assert.equal(Date.parse(shown.period.end) - start.getTime(), 7 * DAY_MS, 'a weekly period');
    assert.equal(start.getUTCDay(), 1, 'weeks start on Monday');

    const balance = (await call(key, '/api/v1/quotas/balance')).json();
    assert.deepEqual(balance.sast_scans, { plan: 3, topup: 2, used: 0, remaining: 5 });
    assert.equal(balance.repositories.max, 5);
    assert.equal(balance.period_end, shown.period.end);
  });

  test('bad input exits non-zero with a clear message and writes nothing', async () => {
    const org = createOrg('Careful');
    const cases: [string[], RegExp, Env?][] = [
      [['key', 'create', '--org', org.slug, '--name', 'ci', '--scopes', 'read,admin'], /unknown scope.*admin/],
      [['repo', 'add', '--org', org.slug, '--source', 'acme/api'], /invalid source "acme\/api"/],
      [['repo', 'add', '--org', org.slug, '--source', 'bitbucket:acme/api'], /invalid source/],
      [['repo', 'add', '--org', org.slug, '--source', 'github:acme/api@main~1'], /not a valid branch name/],
      [['app', 'add', '--org', org.slug, '--name', 'x', '--source', 'github:acme/a', '--source', 'github:acme'], /invalid source "github:acme"/],
      [['key', 'create', '--name', 'ci'], /--org is required/],
      [['repo', 'add', '--source', 'github:acme/api'], /--org is required/],
      [['quota', 'set', '--sast-scans', '3'], /--org is required/],
      [['key', 'create', '--org', 'no-such-org', '--name', 'ci'], /no organization .*no-such-org/],
      [['repo', 'add', '--org', org.slug, '--source', 'github:acme/api', '--token-env', 'BULWARK_TEST_UNSET'], /BULWARK_TEST_UNSET/],
      [['quota', 'set', '--org', org.slug, '--period', 'yearly'], /--period must be one of/],
      [['quota', 'set', '--org', org.slug, '--sast-scans=-1'], /--sast-scans must be a non-negative integer/],
      [['org', 'create', '--name', 'Careful'], /already exists/],
      [['key', 'revoke', 'bwk_NoSuchKy'], /no key .*bwk_NoSuchKy/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [['key', 'list', '--org', org.slug, '--bogus'], /Unknown option '--bogus'/],
      [['repo', 'add', '--org', org.slug, '--source', 'github:acme/api', '--clone-url', 'https://169.254.169.254/latest'], /metadata address \(169\.254\.169\.254\)/],
      [['repo', 'add', '--org', org.slug, '--source', 'github:acme/api', '--clone-url', 'https://localhost/acme/api.git'], /BULWARK_ALLOW_PRIVATE_HOSTS/],
      [['repo', 'add', '--org', org.slug, '--source', 'github:acme/api', '--clone-url', 'http://github.com/acme/api.git'], /plain http/],
      [['repo', 'add', '--org', org.slug, '--source', 'github:acme/api', '--clone-url', '/etc'], /BULWARK_ALLOW_LOCAL_REPOS/],
      [['repo', 'add', '--org', org.slug, '--source', 'github:acme/api', '--clone-url', '/etc'], /must be inside/, { BULWARK_ALLOW_LOCAL_REPOS: 'true' }],
    ];
    for (const [args, message, env] of cases) {
      assert.match(await refused(args, env), message, `bulwark ${args.join(' ')}`);
    }
  });
});
