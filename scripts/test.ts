// Runs the whole suite once on the embedded SQLite store and once on PostgreSQL.
// BULWARK_TEST_DBS=sqlite (or postgres) limits the run to one of them; extra arguments pick test files.
// On PostgreSQL the run creates a database of its own on the server of BULWARK_TEST_POSTGRES_URL and drops
// it at the end, so several runs can share one server. Tests run in a random order (the seed is printed;
// BULWARK_TEST_SEED=<seed> repeats one), so a test that depends on another's order fails.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  createRunDatabase,
  DEFAULT_POSTGRES_URL,
  dropRunDatabase,
  newRunId,
  PostgresUnavailableError,
} from '../test/support/postgres-run.ts';

const databases = (process.env.BULWARK_TEST_DBS ?? 'sqlite,postgres').split(',').map((s) => s.trim()).filter(Boolean);
const requested = process.argv.slice(2);
/** Every `*.test.ts` under test/ and src/ (extractors keep their tests beside their code). */
function discoverTestFiles(): string[] {
  return ['test', 'src']
    .flatMap((root) => fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).map((f) => path.join(root, f)))
    .filter((f) => f.endsWith('.test.ts') && !f.split(path.sep).includes('fixtures'))
    .sort();
}
const files = requested.length ? requested : discoverTestFiles();

const unknown = databases.filter((d) => d !== 'sqlite' && d !== 'postgres');
if (unknown.length) {
  console.error(`BULWARK_TEST_DBS names ${unknown.join(', ')}; it takes sqlite, postgres or both (sqlite,postgres)`);
  process.exit(2);
}

const seed = process.env.BULWARK_TEST_SEED;
if (seed !== undefined && !/^\d+$/.test(seed)) {
  console.error(`BULWARK_TEST_SEED is ${JSON.stringify(seed)}; it takes the seed a run printed, a whole number`);
  process.exit(2);
}
const order = seed ? [`--test-random-seed=${seed}`] : ['--test-randomize'];

const adminUrl = process.env.BULWARK_TEST_POSTGRES_URL || DEFAULT_POSTGRES_URL;
const runId = newRunId();

/** Exits with one line instead of a driver stack trace when PostgreSQL cannot be used. */
async function orExit<T>(step: Promise<T>): Promise<T> {
  try {
    return await step;
  } catch (error) {
    if (!(error instanceof PostgresUnavailableError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

// Created before anything runs, so an unusable server is reported at once rather than after the SQLite run.
const runDatabaseUrl = databases.includes('postgres') ? await orExit(createRunDatabase(adminUrl, runId)) : null;

// Ctrl-C reaches the test processes too; this process stays to drop the run's database once they end.
const stay = () => {};
process.on('SIGINT', stay);
process.on('SIGTERM', stay);

let failed = false;
try {
  for (const database of databases) {
    console.log(`\n=== test suite on ${database} ===`);
    const env: NodeJS.ProcessEnv = { ...process.env, BULWARK_TEST_DB: database, BULWARK_TEST_RUN_ID: runId };
    if (database === 'postgres') env.BULWARK_TEST_POSTGRES_URL = runDatabaseUrl!;
    const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...order, ...files], { stdio: 'inherit', env });
    if (result.status !== 0) failed = true;
  }
} finally {
  if (runDatabaseUrl) await orExit(dropRunDatabase(adminUrl, runId));
}
process.exit(failed ? 1 : 0);
