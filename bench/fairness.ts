// One organization's expensive reads against another organization's cheap ones, on SQLite.
//
//   npm run bench:fairness [-- --findings 300000 --seconds 8 --readers 16,64 --service-limits]
//
// Seeds a throwaway SQLite data dir with two organizations: A with one repository of --findings findings
// and four API keys, B with one small repository. A real `bulwark serve` runs as a child process (the
// benches' bench/serve.ts: per-key limits raised, so A's load is never turned away; with --service-limits the
// service's default per-key rate and concurrency limits stand, and A's refused reads are counted). For each count in
// --readers, that many clients of A (16 per key, over up to A's four keys) read random deep pages of A's
// findings (`skip` anywhere in the list) again and again, while B calls /me at 100 req/s; it prints B's
// /me p50/p99, first with A idle.
// Readers and timer are child processes; all traffic stays on 127.0.0.1; every phase has a fixed length,
// and the data dir is removed at the end (or on Ctrl-C).
import crypto from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { createApiKey } from '../src/core/api-keys.ts';
import { createOrganization } from '../src/core/organizations.ts';
import { SCOPES } from '../src/core/scopes.ts';
import { newId } from '../src/ids.ts';
import { openStore, refreshPlannerStatistics, type Store } from '../src/store/database.ts';
import { insertFindings, type NewFinding } from '../src/store/findings.ts';
import { SEVERITIES } from '../src/core/severity.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import type { FindingRow } from '../src/store/schema.ts';
import { insertUnit } from '../src/store/units.ts';
import { fixedRate, type LoadResult } from './http-load.ts';
import { benchChild, startBulwark, stop } from './serve.ts';
import { scratchFolder } from './scratch.ts';

const PAGE = 50;
/** Clients per key (the default per-key concurrency limit): more readers take more of A's keys. */
const PER_KEY = 16;

interface Seeded {
  repoA: string;
  keysA: string[];
  keysB: string[];
}

/** B's /me is timed at 100 req/s spread over this many keys, each under the default 600 requests a minute. */
const B_KEYS = 12;

/** An organization with one repository of `findings` findings and `keys` API keys. */
async function seedOrganization(store: Store, name: string, findings: number, keys: number): Promise<{ repo: string; keys: string[] }> {
  const db = store.db;
  const org = await createOrganization(db, { name, slug: `${name.toLowerCase()}-${crypto.randomBytes(3).toString('hex')}` });
  const made: string[] = [];
  for (let k = 0; k < keys; k++) made.push((await createApiKey(db, { orgId: org.id, name: `bench ${k}`, scopes: [...SCOPES] })).key);
  const repo = newId();
  const source = newId();
  const t0 = Date.parse('2025-01-01T00:00:00Z');
  const iso = (ms: number) => new Date(ms).toISOString();
  await insertUnit(
    db,
    { id: repo, org_id: org.id, name: `${name}/app`, description: null, archived: 0, created_at: iso(t0), updated_at: iso(t0) },
    [{ id: source, unit_id: repo, position: 0, provider: 'github', full_name: `${name}/app`, default_branch: 'main', html_url: null, clone_url: `https://github.com/${name}/app.git`, token_changed_at: null, token_ciphertext: null, created_at: iso(t0) }],
  );
  let rows: (NewFinding & Pick<FindingRow, 'status'>)[] = [];
  const flush = async () => {
    const batch = rows;
    rows = [];
    if (batch.length) await db.transaction().execute((trx) => insertFindings(trx, batch));
  };
  for (let i = 0; i < findings; i++) {
    // Ingests of 500 share a time, as a scan's do.
    const at = iso(t0 + Math.floor(i / 500) * 1000);
    const id = newId();
    rows.push({
      id, org_id: org.id, unit_id: repo, source_repo_id: source, scan_type: 'semgrep_scan', scan_batch_id: null, scan_id: null,
      fingerprint: crypto.createHash('sha1').update(id).digest('hex'), match_hash: null, anchor: null, snippet: null,
      check_id: `rule-${i % 300}`, severity: SEVERITIES[i % 4], scan_verdict: 'present', triage: 'open', status: 'open', category: 'sast',
      title: 'A finding of the bench', message: 'Untrusted input reaches a dangerous call', file_path: `src/module-${i % 2000}/file-${i % 97}.ts`,
      start_line: (i % 900) + 1, end_line: (i % 900) + 2, cwe: '["CWE-79"]', owasp: '[]', references: '[]',
      source_url: null, cvss_base_score: null, cvss_severity: null, cvss_vector: null, commit_sha: null, metadata: '{}',
      first_detected_at: at, last_detected_at: at, resolved_at: null, created_at: at, updated_at: at,
    });
    if (rows.length >= 10_000) await flush();
  }
  await flush();
  return { repo, keys: made };
}

