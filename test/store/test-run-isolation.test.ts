import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
  connect,
  createRunDatabase,
  describeServer,
  dropRunDatabase,
  newRunId,
  PostgresUnavailableError,
  runDatabaseName,
  withDatabase,
} from '../support/postgres-run.ts';
import { POSTGRES_URL, TEST_DATABASE } from '../support/store.ts';

// How a run of the suite uses a PostgreSQL server it may share with other runs: a database of its own,
// created and dropped by scripts/test.ts, and one clear line when the server cannot be used.

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A loopback port nothing listens on: one the kernel just handed out and that was closed again. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function runSuite(env: Record<string, string>) {
  // Which databases and seed the outer run was given are its own: each case here says what it runs on.
  const { BULWARK_TEST_DBS: _dbs, BULWARK_TEST_SEED: _seed, ...inherited } = process.env;
  const result = spawnSync(process.execPath, ['scripts/test.ts', 'test/organizations/units.test.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...inherited, ...env },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function query<T extends Record<string, unknown>>(url: string, text: string): Promise<T[]> {
  const client = await connect(url);
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

describe('test run databases', () => {
  test('are named after the run and nothing else', () => {
    const a = newRunId();
    const b = newRunId();
    assert.notEqual(a, b);
    assert.match(runDatabaseName(a), /^bulwark_test_[0-9a-f]{10}$/);
    for (const bad of ['', 'x; drop database test', 'ABCDEF12', '..']) assert.throws(() => runDatabaseName(bad), /not a test run id/);
    assert.equal(
      withDatabase('postgres://u:secret@db.internal:6543/test?sslmode=require', 'bulwark_test_0a1b2c3d4e'),
      'postgres://u:secret@db.internal:6543/bulwark_test_0a1b2c3d4e?sslmode=require',
    );
    assert.equal(describeServer('postgres://u:secret@db.internal:6543/test'), 'db.internal:6543/test');
  });

  test('an unreachable server is one line that names the SQLite-only run, without the password', async () => {
    const url = `postgres://tester:hunter2@127.0.0.1:${await closedPort()}/test`;
    const error = await connect(url).then(
      () => assert.fail('connected to a closed port'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof PostgresUnavailableError);
    assert.doesNotMatch(error.message, /\n/);
    assert.match(error.message, /^PostgreSQL is not reachable at 127\.0\.0\.1:\d+\/test \(.*ECONNREFUSED.*\)/);
    assert.match(error.message, /BULWARK_TEST_DBS=sqlite npm test/);
    assert.doesNotMatch(error.message, /hunter2|tester/);
  });

  test('npm test with an unreachable PostgreSQL fails at once with that line and runs nothing', async () => {
    const { status, stdout, stderr } = runSuite({ BULWARK_TEST_POSTGRES_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/test` });
    assert.equal(status, 1);
    assert.equal(stdout, '', 'no test ran');
    const lines = stderr.trim().split('\n');
    assert.equal(lines.length, 1, stderr);
    assert.match(lines[0]!, /^PostgreSQL is not reachable at 127\.0\.0\.1:\d+\/test .*BULWARK_TEST_DBS=sqlite npm test$/);
  });

  test('an unknown database kind is refused before anything runs', () => {
    const { status, stdout, stderr } = runSuite({ BULWARK_TEST_DBS: 'sqlite,postgress' });
    assert.equal(status, 2);
    assert.equal(stdout, '');
    assert.match(stderr, /BULWARK_TEST_DBS names postgress; it takes sqlite, postgres or both/);
  });

  const postgresOnly = TEST_DATABASE === 'postgres' ? false : 'needs a PostgreSQL server (BULWARK_TEST_DB=postgres)';

  test('a missing database is one line too', { skip: postgresOnly }, () => {
    const missing = withDatabase(POSTGRES_URL.split('?')[0]!, `bulwark_absent_${newRunId()}`);
    const { status, stdout, stderr } = runSuite({ BULWARK_TEST_DBS: 'postgres', BULWARK_TEST_POSTGRES_URL: missing });
    assert.equal(status, 1);
    assert.equal(stdout, '');
    assert.equal(stderr.trim().split('\n').length, 1, stderr);
    assert.match(stderr, /has no database "bulwark_absent_[0-9a-f]+": create it .*BULWARK_TEST_DBS=sqlite npm test/);
  });

  test('two runs on one server each drop only their own database', { skip: postgresOnly }, async () => {
    const admin = POSTGRES_URL.split('?')[0]!;
    const [first, second] = [newRunId(), newRunId()];
    const firstUrl = await createRunDatabase(admin, first);
    const secondUrl = await createRunDatabase(admin, second);
    try {
      for (const url of [firstUrl, secondUrl]) {
        await query(url, 'create schema t_0123456789ab');
        await query(url, 'create table t_0123456789ab.kept (id int)');
      }
      // The first run ends while the second still holds a connection, as a run still going does.
      const busy = await connect(secondUrl);
      try {
        await dropRunDatabase(admin, first);
        assert.deepEqual(await query(secondUrl, `select count(*)::int as n from t_0123456789ab.kept`), [{ n: 0 }]);
      } finally {
        await busy.end();
      }
      const names = (await query<{ datname: string }>(admin, 'select datname from pg_database')).map((r) => r.datname);
      assert.ok(!names.includes(runDatabaseName(first)), 'the first run dropped its database');
      assert.ok(names.includes(runDatabaseName(second)), "the second run's database is untouched");
    } finally {
      await dropRunDatabase(admin, first);
      await dropRunDatabase(admin, second);
    }
    const left = (await query<{ datname: string }>(admin, 'select datname from pg_database')).map((r) => r.datname);
    assert.ok(!left.includes(runDatabaseName(second)));
  });
});
