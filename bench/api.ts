// List routes at scale, against the ceiling of a Node service on this machine.
//
//   npm run bench:api [-- --findings 1000000 --events N --repos 200 --db sqlite,postgres
//                        --seconds 3 --connections 16 --rate 500 --only routes,results,scan --scan-lines 100000]
//
// Seeds one organization with --findings findings over --repos repositories (one large repository holds
// a quarter of them, one small one 200) and --events finding events (default: as many as findings),
// with multi-row inserts straight through the store, into a throwaway SQLite file and a throwaway
// PostgreSQL database (created on the server of BULWARK_BENCH_POSTGRES_URL, default
// postgres://postgres@127.0.0.1:5432/postgres, and dropped at the end). Then a real `bulwark serve`
// runs as a child process, and for every list route and filter the bench measures, alternately in one
// run, Bulwark and a raw node:http server (another child) answering the same bytes from memory:
//   max      --connections keep-alive clients, each sending its next request on an answer: req/s, p50, p99
//   @rate    requests due at --rate per second (open loop, from a client process of its own, after half a
//            second untimed): p50, p99 counted from when each was due
// Then the results scenario: four clients read a 200,000-finding scan's results over and over while
// /me is called at 100 req/s (readers and timer each in a child process); it prints /me's p50/p99 and
// the server's peak RSS (VmHWM: the whole run). Last, the scan scenario: a `bulwark serve` with its job
// worker scans a local git repository of --scan-lines lines of Python (the standard library) with
// semgrep_scan while /me is called at 100 req/s; it prints /me's p50/p99 from the scan's start to its end.
// Figures are printed, never asserted; all traffic stays on 127.0.0.1.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createApiKey } from '../src/core/api-keys.ts';
import { createOrganization } from '../src/core/organizations.ts';
import { addUnit } from '../src/core/units.ts';
import { cloneUrlPolicyOf, loadSettings } from '../src/config.ts';
import { loadTokenBox } from '../src/crypto/token-box.ts';
import { TestRepo } from '../test/support/git-repo.ts';
import { filesBelow } from './source-tree.ts';
import { SCOPES } from '../src/core/scopes.ts';
import { newId } from '../src/ids.ts';
import { foldFindingCounts, foldFindingEventCounts } from '../src/store/counts.ts';
import { openStore, refreshPlannerStatistics, type Store } from '../src/store/database.ts';
import { insertFindingEvents } from '../src/store/finding-events.ts';
import { insertFindings, type NewFinding } from '../src/store/findings.ts';
import type { Severity } from '../src/core/severity.ts';
import type { Triage } from '../src/core/states/finding-state.ts';
import type { ScanType } from '../src/scanning/scan-types/index.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { insertBatch } from '../src/store/scan-batches.ts';
import type { FindingEventRow, FindingRow } from '../src/store/schema.ts';
import { insertUnit } from '../src/store/units.ts';
import { closedLoop, fixedRate, type LoadResult, type Target } from './http-load.ts';
import { benchChild, startBulwark, stop, type Server } from './serve.ts';

const root = path.resolve(import.meta.dirname, '..');
const node = process.execPath;

/** The ceiling: node:http answering each path with the bytes Bulwark gave for it, from memory. */
async function rawServer() {
  const bodies = new Map<string, Buffer>();
  process.on('message', (message: { path: string; body: string }) => {
    bodies.set(message.path, Buffer.from(message.body, 'base64'));
    process.send!({ stored: message.path });
  });
  const server = http.createServer((request, response) => {
    const body = bodies.get(request.url ?? '');
    if (!body) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length }).end(body);
  });
  server.keepAliveTimeout = 72_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
  process.on('disconnect', () => process.exit(0));
}

