import crypto from 'node:crypto';
import pg from 'pg';

// A run of the suite on PostgreSQL (scripts/test.ts) works in a database of its own, created at the start
// and dropped at the end, so runs sharing a server never see or drop each other's schemas.

/** The server used when BULWARK_TEST_POSTGRES_URL is unset; its database only serves to create run databases. */
export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

export const RUN_DATABASE_PREFIX = 'bulwark_test_';

export function newRunId(): string {
  return crypto.randomBytes(5).toString('hex');
}

/** `bulwark_test_<run id>`: lower-case hex only, so it never needs quoting and cannot name anything else. */
export function runDatabaseName(runId: string): string {
  if (!/^[0-9a-f]{6,16}$/.test(runId)) throw new Error(`not a test run id: ${JSON.stringify(runId)}`);
  return `${RUN_DATABASE_PREFIX}${runId}`;
}

/** The same server and credentials, pointed at another database. */
export function withDatabase(url: string, database: string): string {
  const next = new URL(url);
  next.pathname = `/${database}`;
  return next.toString();
}

/** `host:port/database` of a connection URL, never its user or password. */
export function describeServer(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}${parsed.pathname || '/'}`;
  } catch {
    return '(an unreadable BULWARK_TEST_POSTGRES_URL)';
  }
}

export const SQLITE_ONLY_HINT = 'or run on SQLite only: BULWARK_TEST_DBS=sqlite npm test';

/** One line saying why PostgreSQL could not be used and how to go on without it. */
export function postgresFailureLine(url: string, error: unknown): string {
  const where = describeServer(url);
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  const reason = String(message ?? error).split('\n')[0];
  if (code === '3D000') {
    const database = new URL(url).pathname.slice(1);
    return `PostgreSQL at ${where} has no database "${database}": create it (createdb ${database}), point BULWARK_TEST_POSTGRES_URL at an existing one, ${SQLITE_ONLY_HINT}`;
  }
  if (code === '28P01' || code === '28000') {
    return `PostgreSQL at ${where} refused the login (${reason}): fix the credentials in BULWARK_TEST_POSTGRES_URL, ${SQLITE_ONLY_HINT}`;
  }
  return `PostgreSQL is not reachable at ${where} (${reason}): start it, point BULWARK_TEST_POSTGRES_URL at a running server, ${SQLITE_ONLY_HINT}`;
}

/** An error whose message is that one line, for code that lets errors propagate. */
export class PostgresUnavailableError extends Error {
  override readonly name = 'PostgresUnavailableError';
}

/** Connects, or throws a `PostgresUnavailableError` saying what to do instead. */
export async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {}); // a connection that drops later surfaces through the failing query
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw new PostgresUnavailableError(postgresFailureLine(url, error));
  }
  return client;
}

/** Creates this run's database on the server of `adminUrl`; returns its connection URL. */
export async function createRunDatabase(adminUrl: string, runId: string): Promise<string> {
  const name = runDatabaseName(runId);
  const client = await connect(adminUrl);
  try {
    await client.query(`create database ${name}`);
  } catch (error) {
    const reason = String((error as Error).message ?? error).split('\n')[0];
    throw new PostgresUnavailableError(
      `PostgreSQL at ${describeServer(adminUrl)} did not create the run's database ${name} (${reason}): the user of BULWARK_TEST_POSTGRES_URL needs the CREATEDB privilege, ${SQLITE_ONLY_HINT}`,
    );
  } finally {
    await client.end();
  }
  return withDatabase(adminUrl, name);
}

/** Drops this run's database (and only it), closing connections a killed test process left open. */
export async function dropRunDatabase(adminUrl: string, runId: string): Promise<void> {
  const client = await connect(adminUrl);
  try {
    await client.query(`drop database if exists ${runDatabaseName(runId)} with (force)`);
  } finally {
    await client.end();
  }
}
