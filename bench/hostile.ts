// What a hostile repository makes the server do, under the scan budgets (BULWARK_SCAN_MAX_*).
//
//   npm run bench:hostile [-- --lock-mb 50 --tree-files 100000 --types secrets_scan,sbom_scan,semgrep_scan --minutes 15 --keep]
//
// Builds two repositories in a temporary folder: one of a few MB holding a package-lock.json of
// --lock-mb MB (many small entries, which git compresses well), and a tree bomb naming --tree-files
// files through reused objects (one blob holding a credential, a tree of 100 entries of it, trees of
// trees of those), under a kilobyte of objects. A real `bulwark serve` (API and worker in one process,
// the Node flags of `npm start`) runs on a fresh SQLite data folder with local repositories allowed;
// one organization registers both repositories and scans each with every --types scan type, while a
// second organization's key calls /me in a loop (one call at a time, 20 ms apart). It prints the
// server's peak RSS (VmHWM), the other organization's /me p50 and p99 over the scans, and each scan's
// status, findings stored and warnings. Figures are printed, never asserted; all traffic stays on
// 127.0.0.1; it stops after --minutes at the latest and removes its folder unless --keep.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApiKey } from '../src/core/api-keys.ts';
import { createOrganization } from '../src/core/organizations.ts';
import { SCOPES } from '../src/core/scopes.ts';
import { addUnit } from '../src/core/units.ts';
import { cloneUrlPolicyOf, loadSettings } from '../src/config.ts';
import { loadTokenBox } from '../src/crypto/token-box.ts';
import { SECRET_RULES } from '../src/scanning/secrets/rules.ts';
import { openStore } from '../src/store/database.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { positiveSample } from '../test/support/secret-samples.ts';
import { scratchFolder } from './scratch.ts';
import { startBulwark, stop, type Server } from './serve.ts';

const { values: args } = parseArgs({
  options: {
    'lock-mb': { type: 'string', default: '50' },
    'tree-files': { type: 'string', default: '100000' },
    types: { type: 'string', default: 'secrets_scan,sbom_scan,semgrep_scan' },
    minutes: { type: 'string', default: '15' },
    keep: { type: 'boolean', default: false },
  },
});
const lockBytes = Number(args['lock-mb']) * 1024 * 1024;
const treeFiles = Number(args['tree-files']);
const scanTypes = args.types.split(',');
const deadline = Date.now() + Number(args.minutes) * 60_000;

/** A package-lock.json of about `bytes`, its entries unlike each other only in name and hashes. */
function hugeLock(bytes: number): string {
  const entries: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const name = `pkg-${i.toString(36)}`;
    const entry = `    "node_modules/${name}": {\n      "version": "1.0.${i % 50}",\n      "resolved": "https://registry.npmjs.org/${name}/-/${name}-1.0.${i % 50}.tgz",\n      "integrity": "sha512-${Buffer.from(`${name}${i}`).toString('base64').padEnd(86, 'A')}==",\n      "license": "MIT"\n    }`;
    entries.push(entry);
    size += entry.length + 2;
  }
  return `{\n  "name": "lock-bomb",\n  "lockfileVersion": 3,\n  "requires": true,\n  "packages": {\n    "": { "name": "lock-bomb", "version": "1.0.0" },\n${entries.join(',\n')}\n  }\n}\n`;
}

const git = (cwd: string, gitArgs: string[], input = '') =>
  execFileSync('git', gitArgs, { cwd, input, encoding: 'utf8', maxBuffer: 1024 ** 3, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } }).trim();

/** A git repository at `dir` whose main branch holds `files` in one commit. */
function newRepo(dir: string, files: Record<string, string> = {}): string {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, ['init', '--quiet', '--initial-branch', 'main']);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  if (Object.keys(files).length) {
    git(dir, ['add', '--all']);
    git(dir, ['-c', 'user.email=bench@example.test', '-c', 'user.name=bench', 'commit', '--quiet', '-m', 'add']);
  }
  return dir;
}

/** A commit naming `files` files through reused objects: one blob, trees of 100 entries of trees. */
function treeBomb(dir: string, files: number): void {
  const mk = (input: string, ...gitArgs: string[]) => git(dir, gitArgs, input);
  const blob = mk(`STRIPE_KEY=${positiveSample(SECRET_RULES.find((r) => r.id === 'stripe-secret-key')!, 7)}\n`, 'hash-object', '-w', '--stdin');
  let object = blob;
  let kind = 'blob';
  let mode = '100644';
  let covered = 1;
  for (let level = 0; covered < files; level++) {
    const width = Math.min(100, Math.ceil(files / covered));
    const lines = Array.from({ length: width }, (_, i) => `${mode} ${kind} ${object}\t${kind === 'blob' ? `f${i}.env` : `d${level}-${i}`}`);
    object = mk(`${lines.join('\n')}\n`, 'mktree');
    covered *= width;
    kind = 'tree';
    mode = '040000';
  }
  const commit = mk('', '-c', 'user.email=bench@example.test', '-c', 'user.name=bench', 'commit-tree', object, '-m', 'tree bomb');
  mk('', 'update-ref', 'refs/heads/main', commit);
}

function get(port: number, p: string, key: string, agent: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: p, agent, headers: { authorization: `Bearer ${key}` } }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (c: string) => (body += c));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

function peakRssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