interface Options {
  findings: number;
  events: number;
  repos: number;
  databases: string[];
  seconds: number;
  connections: number;
  rate: number;
  /**
   * Which parts run: `routes` (every list route against the raw server), `results` (/me during results
   * reads), `scan` (/me during a semgrep_scan in the same process).
   */
  scenarios: string[];
  /** Non-blank lines of the scan scenario's repository. */
  scanLines: number;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      findings: { type: 'string', default: '1000000' },
      events: { type: 'string' },
      repos: { type: 'string', default: '200' },
      db: { type: 'string', default: 'sqlite,postgres' },
      seconds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '16' },
      rate: { type: 'string', default: '500' },
      only: { type: 'string' },
      'scan-lines': { type: 'string', default: '100000' },
    },
  });
  const findings = Number(values.findings);
  return {
    findings,
    events: Number(values.events ?? findings),
    repos: Math.max(3, Number(values.repos)),
    databases: values.db!.split(',').map((d) => d.trim()),
    seconds: Number(values.seconds),
    connections: Number(values.connections),
    rate: Number(values.rate),
    scenarios: (values.only ?? 'routes,results,scan').split(',').map((x) => x.trim()),
    scanLines: Number(values['scan-lines']),
  };
}

// ---------------------------------------------------------------------------------------------- seeding

