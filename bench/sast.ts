// Throughput of the SAST engine (`semgrep_scan`) on real code: lines of code per second, files per second,
// seconds per scan (best of --runs), peak RSS, and findings per language.
//
//   npm run bench:sast [-- --mb 40 --runs 3 --scan-seconds 85 --seed 1 --keep]
//
// The corpus is copied from source trees already on the machine, never downloaded: Python from
// /usr/lib/python3* (the standard library), JavaScript and TypeScript from this project's node_modules
// (typescript/lib, fastify, kysely, pg-boss, ajv, …). Files are taken alternately from the two pools, by
// bytes, in a seeded order, up to --mb MiB. Folder names the engine skips (node_modules, vendor, test,
// fixtures, hidden ones) are renamed so every copied file is scanned; test files and files the engine
// would not read (.d.ts, minified, over its size limit) are not copied.
//
// The run is bounded: a first scan of a ~1.5 MiB prefix of the corpus measures the engine's speed, and the
// corpus is cut to what --runs scans can cover in --scan-seconds (--scan-seconds 0: no cut). Runs stop
// early when the next one would overrun. Scans run in a child process so its peak RSS is the engine's own.
// "Analyzed" counts what the engine parses: a file of a language with no loaded rules is walked, not parsed.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isTestPath, loadIgnore, looksBinary, MAX_FILE_BYTES, skipReason, walkFiles } from '../src/engines/source-files.ts';
import { parserFor, ruleLanguageOf, type ParserName } from '../src/languages/index.ts';
import { loadRuleSet } from '../src/engines/sast/rule-set.ts';
import { SastEngine } from '../src/engines/sast/sast-engine.ts';
import { seededRandom } from '../test/support/secret-samples.ts';
import { filesBelow } from './source-tree.ts';

const MiB = 1024 * 1024;
const PROJECT = path.resolve(import.meta.dirname, '..');
const CALIBRATION_BYTES = 1.5 * MiB;

// ---------------------------------------------------------------------------------------------------------
// options

interface Options {
  mb: number;
  runs: number;
  scanSeconds: number;
  seed: number;
  keep: boolean;
}

const USAGE = 'usage: node bench/sast.ts [--mb N] [--runs N] [--scan-seconds N (0: no bound)] [--seed N] [--keep]';

