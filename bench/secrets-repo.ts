// Benchmark of the secrets engine on one large git repository, the way a server scan reads it: the whole
// tree, then the text every commit of the history added (BULWARK_SECRETS_HISTORY_DEPTH, 500 by default),
// on the engine's thread pool. It prints wall time, throughput and the scan process's peak RSS, and checks
// that credentials planted in the tree and in files that only history holds are all found.
//
//   npm run bench:secrets-repo [-- --gb 1 --depth 500 --seed 1 --keep]
//
// The repository is built from source trees already on the machine (see source-tree.ts), copied into as
// many parts as it takes to reach the size asked for. Every part's files differ from the other parts' by
// trailing newlines, so git stores (and the engine reads) each copy as its own blob. History: one commit
// imports all parts but the last; a folder with more credentials is committed and then removed, so those
// exist only in history; the last part lands over twenty commits that also edit earlier files.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { detectSecrets } from '../src/scanning/secrets/detector.ts';
import { SECRET_RULES } from '../src/scanning/secrets/rules.ts';
import { SecretsEngine } from '../src/scanning/secrets/secrets-engine.ts';
import { looksBinary } from '../src/scanning/source-files.ts';
import { positiveSample, seededRandom } from '../test/support/secret-samples.ts';
import { scratchFolder } from './scratch.ts';
import { listCorpusSources } from './source-tree.ts';

const MiB = 1024 * 1024;
const PROJECT = path.resolve(import.meta.dirname, '..');
const SLICE_COMMITS = 20;
const EDITS_PER_SLICE = 50;
/** The share of the source set copied into the folder that is committed and then removed. */
const RETIRED_SHARE = 0.25;

interface Options {
  gb: number;
  depth: number;
  seed: number;
  keep: boolean;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { gb: 1, depth: 500, seed: 1, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const raw = argv[++i];
      const n = Number(raw);
      if (raw === undefined || !Number.isFinite(n) || n <= 0) throw new Error(`${flag} needs a positive number`);
      return n;
    };
    if (flag === '--gb') options.gb = value();
    else if (flag === '--depth') options.depth = Math.round(value());
    else if (flag === '--seed') options.seed = Math.round(value());
    else if (flag === '--keep') options.keep = true;
    else {
      console.log('usage: node bench/secrets-repo.ts [--gb N] [--depth N] [--seed N] [--keep]');
      process.exit(flag === '--help' ? 0 : 2);
    }
  }
  return options;
}

// ---------------------------------------------------------------------------------------------------------
// the repository

interface Plant {
  rule: string;
  file: string;
  /** 1-based, inclusive: the inserted lines in the file. */
  startLine: number;
  endLine: number;
  inHistoryOnly: boolean;
}

function git(repo: string, args: string[], input?: string): string {
  const result = spawnSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    input,
    maxBuffer: 64 * MiB,
    env: { ...process.env, GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.test', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.test' },
  });
  if (result.status !== 0) throw new Error(`git ${args[0]} failed: ${result.stderr}`);
  return result.stdout.trim();
}

function commitAll(repo: string, message: string): void {
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '--no-verify', '-m', message]);
}

/** Each rule's sample lines, keeping only those the detector finds on their own (this bench measures scale, not contexts). */
function samples(seed: number, round: number): { rule: string; lines: string[] }[] {
  const out: { rule: string; lines: string[] }[] = [];
  SECRET_RULES.forEach((rule, index) => {
    const sample = positiveSample(rule, (seed * 1000 + index) * 100 + 90 + round);
    if (detectSecrets(sample).some((m) => m.rule.id === rule.id)) out.push({ rule: rule.id, lines: sample.split('\n') });
  });
  return out;
}

/** Inserts sample lines at random places of the given files, recording where each went. */
async function plant(repo: string, files: string[], items: { rule: string; lines: string[] }[], random: () => number, inHistoryOnly: boolean): Promise<Plant[]> {
  const byFile = new Map<string, { rule: string; lines: string[] }[]>();
  items.forEach((item, i) => {
    const file = files[Math.floor(random() * files.length)] ?? files[i % files.length];
    byFile.set(file, [...(byFile.get(file) ?? []), item]);
  });
  const plants: Plant[] = [];
  for (const [file, list] of byFile) {
    const absolute = path.join(repo, file);
    const lines = (await fsp.readFile(absolute, 'utf8')).split('\n');
    const at = Math.floor(random() * (lines.length + 1));
    const inserted: string[] = [];
    for (const item of list) {
      const startLine = at + inserted.length + 1;
      inserted.push(...item.lines);
      plants.push({ rule: item.rule, file, startLine, endLine: at + inserted.length, inHistoryOnly });
    }
    lines.splice(at, 0, ...inserted);
    await fsp.writeFile(absolute, lines.join('\n'));
  }
  return plants;
}