/** A deterministic 32-bit hash of `i` and a salt, so every run seeds the same data. */
function pick(i: number, salt: number): number {
  let h = Math.imul(i ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(salt + 1, 0xc2b2ae35);
  h ^= h >>> 13;
  h = Math.imul(h, 0x27d4eb2d);
  return (h ^ (h >>> 15)) >>> 0;
}

function weighted<T>(value: number, table: [T, number][]): T {
  let point = (value % 1000) / 1000;
  for (const [item, weight] of table) {
    if (point < weight) return item;
    point -= weight;
  }
  return table[table.length - 1][0];
}

const SEVERITIES: [Severity, number][] = [['critical', 0.05], ['high', 0.2], ['medium', 0.4], ['low', 0.35]];
/** People's decisions on findings the scans still see: each is also the finding's status. */
const STATUSES: [Triage, number][] = [['open', 0.7], ['resolved', 0.2], ['ignored', 0.05], ['false_positive', 0.05]];
const SCAN_TYPES: [ScanType, number][] = [['semgrep_scan', 0.6], ['secrets_scan', 0.3], ['sbom_scan', 0.1]];
const EVENT_TYPES: [string, number][] = [['detected', 0.6], ['status_changed', 0.15], ['resolved_auto', 0.15], ['reopened', 0.05], ['fix_created', 0.05]];

interface Seeded {
  orgId: string;
  key: string;
  large: string;
  small: string;
  /** The large repository's batch holding 200,000 of its findings (fewer on a smaller seed). */
  bigBatch: string;
  bigBatchFindings: number;
  smallBatch: string;
  largeFindings: number;
}

const INGEST = 500;

async function seed(store: Store, o: Options): Promise<Seeded> {
  const db = store.db;
  const org = await createOrganization(db, { name: 'Bench', slug: `bench-${crypto.randomBytes(3).toString('hex')}` });
  const { key } = await createApiKey(db, { orgId: org.id, name: 'bench', scopes: [...SCOPES] });
  const t0 = Date.parse('2025-01-01T00:00:00Z');
  const iso = (ms: number) => new Date(ms).toISOString();

  // How many findings each repository holds: a quarter in the first, 200 in the last, the rest even.
  const largeFindings = Math.floor(o.findings / 4);
  const smallFindings = Math.min(200, o.findings - largeFindings);
  const rest = o.findings - largeFindings - smallFindings;
  const counts = [largeFindings];
  for (let r = 1; r < o.repos - 1; r++) counts.push(Math.floor(rest / (o.repos - 2)) + (r - 1 < rest % (o.repos - 2) ? 1 : 0));
  counts.push(smallFindings);

  const units: { id: string; sourceId: string; batches: string[] }[] = [];
  for (let r = 0; r < o.repos; r++) {
    const id = newId();
    const sourceId = newId();
    const created = iso(t0 - (o.repos - r) * 60_000);
    await insertUnit(
      db,
      { id, org_id: org.id, name: `repo-${r}`, description: null, archived: 0, created_at: created, updated_at: created },
      [{ id: sourceId, unit_id: id, position: 0, provider: 'github', full_name: `bench/repo-${r}`, default_branch: 'main', html_url: null, clone_url: `https://github.com/bench/repo-${r}.git`, token_ciphertext: null, token_changed_at: null, created_at: created }],
    );
    const batches = [newId(), newId()];
    for (const [b, batchId] of batches.entries()) {
      await insertBatch(db, {
        id: batchId, org_id: org.id, unit_id: id, scan_type: 'semgrep_scan', status: 'completed', total_repositories: 1, error_message: null,
        quota_type: 'scans', quota_period_start: iso(t0), credit_refunded_at: null, created_at: iso(t0 + b), started_at: iso(t0 + b), completed_at: iso(t0 + b), updated_at: iso(t0 + b),
      });
    }
    units.push({ id, sourceId, batches });
  }
  const bigBatchFindings = Math.min(200_000, largeFindings);

  // Findings arrive in ingests of 500 (one repository, one timestamp each), repositories interleaved.
  const findingIds: string[] = new Array(o.findings);
  const findingUnit = new Int32Array(o.findings);
  const started = performance.now();
  const cursors = counts.map(() => 0);
  let next = 0;
  let clock = t0;
  let rows: (NewFinding & Pick<FindingRow, 'status'>)[] = [];
  const flush = async () => {
    if (!rows.length) return;
    const batch = rows;
    rows = [];
    await db.transaction().execute((trx) => insertFindings(trx, batch));
  };
  for (let round = 0; next < o.findings; round++) {
    for (let r = 0; r < o.repos; r++) {
      const take = Math.min(INGEST, counts[r] - cursors[r]);
      if (take <= 0) continue;
      clock += 1000;
      const at = iso(clock);
      const unit = units[r];
      for (let k = 0; k < take; k++, next++) {
        const n = cursors[r]++;
        const id = newId();
        findingIds[next] = id;
        findingUnit[next] = r;
        const status = weighted(pick(next, 2), STATUSES);
        rows.push({
          id, org_id: org.id, unit_id: unit.id, source_repo_id: unit.sourceId, scan_type: weighted(pick(next, 3), SCAN_TYPES),
          scan_batch_id: r === 0 && n < bigBatchFindings ? unit.batches[1] : unit.batches[n % 2], scan_id: null,
          fingerprint: crypto.createHash('sha1').update(id).digest('hex'), match_hash: null, anchor: null, snippet: null,
          check_id: `rule-${pick(next, 4) % 300}`, severity: weighted(pick(next, 1), SEVERITIES), scan_verdict: 'present', triage: status, status, category: 'sast',
          title: 'A finding of the bench', message: 'Untrusted input reaches a dangerous call', file_path: `src/module-${pick(next, 5) % 2000}/file-${n % 97}.ts`,
          start_line: (pick(next, 6) % 900) + 1, end_line: (pick(next, 6) % 900) + 2, cwe: '["CWE-79"]', owasp: '[]', references: '[]',
          source_url: null, cvss_base_score: null, cvss_severity: null, cvss_vector: null, commit_sha: null, metadata: '{}',
          first_detected_at: at, last_detected_at: at, resolved_at: status === 'resolved' ? at : null, created_at: at, updated_at: at,
        });
      }
      if (rows.length >= 10_000) await flush();
    }
  }
  await flush();
  const findingsSeconds = (performance.now() - started) / 1000;

  const eventsStarted = performance.now();
  let events: FindingEventRow[] = [];
  for (let e = 0; e < o.events; e++) {
    const f = pick(e, 7) % o.findings;
    const at = iso(t0 + 1000 + e * 10);
    const eventType = weighted(pick(e, 8), EVENT_TYPES);
    events.push({
      id: newId(), org_id: org.id, unit_id: units[findingUnit[f]].id, finding_id: findingIds[f], scan_id: null,
      scan_type: weighted(pick(f, 3), SCAN_TYPES), event_type: eventType, previous_status: null, new_status: null,
      severity: weighted(pick(f, 1), SEVERITIES), check_id: `rule-${pick(f, 4) % 300}`, file_path: 'src/x.ts', actor_user_id: null,
      metadata: '{}', comment: null, event_timestamp: at, created_at: at,
    });
    if (events.length >= 10_000) {
      const batch = events;
      events = [];
      await db.transaction().execute((trx) => insertFindingEvents(trx, batch));
    }
  }
  if (events.length) await db.transaction().execute((trx) => insertFindingEvents(trx, events));
  // As an ingest does when it ends: fold PostgreSQL's counter deltas (a no-op on SQLite).
  for (const unit of units) await foldFindingCounts(db, unit.id);
  await foldFindingEventCounts(db, org.id);
  const eventsSeconds = (performance.now() - eventsStarted) / 1000;
  console.log(
    `  seeded ${o.findings.toLocaleString()} findings in ${findingsSeconds.toFixed(1)} s (${Math.round(o.findings / findingsSeconds).toLocaleString()}/s), ` +
      `${o.events.toLocaleString()} events in ${eventsSeconds.toFixed(1)} s (${Math.round(o.events / eventsSeconds).toLocaleString()}/s)`,
  );
  return {
    orgId: org.id,
    key,
    large: units[0].id,
    small: units[o.repos - 1].id,
    bigBatch: units[0].batches[1],
    bigBatchFindings,
    smallBatch: units[o.repos - 1].batches[0],
    largeFindings,
  };
}

// ----------------------------------------------------------------------------------------- processes

async function startRaw(): Promise<Server & { store(path: string, body: Buffer): Promise<void> }> {
  const child = spawn(node, [import.meta.filename, '--raw-server'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)));
  return {
    child,
    port,
    store: (p, body) =>
      new Promise((resolve) => {
        const onMessage = (m: { stored?: string }) => {
          if (m.stored !== p) return;
          child.off('message', onMessage);
          resolve();
        };
        child.on('message', onMessage);
        child.send({ path: p, body: body.toString('base64') });
      }),
  };
}