async function seed(store: Store, findings: number): Promise<Seeded> {
  const started = performance.now();
  const a = await seedOrganization(store, 'OrgA', findings, 4);
  const b = await seedOrganization(store, 'OrgB', 20, B_KEYS);
  await refreshPlannerStatistics(store);
  console.log(`  seeded ${findings.toLocaleString()} findings for A in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { repoA: a.repo, keysA: a.keys, keysB: b.keys };
}

/** Runs this file in `mode` as a child process (see benchChild). */
const child = (mode: string, args: string[]) => benchChild(import.meta.filename, mode, args);

/**
 * The deep-page readers (`--read-deep PORT REPO FINDINGS READERS KEY…`): READERS clients, spread over the
 * keys, each reading a random page of the repository's findings again and again until SIGTERM; then the
 * reads finished and the answers other than 200, as JSON.
 */
async function deepReaders([port, repo, findings, readers, ...keys]: string[]) {
  let reads = 0;
  let refused = 0;
  let stopping = false;
  process.on('SIGTERM', () => {
    stopping = true;
    process.stdout.write(JSON.stringify({ reads, refused }), () => process.exit(0));
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: Number(readers) });
  const read = (key: string) =>
    new Promise<void>((resolve) => {
      const skip = Math.floor(Math.random() * Math.max(1, Number(findings) - PAGE));
      http
        .get({ host: '127.0.0.1', port: Number(port), agent, path: `/api/v1/repositories/${repo}/findings?limit=${PAGE}&skip=${skip}`, headers: { authorization: `Bearer ${key}` } }, (response) => {
          if (response.statusCode === 200) reads++;
          else refused++;
          response.resume();
          response.on('end', resolve);
          response.on('error', () => resolve());
        })
        .on('error', () => resolve());
    });
  await Promise.all(
    Array.from({ length: Number(readers) }, async (_, i) => {
      while (!stopping) await read(keys[i % keys.length]);
    }),
  );
}

/** The /me timer (`--time-me PORT SECONDS KEY…`): /me at 100 req/s over the keys in turn after a second untimed, the LoadResult as JSON. */
async function timeMe([port, seconds, ...keys]: string[]) {
  const target = keys.map((key) => ({ port: Number(port), path: '/api/v1/me', headers: { authorization: `Bearer ${key}` } }));
  await fixedRate(target, { rate: 100, seconds: 1, connections: 8 });
  process.stdout.write(JSON.stringify(await fixedRate(target, { rate: 100, seconds: Number(seconds), connections: 8 })));
}

const ms = (v: number) => (Number.isNaN(v) ? '-' : v < 10 ? v.toFixed(1) : Math.round(v).toString());

async function main() {
  const { values } = parseArgs({
    options: {
      findings: { type: 'string', default: '300000' },
      seconds: { type: 'string', default: '8' },
      readers: { type: 'string', default: '16,64' },
      'service-limits': { type: 'boolean', default: false },
    },
  });
  const findings = Number(values.findings);
  const seconds = Number(values.seconds);
  const readerCounts = values.readers!.split(',').map(Number);
  const limits = values['service-limits'] ? "the service's default per-key limits" : 'per-key limits raised';
  console.log(`bench:fairness — SQLite, ${findings.toLocaleString()} findings in A's repository, ${limits}; node ${process.version}, ${os.availableParallelism()} cores`);
  const scratch = await scratchFolder('bulwark-bench-fairness-', false);
  const store = openStore({ databaseUrl: null, dataDir: scratch.dir });
  let seeded: Seeded;
  try {
    await migrateToLatest(store);
    seeded = await seed(store, findings);
  } finally {
    await store.close();
  }
  const bulwark = await startBulwark({ BULWARK_DATA_DIR: scratch.dir }, { serviceLimits: values['service-limits'] });
  try {
    const idle = JSON.parse(await child('--time-me', [String(bulwark.port), String(seconds), ...seeded.keysB]).output) as LoadResult;
    console.log(`  B's /me with A idle:${' '.repeat(38)}p50 ${ms(idle.p50).padStart(5)} ms, p99 ${ms(idle.p99).padStart(5)} ms`);
    for (const count of readerCounts) {
      const keys = seeded.keysA.slice(0, Math.max(1, Math.min(seeded.keysA.length, Math.ceil(count / PER_KEY))));
      const readers = child('--read-deep', [String(bulwark.port), seeded.repoA, String(findings), String(count), ...keys]);
      await new Promise((r) => setTimeout(r, 500));
      const me = JSON.parse(await child('--time-me', [String(bulwark.port), String(seconds), ...seeded.keysB]).output) as LoadResult;
      readers.process.kill('SIGTERM');
      const { reads, refused } = JSON.parse((await readers.output) || '{"reads":0,"refused":0}') as { reads: number; refused: number };
      const label = `B's /me while ${count} clients of A (${keys.length} key${keys.length === 1 ? '' : 's'}) read random deep pages:`;
      console.log(
        `  ${label.padEnd(58)}p50 ${ms(me.p50).padStart(5)} ms, p99 ${ms(me.p99).padStart(5)} ms${me.errors ? ` (${me.errors} errors)` : ''}; ` +
          `A read ${(reads / (seconds + 1.5)).toFixed(0)} pages/s${refused ? `, ${refused} refused` : ''}`,
      );
    }
  } finally {
    await stop(bulwark.child);
    scratch.cleanup();
  }
}

if (process.argv[2] === '--read-deep') {
  await deepReaders(process.argv.slice(3));
} else if (process.argv[2] === '--time-me') {
  await timeMe(process.argv.slice(3));
} else {
  await main();
}