function parseArgs(argv: string[]): Options {
  const options: Options = { mb: 40, runs: 3, scanSeconds: 85, seed: 1, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = (min: number) => {
      const raw = inline ?? argv[++i];
      const n = Number(raw);
      if (raw === undefined || !Number.isFinite(n) || n < min) throw new Error(`${flag} needs a number of at least ${min}`);
      return n;
    };
    if (flag === '--mb') options.mb = value(0.01);
    else if (flag === '--runs') options.runs = Math.max(1, Math.round(value(1)));
    else if (flag === '--scan-seconds') options.scanSeconds = value(0);
    else if (flag === '--seed') options.seed = Math.round(value(0));
    else if (flag === '--keep') options.keep = true;
    else if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument ${arg}\n${USAGE}`);
  }
  return options;
}

// ---------------------------------------------------------------------------------------------------------
// scan worker: `node bench/sast.ts --worker <dir> <runs> <scan seconds> <out.json>`

interface WorkerResult {
  seconds: number[];
  maxRssBytes: number;
  /** Findings of the last run: file and rule. */
  findings: { filePath: string; checkId: string }[];
  notes: number;
}

async function worker(dir: string, runs: number, budgetSeconds: number, out: string): Promise<void> {
  const fingerprintKey = crypto.createHash('sha256').update('bulwark-bench').digest();
  const seconds: number[] = [];
  let findings: WorkerResult['findings'] = [];
  let notes = 0;
  for (let run = 0; run < runs; run++) {
    const spent = seconds.reduce((a, b) => a + b, 0);
    // Stop when one more run (as long as the slowest so far) would overrun the budget.
    if (run > 0 && budgetSeconds > 0 && spent + Math.max(...seconds) > budgetSeconds) break;
    notes = 0;
    const started = performance.now();
    const raw = await new SastEngine().scan({ dir, fingerprintKey, onNote: () => notes++ });
    seconds.push((performance.now() - started) / 1000);
    findings = raw.map((f) => ({ filePath: f.filePath, checkId: f.checkId }));
  }
  const result: WorkerResult = { seconds, maxRssBytes: process.resourceUsage().maxRSS * 1024, findings, notes };
  await fsp.writeFile(out, JSON.stringify(result));
}

function runWorker(dir: string, runs: number, budgetSeconds: number, scratch: string): Promise<WorkerResult> {
  const out = path.join(scratch, `scan-${crypto.randomBytes(4).toString('hex')}.json`);
  return new Promise((resolve, reject) => {
    const args = [import.meta.filename, '--worker', dir, String(runs), String(budgetSeconds), out];
    const child = spawn(process.execPath, args, { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code !== 0) return reject(new Error(`scan worker failed (${signal ?? code})`));
      fsp.readFile(out, 'utf8').then((text) => resolve(JSON.parse(text) as WorkerResult), reject);
    });
  });
}

// ---------------------------------------------------------------------------------------------------------
// corpus

type Pool = 'python' | 'js/ts';

interface Candidate {
  pool: Pool;
  source: string;
  /** Relative to the corpus root, with forward slashes. */
  dest: string;
}

interface Picked extends Candidate {
  size: number;
}

const POOL_EXTENSIONS: Record<Pool, Set<string>> = {
  python: new Set(['py']),
  'js/ts': new Set(['js', 'mjs', 'cjs', 'jsx', 'ts', 'mts', 'cts', 'tsx']),
};
const SKIP_SOURCE_DIRS = new Set(['.git', '.bin', '.cache', '__pycache__']);

function sourceRoots(): { pool: Pool; label: string; dir: string }[] {
  const roots: { pool: Pool; label: string; dir: string }[] = [];
  for (const name of fs.existsSync('/usr/lib') ? fs.readdirSync('/usr/lib').sort() : []) {
    if (/^python3(?:\.\d+)?$/.test(name)) roots.push({ pool: 'python', label: name, dir: path.join('/usr/lib', name) });
  }
  roots.push({ pool: 'js/ts', label: 'npm', dir: path.join(PROJECT, 'node_modules') });
  return roots.filter((r) => fs.existsSync(r.dir));
}

/** Renames folders the engine would not enter; undefined for a file the engine would not scan as is. */
function corpusPath(label: string, relative: string): string | undefined {
  const parts = relative.split(path.sep);
  const base = parts.pop()!;
  if (base.startsWith('.')) return undefined;
  const dirs = parts.map((part) => {
    const name = part.startsWith('.') ? `_${part.slice(1)}` : part;
    const probe = `${name}/file.py`;
    return skipReason(probe) || isTestPath(probe) ? `x_${name}` : name;
  });
  const dest = [label, ...dirs, base].join('/');
  return skipReason(dest) || isTestPath(dest) || !parserFor(dest) ? undefined : dest;
}

async function listCandidates(): Promise<Candidate[]> {
  const found: Candidate[] = [];
  for (const { pool, label, dir } of sourceRoots()) {
    // node_modules/node is the Node.js binary package, not source.
    const descend = (name: string, child: string) => !SKIP_SOURCE_DIRS.has(name) && !(pool === 'js/ts' && child === 'node');
    for await (const child of filesBelow(dir, descend)) {
      const base = path.basename(child);
      const ext = base.includes('.') ? base.split('.').pop()!.toLowerCase() : '';
      if (!POOL_EXTENSIONS[pool].has(ext)) continue;
      const dest = corpusPath(label, child);
      if (dest) found.push({ pool, source: path.join(dir, child), dest });
    }
  }
  return found.sort((a, b) => (a.dest < b.dest ? -1 : a.dest > b.dest ? 1 : 0));
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/**
 * Files in the order they join the corpus, up to `targetBytes`: each time from the pool with fewer bytes so
 * far, so any prefix has the same mix. Duplicates (the same file under two Python versions), binary and
 * over-size files are left out.
 */
async function pickFiles(candidates: Candidate[], targetBytes: number, seed: number): Promise<Picked[]> {
  const random = seededRandom(seed);
  const queues = new Map<Pool, Candidate[]>();
  for (const c of candidates) {
    if (!queues.has(c.pool)) queues.set(c.pool, []);
    queues.get(c.pool)!.push(c);
  }
  for (const queue of queues.values()) shuffle(queue, random);
  const bytes = new Map<Pool, number>([...queues.keys()].map((p) => [p, 0]));
  const seen = new Set<string>();
  const picked: Picked[] = [];
  let total = 0;
  while (total < targetBytes) {
    const pools = [...queues.entries()].filter(([, q]) => q.length).sort(([a], [b]) => bytes.get(a)! - bytes.get(b)!);
    if (!pools.length) break;
    const candidate = pools[0][1].shift()!;
    const buffer = await fsp.readFile(candidate.source);
    if (buffer.length === 0 || buffer.length > MAX_FILE_BYTES || looksBinary(buffer)) continue;
    const digest = crypto.createHash('sha1').update(buffer).digest('hex');
    if (seen.has(digest)) continue;
    seen.add(digest);
    picked.push({ ...candidate, size: buffer.length });
    bytes.set(candidate.pool, bytes.get(candidate.pool)! + buffer.length);
    total += buffer.length;
  }
  return picked;
}

async function copyFiles(root: string, files: Picked[]): Promise<void> {
  for (const file of files) {
    const target = path.join(root, file.dest);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    await fsp.copyFile(file.source, target);
  }
}

/** The longest prefix of `files` of at most `bytes` (at least one file). */
function prefixOf(files: Picked[], bytes: number): Picked[] {
  let total = 0;
  let n = 0;
  while (n < files.length && (n === 0 || total + files[n].size <= bytes)) total += files[n++].size;
  return files.slice(0, n);
}

// ---------------------------------------------------------------------------------------------------------
// what the engine analyzes

interface LanguageStats {
  files: number;
  lines: number;
  bytes: number;
}

/** Files the engine parses in `dir`, by parser, with their non-blank lines: its own walk and checks, run here. */
async function analyzedStats(dir: string, languagesWithRules: Set<string>): Promise<{ analyzed: Map<ParserName, LanguageStats>; walkedOnly: Map<ParserName, number> }> {
  const analyzed = new Map<ParserName, LanguageStats>();
  const walkedOnly = new Map<ParserName, number>();
  const ignored = await loadIgnore(dir);
  for await (const file of walkFiles(dir, ignored)) {
    const parser = parserFor(file);
    if (!parser || isTestPath(file)) continue;
    const buffer = await fsp.readFile(path.join(dir, file));
    if (buffer.length === 0 || buffer.length > MAX_FILE_BYTES || looksBinary(buffer)) continue;
    if (!languagesWithRules.has(ruleLanguageOf(parser))) {
      walkedOnly.set(parser, (walkedOnly.get(parser) ?? 0) + 1);
      continue;
    }
    const lines = buffer.toString('utf8').split('\n').filter((line) => line.trim() !== '').length;
    const stats = analyzed.get(parser) ?? { files: 0, lines: 0, bytes: 0 };
    analyzed.set(parser, { files: stats.files + 1, lines: stats.lines + lines, bytes: stats.bytes + buffer.length });
  }
  return { analyzed, walkedOnly };
}

// ---------------------------------------------------------------------------------------------------------
// report

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const mib = (bytes: number) => `${fmt(bytes / MiB, 1)} MiB`;

function countBy<T>(items: T[], key: (item: T) => string): [string, number][] {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const benchStarted = performance.now();
  const scratch = await fsp.mkdtemp(path.join(os.tmpdir(), 'bulwark-bench-sast-'));
  const corpus = path.join(scratch, 'corpus');
  const cleanup = () => fs.rmSync(scratch, { recursive: true, force: true });
  const onSignal = () => {
    if (!options.keep) cleanup();
    process.exit(130);
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    const ruleSet = loadRuleSet();
    const languagesWithRules = new Set<string>(ruleSet.rules.map((r) => r.language));
    console.log(`bench:sast — node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}`);
    console.log(`rules: ${ruleSet.rules.length} (${countBy(ruleSet.rules, (r) => r.language).map(([l, n]) => `${l} ${n}`).join(', ')})`);

    const listed = performance.now();
    const candidates = await listCandidates();
    const picked = await pickFiles(candidates, options.mb * MiB, options.seed);
    const pickedBytes = picked.reduce((sum, f) => sum + f.size, 0);
    const byPool = (files: Picked[]) =>
      countBy(files, (f) => f.pool).map(([pool, n]) => `${pool} ${fmt(n)} files ${mib(files.filter((f) => f.pool === pool).reduce((s, f) => s + f.size, 0))}`);
    console.log(
      `corpus: ${mib(pickedBytes)} of --mb ${options.mb} picked from ${fmt(candidates.length)} candidate files ` +
        `(${byPool(picked).join(', ')}) in ${fmt((performance.now() - listed) / 1000, 1)} s`,
    );
    if (!picked.length) throw new Error('no source files found under /usr/lib/python3* or node_modules');

    // Calibration: one scan of a prefix, to cut the corpus to what the runs can cover in the time budget.
    let chosen = picked;
    if (options.scanSeconds > 0 && pickedBytes > CALIBRATION_BYTES) {
      const sample = prefixOf(picked, CALIBRATION_BYTES);
      const sampleBytes = sample.reduce((sum, f) => sum + f.size, 0);
      await copyFiles(corpus, sample);
      const calibration = await runWorker(corpus, 1, 0, scratch);
      const bytesPerSecond = sampleBytes / Math.max(calibration.seconds[0], 1e-3);
      // Two runs' worth of slack: the cost per byte varies from file to file (later prefixes have run ~1.5×
      // slower per byte than the sample), so the estimate is rough.
      const affordable = (bytesPerSecond * options.scanSeconds) / (options.runs + 2);
      console.log(`calibration: ${mib(sampleBytes)} scanned in ${fmt(calibration.seconds[0], 2)} s (${mib(bytesPerSecond)}/s, cold)`);
      if (affordable < pickedBytes) {
        chosen = prefixOf(picked, Math.max(affordable, sampleBytes));
        console.log(
          `bounded: ${options.runs} runs of ${mib(pickedBytes)} would take ~${fmt((pickedBytes / bytesPerSecond) * options.runs)} s; ` +
            `scanning the first ${mib(chosen.reduce((s, f) => s + f.size, 0))} (same mix) to stay within --scan-seconds ${options.scanSeconds}`,
        );
      }
      await copyFiles(corpus, chosen.slice(sample.length));
    } else {
      await copyFiles(corpus, chosen);
    }

    const { analyzed, walkedOnly } = await analyzedStats(corpus, languagesWithRules);
    const totals = [...analyzed.values()].reduce((a, s) => ({ files: a.files + s.files, lines: a.lines + s.lines, bytes: a.bytes + s.bytes }), { files: 0, lines: 0, bytes: 0 });
    console.log(
      `scanned tree: ${fmt(chosen.length)} files, ${mib(chosen.reduce((s, f) => s + f.size, 0))} (${byPool(chosen).join(', ')})`,
    );
    console.log(
      `analyzed: ${fmt(totals.files)} files, ${fmt(totals.lines)} non-blank lines, ${mib(totals.bytes)} — ` +
        [...analyzed.entries()].map(([p, s]) => `${p} ${fmt(s.files)} files ${fmt(s.lines)} lines`).join(', '),
    );
    if (walkedOnly.size) {
      const list = [...walkedOnly.entries()].map(([p, n]) => `${p} ${fmt(n)}`).join(', ');
      console.log(`walked, not parsed (no rules for their language): ${list} files`);
    }

    const remaining = options.scanSeconds > 0 ? options.scanSeconds : 0;
    const result = await runWorker(corpus, options.runs, remaining, scratch);
    const best = Math.min(...result.seconds);
    console.log(`runs: ${result.seconds.map((s) => `${fmt(s, 2)} s`).join(', ')} → best of ${result.seconds.length}: ${fmt(best, 2)} s`);
    console.log(`throughput: ${fmt(totals.lines / best)} lines/s, ${fmt(totals.files / best, 1)} files/s, ${mib(totals.bytes / best)}/s`);
    console.log(`peak RSS: ${mib(result.maxRssBytes)}`);
    const languageOf = (file: string) => {
      const parser = parserFor(file);
      return parser ? ruleLanguageOf(parser) : 'other';
    };
    const perLanguage = countBy(result.findings, (f) => languageOf(f.filePath));
    const languages = [...new Set([...languagesWithRules, ...perLanguage.map(([l]) => l)])].sort();
    const counts = new Map(perLanguage);
    console.log(`findings: ${fmt(result.findings.length)} — ${languages.map((l) => `${l} ${fmt(counts.get(l) ?? 0)}`).join(', ')}`);
    const top = countBy(result.findings, (f) => f.checkId).slice(0, 5);
    if (top.length) console.log(`top rules: ${top.map(([id, n]) => `${id} ${fmt(n)}`).join(', ')}`);
    if (result.notes) console.log(`notes: ${fmt(result.notes)} (files that could not be analyzed)`);
    console.log(`total bench time: ${fmt((performance.now() - benchStarted) / 1000, 1)} s${options.keep ? `; corpus kept at ${corpus}` : ''}`);
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    if (!options.keep) cleanup();
  }
}

if (process.argv[2] === '--worker') {
  const [, , , dir, runs, budget, out] = process.argv;
  await worker(dir, Number(runs), Number(budget), out);
} else {
  await main();
}
