// Runs the suite: test files that open a database (scripts/test-classify.ts) once on the embedded SQLite
// store and once on PostgreSQL, every other file once, without a database. BULWARK_TEST_DBS=sqlite (or
// postgres) limits the database passes to one of them; extra arguments pick test files. The run ends with
// each pass's wall time and slowest files (scripts/test-report.ts).
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
// Twice as many files as cores (4 on CI's 2: 6 min instead of 7 at 3): files spend much of their time waiting
// on servers, child processes and leases. At most 8, as each file holds PostgreSQL connections of its own.
const concurrency = Number(concurrencySetting ?? Math.min(2 * os.availableParallelism(), 8));

const { database: databaseFiles, databaseFree: databaseFreeFiles } = classifyTestFiles(files);
/** A pass runs files on one database (or, for database-free files, none); its name is a folder of the run. */
interface Pass {
  database: 'sqlite' | 'postgres' | typeof DATABASE_FREE;
  files: string[];
}
const passes: Pass[] = [
  ...(databaseFreeFiles.length ? [{ database: DATABASE_FREE, files: databaseFreeFiles } as const] : []),
  ...(databaseFiles.length ? databases.map((database) => ({ database: database as Pass['database'], files: databaseFiles })) : []),
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

// All passes share one pool of test processes, so no pass waits for the last slow file of another.
// Each (pass, file) pair is a small module in the run's folder, <run>/<database>/<file>, that sets the
// pass's database settings and then loads the test file, so failures and timings name the pass.
const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-test-run-'));
fs.writeFileSync(path.join(runDir, 'package.json'), '{ "type": "module" }\n');
function passModule(pass: Pass, file: string): string {
  const module = path.join(runDir, pass.database, file);
  const settings = [`process.env.BULWARK_TEST_DB = ${JSON.stringify(pass.database)};`, `process.env.BULWARK_TEST_FILE = ${JSON.stringify(file)};`];
  if (pass.database === 'postgres') settings.push(`process.env.BULWARK_TEST_POSTGRES_URL = ${JSON.stringify(runDatabaseUrl)};`);
  else settings.push('delete process.env.BULWARK_TEST_POSTGRES_URL;');
  fs.mkdirSync(path.dirname(module), { recursive: true });
  fs.writeFileSync(module, `${settings.join('\n')}\nawait import(${JSON.stringify(pathToFileURL(path.resolve(file)).href)});\n`);
  return module;
}
const modules = passes.flatMap((pass) => pass.files.map((file) => passModule(pass, file)));

const reporters = [
  '--test-reporter=spec', '--test-reporter-destination=stdout',
  `--test-reporter=${pathToFileURL(path.resolve(import.meta.dirname, 'test-report.ts')).href}`, '--test-reporter-destination=stdout',
];
const cpuRecorder = ['--import', pathToFileURL(path.resolve(import.meta.dirname, 'test-cpu.ts')).href];
const cpuDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-test-cpu-'));
const env: NodeJS.ProcessEnv = {
  ...process.env,
  BULWARK_TEST_RUN_ID: runId,
  BULWARK_TEST_RUN_DIR: runDir,
  BULWARK_TEST_CPU_DIR: cpuDir,
  BULWARK_TEST_STARTED: String(Date.now()),
  // Test files and the CLIs and servers they start load the same modules hundreds of times: V8's code
  // cache, kept for the run in its folder (outside the repository, whose files some tests watch), saves
  // compiling them again.
  NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE || path.join(runDir, 'compile-cache'),
};

console.log(`\n=== test suite: ${passes.map((pass) => `${pass.files.length} files ${pass.database === DATABASE_FREE ? 'without a database' : `on ${pass.database}`}`).join(', ')}; ${concurrency} at a time ===`);
let failed = false;
try {
  const result = spawnSync(process.execPath, [...cpuRecorder, '--test', `--test-concurrency=${concurrency}`, ...order, ...reporters, ...modules], { stdio: 'inherit', env });
  failed = result.status !== 0;
} finally {
  fs.rmSync(runDir, { recursive: true, force: true });
  fs.rmSync(cpuDir, { recursive: true, force: true });
  if (runDatabaseUrl) await orExit(dropRunDatabase(adminUrl, runId));
}
process.exit(failed ? 1 : 0);
