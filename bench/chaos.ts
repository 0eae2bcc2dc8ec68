// Kill -9 at random moments: does anything get stuck, duplicated, lost or made up?
//
//   npm run bench:chaos [-- --scans 100 --fixes 20 --repos 8 --kill-every 3 --seconds 900 --seed 1 --keep]
//
// A real `bulwark serve` (API and worker in one process) runs on a database of its own (SQLite in a
// temporary data folder, or PostgreSQL when DATABASE_URL names a server: a database is created for the
// run and dropped after). Local git repositories hold planted secrets and SAST findings. The bench
// creates scans and, on what they find, fixes, while it SIGKILLs the server every few seconds (at a
// random point) and starts it again; scans pause after each checkout and fixes after each work tree
// (BULWARK_FAULT_*_DELAY_MS) so kills land mid-job. When all requests are in, it lets the last server
// run until every batch and fix has ended (or --seconds passes), then counts, from the database and
// the disk:
//   stuck        batches or fixes not in a final status
//   duplicates   findings of one source repository that are the same match twice
//   lost events  findings without their `detected` event
//   false events `resolved_auto` or `reopened` events (nothing in the repositories ever changes)
//   leftovers    work trees left under the checkout root
// Figures are printed, never asserted. Everything stays on loopback.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { cloneUrlPolicyOf, loadSettings } from '../src/config.ts';
import { createApiKey } from '../src/core/api-keys.ts';
import { createOrganization } from '../src/core/organizations.ts';
import { SCOPES } from '../src/core/scopes.ts';
import { BATCH_STATUS } from '../src/core/states/batch-status.ts';
import { addUnit, type Unit } from '../src/core/units.ts';
import { loadTokenBox } from '../src/crypto/token-box.ts';
import { SECRET_RULES } from '../src/scanning/secrets/rules.ts';
import { openStore, type Store } from '../src/store/database.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { TestRepo } from '../test/support/git-repo.ts';
import { positiveSample, seededRandom } from '../test/support/secret-samples.ts';

const { values } = parseArgs({
  options: {
    scans: { type: 'string', default: '100' },
    fixes: { type: 'string', default: '20' },
    repos: { type: 'string', default: '8' },
    'kill-every': { type: 'string', default: '3' },
    seconds: { type: 'string', default: '900' },
    seed: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
  },
});
const SCANS = Number(values.scans);
const FIXES = Number(values.fixes);
const REPOS = Number(values.repos);
const KILL_EVERY_MS = Number(values['kill-every']) * 1000;
const DEADLINE = Date.now() + Number(values.seconds) * 1000;
const random = seededRandom(Number(values.seed));
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const FINAL_BATCH = new Set<string>(BATCH_STATUS.terminal);
/** A fix still at work; anything else has ended (a pull request failure is retryable but finished). */
const ACTIVE_FIX = ['pending', 'running'] as const;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-chaos-'));
const dataDir = path.join(work, 'data');
const baseUrl = process.env.DATABASE_URL;
const databaseName = `bulwark_chaos_${crypto.randomBytes(4).toString('hex')}`;

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function prepareDatabase(): Promise<string | undefined> {
  if (!baseUrl) return undefined;
  await admin(`create database ${databaseName}`);
  const url = new URL(baseUrl);
  url.pathname = `/${databaseName}`;
  return url.toString();
}

const encryptionKey = crypto.randomBytes(32).toString('hex');
const databaseUrl = await prepareDatabase();
const port = 20000 + Math.floor(random() * 20000);
const env: NodeJS.ProcessEnv = {
  ...process.env,
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  BULWARK_DATA_DIR: dataDir,
  BULWARK_ENCRYPTION_KEY: encryptionKey,
  BULWARK_ALLOW_LOCAL_REPOS: 'true',
  // The bench's repositories are temporary folders.
  BULWARK_LOCAL_REPOS_ROOT: os.tmpdir(),
  BULWARK_JOB_LEASE_SECONDS: databaseUrl ? '10' : '3',
  BULWARK_JOB_MAX_ATTEMPTS: '10',
  BULWARK_FAULT_SCAN_DELAY_MS: '400',
  BULWARK_FAULT_FIX_DELAY_MS: '400',
  BULWARK_SECRETS_HISTORY_DEPTH: '0',
  HOST: '127.0.0.1',
  PORT: String(port),
  LOG_LEVEL: 'warn',
  // One patient client polling hard: the per-key limits would answer it 429.
  BULWARK_RATE_LIMIT_PER_MINUTE: '0',
  BULWARK_MAX_CONCURRENT_REQUESTS_PER_KEY: '0',
};