function get(port: number, p: string, key: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: p, headers: { authorization: `Bearer ${key}` } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

/** The peak (VmHWM) and current (VmRSS) resident memory of a process, in MB. */
function memoryOf(pid: number): { peak: number; now: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { peak: kb('VmHWM') / 1024, now: kb('VmRSS') / 1024 };
}

// ------------------------------------------------------------------------------------------ measuring

const ms = (v: number) => (Number.isNaN(v) ? '-' : v < 10 ? v.toFixed(1) : Math.round(v).toString());
const rps = (r: LoadResult) => Math.round(r.rps).toLocaleString();
const errs = (r: LoadResult) => (r.errors ? ` (${r.errors} errors)` : '');

async function measureRoutes(o: Options, bulwark: Server, raw: Awaited<ReturnType<typeof startRaw>>, s: Seeded) {
  const repo = (id: string) => `/api/v1/repositories/${id}`;
  const deepSkip = Math.min(100_000, Math.max(0, s.largeFindings - 100));
  const routes: [string, string][] = [
    ['GET /me', '/api/v1/me'],
    ['findings, small repo, limit=50', `${repo(s.small)}/findings?limit=50`],
    ['findings, large repo, limit=50', `${repo(s.large)}/findings?limit=50`],
    ['findings, large repo, severity=high', `${repo(s.large)}/findings?limit=50&severity=high`],
    ['findings, large repo, status=resolved', `${repo(s.large)}/findings?limit=50&status=resolved`],
    ['findings, large repo, scan_type=secrets_scan', `${repo(s.large)}/findings?limit=50&scan_type=secrets_scan`],
    [`findings, large repo, skip=${deepSkip}`, `${repo(s.large)}/findings?limit=50&skip=${deepSkip}`],
    ['finding-events, limit=100', '/api/v1/finding-events?limit=100'],
    ['finding-events, event_type=status_changed', '/api/v1/finding-events?limit=100&event_type=status_changed'],
    ['finding-events, severity=critical', '/api/v1/finding-events?limit=100&severity=critical'],
    ['finding-events, repository_id=large', `/api/v1/finding-events?limit=100&repository_id=${s.large}`],
    ['scans of the large repo', `${repo(s.large)}/scans`],
    ['scan results, 200-finding batch', `${repo(s.small)}/scans/${s.smallBatch}/results`],
  ];
  const auth = { authorization: `Bearer ${s.key}` };
  console.log(
    `  ${'route'.padEnd(46)} ${'Bulwark req/s'.padStart(13)} ${'p50'.padStart(6)} ${'p99'.padStart(6)} │ ${'raw req/s'.padStart(9)} ${'p50'.padStart(5)} ${'p99'.padStart(5)} │ ${'ratio'.padStart(6)} │ ${`@${o.rate}/s got`.padStart(10)} ${'p50'.padStart(6)} ${'p99'.padStart(6)}`,
  );
  const firstAndDeep: Record<string, number> = {};
  for (const [name, p] of routes) {
    const sample = await get(bulwark.port, p, s.key);
    if (sample.status !== 200) {
      console.log(`  ${name.padEnd(46)} HTTP ${sample.status}: ${sample.body.toString().slice(0, 200)}`);
      continue;
    }
    await raw.store(p, sample.body);
    const b: Target = { port: bulwark.port, path: p, headers: auth };
    const r: Target = { port: raw.port, path: p, headers: auth };
    // Warm both, then measure them one after the other.
    await closedLoop(b, { connections: o.connections, seconds: 0.5 });
    const mine = await closedLoop(b, { connections: o.connections, seconds: o.seconds });
    await closedLoop(r, { connections: o.connections, seconds: 0.5 });
    const ceiling = await closedLoop(r, { connections: o.connections, seconds: o.seconds });
    const paced = JSON.parse(await child('--paced', [String(bulwark.port), p, s.key, String(o.rate), String(o.seconds), String(Math.max(o.connections, 32))]).output) as LoadResult;
    if (name.startsWith('findings, large repo, limit=50')) firstAndDeep.first = mine.p50;
    if (name.startsWith('findings, large repo, skip=')) firstAndDeep.deep = mine.p50;
    console.log(
      `  ${name.padEnd(46)} ${rps(mine).padStart(13)} ${ms(mine.p50).padStart(6)} ${ms(mine.p99).padStart(6)} │ ${rps(ceiling).padStart(9)} ${ms(ceiling.p50).padStart(5)} ${ms(ceiling.p99).padStart(5)} │ ${(mine.rps / ceiling.rps).toFixed(3).padStart(6)} │ ${rps(paced).padStart(10)} ${ms(paced.p50).padStart(6)} ${ms(paced.p99).padStart(6)}${errs(mine)}${errs(paced)}`,
    );
  }
  if (firstAndDeep.first && firstAndDeep.deep) console.log(`  deep skip p50 / first page p50: ${(firstAndDeep.deep / firstAndDeep.first).toFixed(2)}×`);
}

/**
 * The results readers (`--read-results PORT PATH KEY`): four clients read the path again and again until
 * SIGTERM, then print the bytes they received and the reads they finished, as JSON.
 */
async function resultsReaders([port, p, key]: string[]) {
  let reads = 0;
  let bytes = 0;
  process.on('SIGTERM', () => {
    process.stdout.write(JSON.stringify({ reads, bytes }), () => process.exit(0));
  });
  const read = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: Number(port), path: p, headers: { authorization: `Bearer ${key}` } }, (response) => {
          if (response.statusCode !== 200) reject(new Error(`results answered ${response.statusCode}`));
          response.on('data', (c: Buffer) => (bytes += c.length));
          response.on('end', () => resolve());
          response.on('error', reject);
        })
        .on('error', reject);
    });
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (;;) {
        await read();
        reads++;
      }
    }),
  );
}

