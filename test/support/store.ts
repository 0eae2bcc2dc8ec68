import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openStore, type Store } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';

export const TEST_SCHEMA_PREFIX = 't_';

/** Which real database this run of the suite uses: `sqlite` (default) or `postgres`. */
export const TEST_DATABASE = process.env.BULWARK_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
export const POSTGRES_URL = process.env.BULWARK_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  /** Settings that point any process (this one or a child) at the same isolated database. */
  env: { DATABASE_URL?: string; BULWARK_DATA_DIR: string };
  dataDir: string;
  store: Store;
  cleanup(): Promise<void>;
}

/**
 * A fresh, migrated database per test file: a temporary SQLite file, or a PostgreSQL schema of its own
 * (selected through the connection's search_path) so files can run in parallel against one server.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-test-'));
  if (TEST_DATABASE === 'sqlite') {
    const store = openStore({ databaseUrl: null, dataDir });
    await migrateToLatest(store);
    return {
      env: { BULWARK_DATA_DIR: dataDir },
      dataDir,
      store,
      async cleanup() {
        await store.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const schema = `${TEST_SCHEMA_PREFIX}${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const databaseUrl = url.toString();
  const store = openStore({ databaseUrl, dataDir });
  await migrateToLatest(store);
  return {
    env: { DATABASE_URL: databaseUrl, BULWARK_DATA_DIR: dataDir },
    dataDir,
    store,
    // The schema stays until the run ends (scripts/test.ts drops them all): dropping it now would race
    // other files' migrations, whose catalog introspection reads every schema.
    async cleanup() {
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Drops every schema the suite created on the PostgreSQL server (theirs and pg-boss's). */
export async function dropTestSchemas(): Promise<number> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `select nspname as name from pg_namespace where nspname like '${TEST_SCHEMA_PREFIX}%' and nspname ~ '^t_[0-9a-f]{12}(_jobs)?$'`,
    );
    for (const { name } of rows) await client.query(`drop schema if exists "${name}" cascade`);
    return rows.length;
  } finally {
    await client.end();
  }
}