/** Repositories with findings of both engines and secrets the deterministic fixer can move out. */
function makeRepos(): TestRepo[] {
  const rules = SECRET_RULES.filter((r) => ['github-pat', 'stripe-secret-key', 'slack-bot-token', 'npm-token'].includes(r.id));
  return Array.from({ length: REPOS }, (_, i) => {
    const repo = TestRepo.create();
    const files: Record<string, string> = {};
    for (let j = 0; j < 4; j++) {
      files[`app/settings_${j}.py`] = `API_TOKEN = "${positiveSample(rules[(i + j) % rules.length]!, i * 10 + j)}"\n`;
      files[`app/views_${j}.py`] = [
        'import os',
        'import subprocess',
        'from flask import request',
        '',
        `def run_${j}():`,
        "    cmd = request.args.get('cmd')",
        '    subprocess.call(cmd, shell=True)',
        '    os.system(cmd)',
        '',
      ].join('\n');
    }
    repo.commit(files, 'seed');
    return repo;
  });
}

async function seed(store: Store, repos: TestRepo[]): Promise<{ key: string; units: Unit[] }> {
  const org = await createOrganization(store.db, { name: 'chaos' });
  const { key } = await createApiKey(store.db, { orgId: org.id, name: 'chaos', scopes: [...SCOPES] });
  const tokenBox = loadTokenBox(encryptionKey, dataDir);
  const units: Unit[] = [];
  for (const [i, repo] of repos.entries()) {
    units.push(
      await addUnit(store.db, tokenBox, {
        orgId: org.id,
        name: `acme/app-${i}`,
        sources: [{ provider: 'github', fullName: `acme/app-${i}`, branch: 'main', cloneUrl: repo.url }],
      }, cloneUrlPolicyOf(loadSettings(env))),
    );
  }
  return { key, units };
}

let server: ChildProcess | undefined;
let kills = 0;