async function main() {
  const { dir, cleanup } = await scratchFolder('bulwark-bench-hostile-', args.keep);
  let server: Server | undefined;
  try {
    const dataDir = path.join(dir, 'data');
    const reposRoot = path.join(dir, 'repos');
    fs.mkdirSync(reposRoot, { recursive: true });
    const env = {
      BULWARK_DATA_DIR: dataDir,
      BULWARK_ALLOW_LOCAL_REPOS: 'true',
      BULWARK_LOCAL_REPOS_ROOT: reposRoot,
    };

    const lock = hugeLock(lockBytes);
    const lockRepo = newRepo(path.join(reposRoot, 'lock-bomb'), { 'package.json': '{ "name": "lock-bomb", "version": "1.0.0" }\n', 'package-lock.json': lock });
    git(lockRepo, ['gc', '--quiet']);
    const packed = Number(/size-pack: (\d+)/.exec(git(lockRepo, ['count-objects', '-v']))?.[1] ?? 0);
    console.log(`lock bomb: package-lock.json of ${(lock.length / 1024 / 1024).toFixed(1)} MB, packed repository ${(packed / 1024).toFixed(1)} MB`);
    const treeRepo = newRepo(path.join(reposRoot, 'tree-bomb'));
    treeBomb(treeRepo, treeFiles);
    const entries = git(treeRepo, ['ls-tree', '-r', '--name-only', 'main']).split('\n').filter(Boolean).length;
    console.log(`tree bomb: ${entries.toLocaleString()} files, repository ${execFileSync('du', ['-sh', path.join(treeRepo, '.git')], { encoding: 'utf8' }).split('\t')[0]}`);

    const store = openStore({ databaseUrl: null, dataDir });
    await migrateToLatest(store);
    const hostile = await createOrganization(store.db, { name: 'Hostile', slug: 'hostile' });
    const bystander = await createOrganization(store.db, { name: 'Bystander', slug: 'bystander' });
    const hostileKey = (await createApiKey(store.db, { orgId: hostile.id, name: 'bench', scopes: [...SCOPES] })).key;
    const bystanderKey = (await createApiKey(store.db, { orgId: bystander.id, name: 'bench', scopes: [...SCOPES] })).key;
    const policy = cloneUrlPolicyOf(loadSettings({ ...process.env, ...env }));
    const tokenBox = loadTokenBox(null, dataDir);
    const units: { id: string; name: string }[] = [];
    for (const repo of [lockRepo, treeRepo]) {
      const name = `bench/${path.basename(repo)}`;
      units.push(
        await addUnit(store.db, tokenBox, { orgId: hostile.id, name, sources: [{ provider: 'github', fullName: name, branch: 'main', cloneUrl: repo }] }, policy),
      );
    }
    await store.close();

    server = await startBulwark(env, { worker: true });
    const port = server.port;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const pollAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const latencies: number[] = [];
    let failures = 0;
    let timing = true;
    const timer = (async () => {
      while (timing) {
        const started = performance.now();
        const answer = await get(port, '/api/v1/me', bystanderKey, agent).catch(() => null);
        if (answer?.status === 200) latencies.push(performance.now() - started);
        else failures++;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    const post = async (unitId: string, scanType: string) => {
      const answer = await fetch(`http://127.0.0.1:${port}/api/v1/repositories/${unitId}/scans`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hostileKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ scan_type: scanType }),
      });
      if (answer.status !== 202) throw new Error(`${scanType} refused: ${answer.status} ${await answer.text()}`);
      return { unitId, scanType, name: units.find((u) => u.id === unitId)!.name, batchId: ((await answer.json()) as { batch_id: string }).batch_id };
    };
    const started = performance.now();
    const batches = [];
    for (const unit of units) for (const scanType of scanTypes) batches.push(await post(unit.id, scanType));
    const results = new Map<string, { status: string; warnings: string[]; findings?: number; seconds: number }>();
    while (results.size < batches.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      for (const batch of batches) {
        if (results.has(batch.batchId)) continue;
        const answer = await get(port, `/api/v1/repositories/${batch.unitId}/scans/${batch.batchId}/progress`, hostileKey, pollAgent).catch(() => null);
        if (answer?.status !== 200) continue;
        const progress = JSON.parse(answer.body);
        if (!['completed', 'partial_failure', 'failed'].includes(progress.status)) continue;
        const repository = progress.repositories?.[0];
        results.set(batch.batchId, {
          status: progress.status + (repository?.status_reason ? ` (${repository.status_reason})` : ''),
          warnings: progress.warnings ?? [],
          findings: repository?.findings_count ?? undefined,
          seconds: (performance.now() - started) / 1000,
        });
      }
    }
    timing = false;
    await timer;
    const sorted = latencies.sort((a, b) => a - b);
    console.log(`\nserver peak RSS (VmHWM): ${peakRssMb(server.child.pid!).toFixed(0)} MB`);
    console.log(`/me of the other organization during the scans: ${sorted.length} calls (${failures} failed), p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms`);
    for (const batch of batches) {
      const result = results.get(batch.batchId);
      if (!result) {
        console.log(`${batch.name} ${batch.scanType}: not finished within --minutes`);
        continue;
      }
      console.log(`${batch.name} ${batch.scanType}: ${result.status} after ${result.seconds.toFixed(1)} s, findings ${result.findings ?? '?'}`);
      for (const warning of result.warnings) console.log(`    warning: ${warning}`);
    }
    const dbBytes = fs.readdirSync(dataDir).filter((f) => f.startsWith('bulwark.db')).reduce((sum, f) => sum + fs.statSync(path.join(dataDir, f)).size, 0);
    console.log(`database files: ${(dbBytes / 1024 / 1024).toFixed(1)} MB`);
    agent.destroy();
    pollAgent.destroy();
  } finally {
    if (server) await stop(server.child);
    cleanup();
  }
}

await main();