/**
 * The /me timer (`--time-me PORT KEY SECONDS`): /me at 100 req/s, the LoadResult printed as JSON; SIGTERM
 * ends it early with what it measured until then.
 */
async function timeMe([port, key, seconds]: string[]) {
  const target = { port: Number(port), path: '/api/v1/me', headers: { authorization: `Bearer ${key}` } };
  const stop = new Promise((resolve) => process.once('SIGTERM', resolve));
  // A second untimed first, so the timer's own start-up (loading, compiling) is not counted as latency.
  await fixedRate(target, { rate: 100, seconds: 1, connections: 8 });
  process.stdout.write(JSON.stringify(await fixedRate(target, { rate: 100, seconds: Number(seconds), connections: 8, stop })));
}

/**
 * The open-loop client (`--paced PORT PATH KEY RATE SECONDS CONNECTIONS`), a process of its own so that
 * its latencies are the server's, not pauses of this process's heap (full from seeding) or its backlog
 * from the run before: half a second untimed, then the LoadResult printed as JSON.
 */
async function paced([port, p, key, rate, seconds, connections]: string[]) {
  const target = { port: Number(port), path: p, headers: { authorization: `Bearer ${key}` } };
  await fixedRate(target, { rate: Number(rate), seconds: 0.5, connections: Number(connections) });
  process.stdout.write(JSON.stringify(await fixedRate(target, { rate: Number(rate), seconds: Number(seconds), connections: Number(connections) })));
}

