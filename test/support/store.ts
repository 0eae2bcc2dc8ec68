import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore, type Store } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { connect, DEFAULT_POSTGRES_URL } from './postgres-run.ts';

export const TEST_SCHEMA_PREFIX = 't_';

/** Workers started on a test database never reach the public OSV bucket; a test that wants the refresh points it at a loopback server. */
const NO_OSV_SYNC = '0';
/** Nor do they ask code hosts about fix pull requests; a test of the poll runs it itself. */
const NO_PR_POLL = '0';

// scripts/test.ts runs the files it reads as database-free once, with BULWARK_TEST_DB=none; one that loads
// this module anyway would quietly lose its PostgreSQL run, so it fails instead.
if (process.env.BULWARK_TEST_DB === 'none') {
  throw new Error(
    `${process.env.BULWARK_TEST_FILE ?? process.argv[1] ?? 'this test file'} was classified database-free but opens a database; ` +
      'scripts/test-classify.ts follows static and import(\'...\') imports of test/support/store.ts: import it (or a helper that does) by a literal path',
  );
}

/** Which real database this run of the suite uses: `sqlite` (default) or `postgres`. */
export const TEST_DATABASE = process.env.BULWARK_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
/** The database test files work in; scripts/test.ts points it at a database of the run's own. */
export const POSTGRES_URL = process.env.BULWARK_TEST_POSTGRES_URL || DEFAULT_POSTGRES_URL;

export interface TestDatabase {
  /** Settings that point any process (this one or a child) at the same isolated database. */
  env: { DATABASE_URL?: string; BULWARK_DATA_DIR: string; BULWARK_OSV_SYNC_HOURS: string; BULWARK_PR_POLL_MINUTES: string };
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
      env: { BULWARK_DATA_DIR: dataDir, BULWARK_OSV_SYNC_HOURS: NO_OSV_SYNC, BULWARK_PR_POLL_MINUTES: NO_PR_POLL },
      dataDir,
      store,
      async cleanup() {
        await store.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const schema = `${TEST_SCHEMA_PREFIX}${crypto.randomBytes(6).toString('hex')}`;
  const admin = await connect(POSTGRES_URL);
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const databaseUrl = url.toString();
  const store = openStore({ databaseUrl, dataDir });
  await migrateToLatest(store);
  return {
    env: { DATABASE_URL: databaseUrl, BULWARK_DATA_DIR: dataDir, BULWARK_OSV_SYNC_HOURS: NO_OSV_SYNC, BULWARK_PR_POLL_MINUTES: NO_PR_POLL },
    dataDir,
    store,
    // The schema stays until the run ends: scripts/test.ts drops the run's whole database at once.
    async cleanup() {
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