interface BuiltRepo {
  commit: string;
  treeBytes: number;
  treeFiles: number;
  historyBytes: number;
  commits: number;
  plants: Plant[];
}

async function buildRepository(repo: string, options: Options): Promise<BuiltRepo> {
  const random = seededRandom(options.seed);
  const sources = await listCorpusSources(PROJECT);
  // One copy of each distinct text (nested node_modules hold the same package many times).
  const seen = new Set<string>();
  const distinct: { dest: string; buffer: Buffer }[] = [];
  let setBytes = 0;
  for (const source of sources) {
    const buffer = await fsp.readFile(source.source);
    if (looksBinary(buffer)) continue;
    const digest = crypto.createHash('sha1').update(buffer).digest('hex');
    if (seen.has(digest)) continue;
    seen.add(digest);
    distinct.push({ dest: source.dest, buffer });
    setBytes += buffer.length;
  }
  const parts = Math.max(2, Math.ceil((options.gb * 1024 * MiB) / setBytes));
  console.log(`source set: ${distinct.length} distinct files, ${(setBytes / MiB).toFixed(1)} MB; ${parts} parts`);

  git(repo, ['init', '-q', '-b', 'main']);
  const writePart = async (folder: string, variant: number, share = 1) => {
    const written: string[] = [];
    for (const file of distinct) {
      if (share < 1 && random() >= share) continue;
      const relative = `${folder}/${file.dest}`;
      await fsp.mkdir(path.join(repo, path.dirname(relative)), { recursive: true });
      await fsp.writeFile(path.join(repo, relative), variant ? Buffer.concat([file.buffer, Buffer.from('\n'.repeat(variant))]) : file.buffer);
      written.push(relative);
    }
    return written;
  };

  const started = performance.now();
  const plants: Plant[] = [];
  const imported: string[] = [];
  for (let part = 0; part < parts - 1; part++) imported.push(...(await writePart(`part-${part}`, part)));
  plants.push(...(await plant(repo, imported, samples(options.seed, 0), random, false)));
  commitAll(repo, 'Import');
  let historyBytes = imported.length ? setBytes * (parts - 1) : 0;

  const retired = await writePart('retired', parts, RETIRED_SHARE);
  plants.push(...(await plant(repo, retired, samples(options.seed, 1), random, true)));
  commitAll(repo, 'Add retired copies');
  git(repo, ['rm', '-r', '-q', 'retired']);
  git(repo, ['commit', '-q', '--no-verify', '-m', 'Remove retired copies']);
  historyBytes += setBytes * RETIRED_SHARE;

  const last = await writePart(`part-${parts - 1}`, parts - 1);
  // The last part is committed in slices, planted afresh so its credentials are new in the commit that adds them.
  plants.push(...(await plant(repo, last, samples(options.seed, 2), random, false)));
  for (let slice = 0; slice < SLICE_COMMITS; slice++) {
    const from = Math.floor((slice * last.length) / SLICE_COMMITS);
    const to = Math.floor(((slice + 1) * last.length) / SLICE_COMMITS);
    const edited: string[] = [];
    for (let edit = 0; edit < EDITS_PER_SLICE; edit++) {
      const file = imported[Math.floor(random() * imported.length)];
      await fsp.appendFile(path.join(repo, file), `\nedited in slice ${slice}\n`);
      edited.push(file);
    }
    // One `git add` for the slice and the edits: the new files and the edited ones, NUL-separated.
    git(repo, ['add', '--pathspec-from-file=-', '--pathspec-file-nul'], [...last.slice(from, to), ...edited].join('\0'));
    git(repo, ['commit', '-q', '--no-verify', '-m', `Add slice ${slice + 1} of the last part`]);
  }
  historyBytes += setBytes;
  const commit = git(repo, ['rev-parse', 'HEAD']);
  console.log(`repository built in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return {
    commit,
    treeBytes: setBytes * parts,
    treeFiles: distinct.length * parts,
    historyBytes,
    commits: 3 + SLICE_COMMITS,
    plants,
  };
}

// ---------------------------------------------------------------------------------------------------------
// the scan, in a child process so its peak RSS is the engine's own

interface ScanResult {
  seconds: number;
  maxRssBytes: number;
  findings: { rule: string; filePath: string; startLine: number; location: string }[];
}

async function worker(repo: string, commit: string, depth: number, out: string): Promise<void> {
  const started = performance.now();
  const raw = await new SecretsEngine({ historyDepth: depth }).scan({
    dir: repo,
    gitDir: path.join(repo, '.git'),
    commit,
    fingerprintKey: crypto.createHash('sha256').update('bulwark-bench').digest(),
  });
  const result: ScanResult = {
    seconds: (performance.now() - started) / 1000,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    findings: raw.map((f) => ({ rule: String(f.metadata.rule), filePath: f.filePath, startLine: f.startLine, location: String(f.metadata.location) })),
  };
  await fsp.writeFile(out, JSON.stringify(result));
  process.exit(0); // the engine pool's threads would keep the process alive
}

function runWorker(repo: string, commit: string, depth: number, out: string): Promise<ScanResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [import.meta.filename, '--worker', repo, commit, String(depth), out], { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code !== 0) return reject(new Error(`scan worker failed (${signal ?? code})`));
      fsp.readFile(out, 'utf8').then((text) => resolve(JSON.parse(text) as ScanResult), reject);
    });
  });
}

// ---------------------------------------------------------------------------------------------------------

const mb = (bytes: number) => bytes / MiB;

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const { dir: scratch, cleanup } = await scratchFolder('bulwark-bench-secrets-repo-', options.keep);
  try {
    const repo = path.join(scratch, 'repo');
    await fsp.mkdir(repo);
    console.log(`secrets repository benchmark: ${options.gb} GB target, history depth ${options.depth}`);
    const built = await buildRepository(repo, options);
    const scan = await runWorker(repo, built.commit, options.depth, path.join(scratch, 'scan.json'));

    const found = (p: Plant) =>
      scan.findings.some((f) => f.rule === p.rule && f.filePath === p.file && f.startLine >= p.startLine && f.startLine <= p.endLine &&
        (p.inHistoryOnly ? f.location === 'history' : f.location !== 'history'));
    const treePlants = built.plants.filter((p) => !p.inHistoryOnly);
    const historyPlants = built.plants.filter((p) => p.inHistoryOnly);
    const treeFound = treePlants.filter(found).length;
    const historyFound = historyPlants.filter(found).length;
    const plantedFiles = new Set(built.plants.map((p) => p.file));
    const unplanted = scan.findings.filter((f) => !built.plants.some((p) => p.file === f.filePath && f.startLine >= p.startLine && f.startLine <= p.endLine) && !plantedFiles.has(f.filePath));
    const scannedBytes = built.treeBytes + built.historyBytes;
    const rows: [string, string][] = [
      ['repository', `${built.treeFiles} files, ${mb(built.treeBytes).toFixed(0)} MB in the tree; ${built.commits} commits adding ${mb(built.historyBytes).toFixed(0)} MB`],
      ['scan', `${scan.seconds.toFixed(1)} s for tree and history, ${(mb(scannedBytes) / scan.seconds).toFixed(1)} MB/s on ${os.availableParallelism()} cores`],
      ['peak RSS', `${mb(scan.maxRssBytes).toFixed(0)} MB (scan process, engine threads included)`],
      ['planted in the tree', `${treeFound}/${treePlants.length} found`],
      ['planted, history only', `${historyFound}/${historyPlants.length} found, as history`],
      ['other findings', `${unplanted.length} in files with nothing planted (${(unplanted.length / mb(scannedBytes)).toFixed(3)} per MB read)`],
    ];
    const width = Math.max(...rows.map(([k]) => k.length));
    console.log(`\n${rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join('\n')}`);
    if (options.keep) console.log(`\nkept: ${scratch}`);
  } finally {
    cleanup();
  }
}

if (process.argv[2] === '--worker') {
  await worker(process.argv[3], process.argv[4], Number(process.argv[5]), process.argv[6]);
} else {
  await main();
}