/** Runs this file in `mode` as a child process (see benchChild). */
const child = (mode: string, args: string[]) => benchChild(import.meta.filename, mode, args);

/**
 * /me at 100 req/s while four clients read a big scan's results again and again. Readers and timer are
 * processes of their own: this one's heap is full from seeding, and draining hundreds of MB would delay
 * the timer's own event loop.
 */
async function resultsScenario(o: Options, bulwark: Server, s: Seeded) {
  const p = `/api/v1/repositories/${s.large}/scans/${s.bigBatch}/results`;
  let rssPeakDuring = 0;
  const sampler = setInterval(() => (rssPeakDuring = Math.max(rssPeakDuring, memoryOf(bulwark.child.pid!).now)), 50);
  const readers = child('--read-results', [String(bulwark.port), p, s.key]);
  await new Promise((r) => setTimeout(r, 500));
  const me = JSON.parse(await child('--time-me', [String(bulwark.port), s.key, String(Math.max(5, o.seconds * 2))]).output) as LoadResult;
  readers.process.kill('SIGTERM');
  const { reads, bytes } = JSON.parse((await readers.output) || '{"reads":0,"bytes":0}') as { reads: number; bytes: number };
  clearInterval(sampler);
  console.log(
    `  /me while 4 clients read ${s.bigBatchFindings.toLocaleString()}-finding results: p50 ${ms(me.p50)} ms, p99 ${ms(me.p99)} ms${errs(me)}; ` +
      `${(bytes / 1e6).toFixed(0)} MB of results read (${reads} whole reads), server RSS peak during them ${Math.round(rssPeakDuring)} MB`,
  );
}

/**
 * A git repository of at least `lines` non-blank lines of real code: the Python standard library of this
 * machine (its tests left out), file by file in name order.
 */
async function scanRepository(lines: number): Promise<{ repo: TestRepo; files: number; lines: number }> {
  const lib = fs.existsSync('/usr/lib') ? fs.readdirSync('/usr/lib').filter((name) => /^python3(?:\.\d+)?$/.test(name)).sort().at(-1) : undefined;
  if (!lib) throw new Error('the scan scenario reads its code from /usr/lib/python3*, which this machine lacks');
  const dir = path.join('/usr/lib', lib);
  const skip = new Set(['test', 'tests', 'idlelib', '__pycache__', 'site-packages', 'dist-packages', 'lib2to3']);
  const found: string[] = [];
  for await (const file of filesBelow(dir, (name) => !skip.has(name))) if (file.endsWith('.py')) found.push(file);
  const files: Record<string, string> = {};
  let count = 0;
  for (const file of found.sort()) {
    if (count >= lines) break;
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    files[path.join('lib', file)] = text;
    count += text.split('\n').filter((line) => line.trim()).length;
  }
  const repo = TestRepo.create();
  repo.commit(files, 'code to scan');
  return { repo, files: Object.keys(files).length, lines: count };
}

const FINAL_SCAN_STATUSES = new Set(['completed', 'failed', 'cancelled']);

/**
 * /me at 100 req/s while a `semgrep_scan` of the scan repository runs in the same `bulwark serve` (API and
 * worker in one process, as `npm start` runs them), from the moment the scan is asked for until it ends.
 */