async function startServer(): Promise<void> {
  const child = spawn(process.execPath, ['src/cli/main.ts', 'serve'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  server = child;
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} while starting`);
    await sleep(100);
  }
  throw new Error('the server did not become ready');
}

async function killServer(): Promise<void> {
  const child = server;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  kills++;
}

/** A request that survives the server being killed under it: retried until it answers, like a patient client. */
async function call(method: string, url: string, key: string, body?: unknown): Promise<{ status: number; json: any }> {
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}${url}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: await res.json().catch(() => null) };
    } catch {
      await sleep(200);
    }
  }
}

async function main() {
  const repos = makeRepos();
  const store = openStore({ databaseUrl: databaseUrl ?? null, dataDir });
  await migrateToLatest(store);
  const { key, units } = await seed(store, repos);
  await store.close();

  await startServer();
  let killing = true;
  const killer = (async () => {
    while (killing) {
      await sleep(KILL_EVERY_MS * (0.5 + random()));
      if (!killing) break;
      await killServer();
      await startServer();
    }
  })();

  const started = Date.now();
  const batches: { unit: string; id: string }[] = [];
  let duplicateRequests = 0;
  for (let i = 0; i < SCANS; i++) {
    const unit = pick(units);
    const res = await call('POST', `/api/v1/repositories/${unit.id}/scans`, key, { scan_type: pick(['secrets_scan', 'semgrep_scan']) });
    if (res.status === 202) batches.push({ unit: unit.id, id: res.json.batch_id });
    else duplicateRequests++;
    await sleep(50 + random() * 150);
  }
  const fixes: { unit: string; id: string }[] = [];
  const refusedFixes = new Map<string, number>();
  const fixedFindings = new Set<string>();
  // Fixes need findings, which need scans that finish under the kills: asking for them is bounded too.
  const askUntil = Math.min(DEADLINE, Date.now() + 120_000);
  while (fixes.length < FIXES && Date.now() < askUntil) {
    const unit = pick(units);
    const found = await call('GET', `/api/v1/repositories/${unit.id}/findings?scan_type=secrets_scan&status=open&limit=50`, key);
    const finding = (found.json?.items ?? []).find((f: { id: string }) => !fixedFindings.has(f.id));
    if (!finding) {
      await sleep(500);
      continue;
    }
    fixedFindings.add(finding.id);
    const res = await call('POST', `/api/v1/repositories/${unit.id}/fixes`, key, {
      finding_ids: [finding.id],
      title: 'Read the token from the environment',
      instructions: 'Move the secret out of the code',
      source_repo: unit.sources[0]!.full_name,
    });
    if (res.status === 201) fixes.push({ unit: unit.id, id: res.json.id });
    else refusedFixes.set(`${res.status} ${res.json?.detail?.error_code ?? ''}`, (refusedFixes.get(`${res.status} ${res.json?.detail?.error_code ?? ''}`) ?? 0) + 1);
  }
  killing = false;
  await killer;
  if (!server || server.exitCode !== null) await startServer();

  const pending = async () => {
    let open = 0;
    for (const b of batches) if (!FINAL_BATCH.has((await call('GET', `/api/v1/repositories/${b.unit}/scans/${b.id}`, key)).json?.status)) open++;
    for (const f of fixes) if ((ACTIVE_FIX as readonly string[]).includes((await call('GET', `/api/v1/repositories/${f.unit}/fixes/${f.id}`, key)).json?.status)) open++;
    return open;
  };
  while (Date.now() < DEADLINE && (await pending()) > 0) await sleep(2000);
  const settledSeconds = (Date.now() - started) / 1000;
  await new Promise<void>((resolve) => {
    server!.once('exit', () => resolve());
    server!.kill('SIGTERM');
  });

  const report = await count(batches.length, fixes.length);
  console.log(`chaos on ${databaseUrl ? 'PostgreSQL' : 'SQLite'}: ${batches.length} scans and ${fixes.length} fixes over ${REPOS} repositories, ${kills} kill -9s, settled in ${settledSeconds.toFixed(0)} s`);
  console.table(report);
  if (duplicateRequests) console.log(`${duplicateRequests} scan requests were refused (quota or validation)`);
  for (const [why, n] of refusedFixes) console.log(`${n} fix requests were refused: ${why}`);
  for (const repo of repos) repo.remove();
}

async function count(batchCount: number, fixCount: number) {
  const store = openStore({ databaseUrl: databaseUrl ?? null, dataDir });
  try {
    const db = store.db;
    const stuckBatches = await db.selectFrom('scan_batches').select('id').where('status', 'not in', BATCH_STATUS.terminal).execute();
    const failedBatches = await db.selectFrom('scan_batches').select('id').where('status', '!=', 'completed').execute();
    const stuckFixes = await db.selectFrom('fixes').select('id').where('status', 'in', ACTIVE_FIX).execute();
    const completedFixes = await db.selectFrom('fixes').select('id').where('status', '=', 'completed').execute();
    const findings = await db.selectFrom('findings').select(['id', 'source_repo_id', 'check_id', 'file_path', 'match_hash', 'start_line']).execute();
    const seen = new Map<string, number>();
    for (const f of findings) {
      const identity = `${f.source_repo_id}\0${f.check_id}\0${f.file_path}\0${f.match_hash}\0${f.start_line}`;
      seen.set(identity, (seen.get(identity) ?? 0) + 1);
    }
    const duplicates = [...seen.values()].reduce((n, c) => n + c - 1, 0);
    const detected = new Set(
      (await db.selectFrom('finding_events').select('finding_id').where('event_type', '=', 'detected').execute()).map((e) => e.finding_id),
    );
    const lost = findings.filter((f) => !detected.has(f.id)).length;
    const falseEvents = await db.selectFrom('finding_events').select('id').where('event_type', 'in', ['resolved_auto', 'reopened']).execute();
    const worktrees = path.join(dataDir, 'git', 'worktrees');
    // Each process keeps its work trees in a folder of its own (with an owner file) under worktrees/.
    const leftovers = fs.existsSync(worktrees)
      ? fs
          .readdirSync(worktrees, { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .reduce((n, e) => n + fs.readdirSync(path.join(worktrees, e.name), { withFileTypes: true }).filter((w) => w.isDirectory()).length, 0)
      : 0;
    return {
      'batches created': { count: batchCount },
      'batches not completed': { count: failedBatches.length },
      'stuck batches': { count: stuckBatches.length },
      'fixes created': { count: fixCount },
      'fixes completed': { count: completedFixes.length },
      'stuck fixes': { count: stuckFixes.length },
      findings: { count: findings.length },
      'duplicate findings': { count: duplicates },
      'lost detected events': { count: lost },
      'false resolved/reopened events': { count: falseEvents.length },
      'leftover work trees': { count: leftovers },
    };
  } finally {
    await store.close();
  }
}

try {
  await main();
} finally {
  await killServer().catch(() => {});
  if (!values.keep) fs.rmSync(work, { recursive: true, force: true });
  if (databaseUrl && !values.keep) await admin(`drop database if exists ${databaseName} with (force)`).catch(() => {});
  if (values.keep) console.log(`kept ${work}${databaseUrl ? ` and database ${databaseName}` : ''}`);
}
