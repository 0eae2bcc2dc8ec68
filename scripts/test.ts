// Runs the suite: test files that open a database (scripts/test-classify.ts) once on the embedded SQLite
// store and once on PostgreSQL, every other file once, without a database. BULWARK_TEST_DBS=sqlite (or
// postgres) limits the database passes to one of them; extra arguments pick test files. Each pass ends with
// its wall time and its slowest files (scripts/test-report.ts).
// On PostgreSQL the run creates a database of its own on the server of BULWARK_TEST_POSTGRES_URL and drops
// it at the end, so several runs can share one server. Tests run in a random order (the seed is printed;
// BULWARK_TEST_SEED=<seed> repeats one), so a test that depends on another's order fails.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { classifyTestFiles, DATABASE_FREE } from './test-classify.ts';
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

const concurrencySetting = process.env.BULWARK_TEST_CONCURRENCY;
if (concurrencySetting !== undefined && !/^[1-9]\d*$/.test(concurrencySetting)) {
  console.error(`BULWARK_TEST_CONCURRENCY is ${JSON.stringify(concurrencySetting)}; it takes how many test files run at once, a whole number`);
  process.exit(2);
}
const concurrency = Number(concurrencySetting ?? 2);

const { database: databaseFiles, databaseFree: databaseFreeFiles } = classifyTestFiles(files);
interface Pass {
  name: string;
  database: 'sqlite' | 'postgres' | typeof DATABASE_FREE;
  files: string[];
}
const passes: Pass[] = [
  ...(databaseFreeFiles.length ? [{ name: 'without a database', database: DATABASE_FREE, files: databaseFreeFiles } as const] : []),
  ...(databaseFiles.length ? databases.map((database) => ({ name: `on ${database}`, database: database as Pass['database'], files: databaseFiles })) : []),
];

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
const runDatabaseUrl = passes.some((pass) => pass.database === 'postgres') ? await orExit(createRunDatabase(adminUrl, runId)) : null;

// Ctrl-C reaches the test processes too; this process stays to drop the run's database once they end.
const stay = () => {};
process.on('SIGINT', stay);
process.on('SIGTERM', stay);

const reporters = [
  '--test-reporter=spec', '--test-reporter-destination=stdout',
  `--test-reporter=${pathToFileURL(path.resolve(import.meta.dirname, 'test-report.ts')).href}`, '--test-reporter-destination=stdout',
];
const cpuRecorder = ['--import', pathToFileURL(path.resolve(import.meta.dirname, 'test-cpu.ts')).href];

let failed = false;
const wallTimes: string[] = [];
try {
  for (const pass of passes) {
    console.log(`\n=== test suite ${pass.name}: ${pass.files.length} files ===`);
    const cpuDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-test-cpu-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      BULWARK_TEST_DB: pass.database,
      BULWARK_TEST_RUN_ID: runId,
      BULWARK_TEST_PASS: pass.name,
      BULWARK_TEST_CPU_DIR: cpuDir,
      BULWARK_TEST_PASS_STARTED: String(Date.now()),
      // Test files and the CLIs and servers they start load the same modules hundreds of times: V8's code
      // cache (kept with the installed packages, so a fresh install starts cold) saves compiling them again.
      NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE || path.resolve(import.meta.dirname, '..', 'node_modules', '.cache', 'bulwark-test-compile'),
    };
    if (pass.database === 'postgres') env.BULWARK_TEST_POSTGRES_URL = runDatabaseUrl!;
    if (pass.database === DATABASE_FREE) delete env.BULWARK_TEST_POSTGRES_URL;
    const started = Number(env.BULWARK_TEST_PASS_STARTED);
    const result = spawnSync(process.execPath, [...cpuRecorder, '--test', `--test-concurrency=${concurrency}`, ...order, ...reporters, ...pass.files], { stdio: 'inherit', env });
    wallTimes.push(`${pass.name} ${((Date.now() - started) / 1000).toFixed(0)} s`);
    fs.rmSync(cpuDir, { recursive: true, force: true });
    if (result.status !== 0) failed = true;
  }
} finally {
  if (runDatabaseUrl) await orExit(dropRunDatabase(adminUrl, runId));
}
console.log(`\n=== test suite wall time: ${wallTimes.join(', ')} ===`);
process.exit(failed ? 1 : 0);