async function scanScenario(o: Options, env: Record<string, string>, store: Store, s: Seeded): Promise<void> {
  const code = await scanRepository(o.scanLines);
  try {
    const scanEnv = { ...env, BULWARK_ALLOW_LOCAL_REPOS: 'true', BULWARK_LOCAL_REPOS_ROOT: os.tmpdir() };
    const unit = await addUnit(
      store.db,
      loadTokenBox(null, env.BULWARK_DATA_DIR),
      { orgId: s.orgId, name: 'bench/scan', sources: [{ provider: 'github', fullName: 'bench/scan', branch: 'main', cloneUrl: code.repo.url }] },
      cloneUrlPolicyOf(loadSettings({ ...process.env, ...scanEnv })),
    );
    const bulwark = await startBulwark(scanEnv, { worker: true });
    try {
      const base = `http://127.0.0.1:${bulwark.port}/api/v1/repositories/${unit.id}/scans`;
      const headers = { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' };
      const timer = child('--time-me', [String(bulwark.port), s.key, '600']);
      await new Promise((r) => setTimeout(r, 1500));
      const started = performance.now();
      const asked = await fetch(base, { method: 'POST', headers, body: JSON.stringify({ scan_type: 'semgrep_scan' }) });
      if (asked.status !== 202) throw new Error(`the scan was refused: ${asked.status} ${await asked.text()}`);
      const { batch_id: batchId } = (await asked.json()) as { batch_id: string };
      let scan: { status: string; findings_count?: number } = { status: 'queued' };
      while (!FINAL_SCAN_STATUSES.has(scan.status) && performance.now() - started < 600_000) {
        await new Promise((r) => setTimeout(r, 250));
        scan = (await (await fetch(`${base}/${batchId}`, { headers })).json()) as typeof scan;
      }
      const seconds = (performance.now() - started) / 1000;
      timer.process.kill('SIGTERM');
      const me = JSON.parse(await timer.output) as LoadResult;
      console.log(
        `  /me while a semgrep_scan of ${code.lines.toLocaleString()} lines (${code.files} files) runs in the same process: ` +
          `p50 ${ms(me.p50)} ms, p99 ${ms(me.p99)} ms${errs(me)}; the scan ${scan.status} in ${seconds.toFixed(1)} s`,
      );
    } finally {
      await stop(bulwark.child);
    }
  } finally {
    fs.rmSync(code.repo.dir, { recursive: true, force: true });
  }
}

// ----------------------------------------------------------------------------------------------- main

async function withDatabase(kind: string, run: (env: Record<string, string>, store: Store) => Promise<void>) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-bench-api-'));
  if (kind === 'sqlite') {
    const store = openStore({ databaseUrl: null, dataDir });
    try {
      await run({ BULWARK_DATA_DIR: dataDir }, store);
    } finally {
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    return;
  }
  const adminUrl = process.env.BULWARK_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `bulwark_bench_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const store = openStore({ databaseUrl: url.toString(), dataDir });
  try {
    await run({ DATABASE_URL: url.toString(), BULWARK_DATA_DIR: dataDir }, store);
  } finally {
    await store.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const o = options();
  console.log(
    `bench:api — ${o.findings.toLocaleString()} findings over ${o.repos} repositories, ${o.events.toLocaleString()} events; ` +
      `${o.connections} connections, ${o.seconds} s per measurement, open loop at ${o.rate}/s; node ${process.version}, ${os.availableParallelism()} cores`,
  );
  const raw = await startRaw();
  try {
    for (const kind of o.databases) {
      console.log(`\n${kind}`);
      await withDatabase(kind, async (env, store) => {
        await migrateToLatest(store);
        const seeded = await seed(store, o);
        await refreshPlannerStatistics(store);
        if (o.scenarios.includes('routes') || o.scenarios.includes('results')) {
          const bulwark = await startBulwark(env);
          try {
            if (o.scenarios.includes('routes')) await measureRoutes(o, bulwark, raw, seeded);
            if (o.scenarios.includes('results')) await resultsScenario(o, bulwark, seeded);
            console.log(`  server peak RSS over the whole run: ${Math.round(memoryOf(bulwark.child.pid!).peak)} MB`);
          } finally {
            await stop(bulwark.child);
          }
        }
        if (o.scenarios.includes('scan')) await scanScenario(o, env, store, seeded);
      });
    }
  } finally {
    raw.child.disconnect();
    await stop(raw.child);
  }
}

if (process.argv.includes('--raw-server')) {
  await rawServer();
} else if (process.argv[2] === '--read-results') {
  await resultsReaders(process.argv.slice(3));
} else if (process.argv[2] === '--time-me') {
  await timeMe(process.argv.slice(3));
} else if (process.argv[2] === '--paced') {
  await paced(process.argv.slice(3));
} else {
  await main();
}
