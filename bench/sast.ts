// Throughput of the SAST engine (`semgrep_scan`) on real code, next to ast-grep's CLI scanning the same
// files with comparable rules: lines per second (wall clock, and per core from CPU time), seconds per scan
// (best of --runs), peak RSS, at 1×, 2× and 4× the corpus (to show how time grows with size), and an
// unchanged rescan against the first scan with the result cache on, and last a deep_ai_scan (no model) of the
// largest corpus on one engine thread. Figures are printed, never asserted.
//
//   npm run bench:sast [-- --mb 3 --runs 2 --scales 1,2,4 --seed 1 --keep]
//
// The corpus is copied from source trees already on the machine, never downloaded: Python from
// /usr/lib/python3* (the standard library), JavaScript and TypeScript from this project's node_modules
// (typescript/lib, fastify, kysely, pg-boss, ajv, …). Files are taken alternately from the two pools, by
// bytes, in a seeded order; the corpus at scale k is the first k × --mb MiB of that order, so every scale has
// the same mix and the larger ones hold the smaller. Folder names the engine skips (node_modules, vendor,
// test, fixtures, hidden ones) are renamed so every copied file is scanned; test files and files the engine
// would not read (.d.ts, minified by name or by line length, over its size limits) are not copied.
//
// ast-grep (the @ast-grep/cli devDependency) runs every pattern rule of the rule set and, for each taint
// rule, its sinks as one rule: what it can run of the same rules, without taint tracking. The two scanners
// take turns on each corpus, Bulwark first. Both use every core. Scans run in a child process (ast-grep
// under /usr/bin/time) so each peak RSS is the scanner's own. "Analyzed" counts what the engine parses.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { isTestPath, loadIgnore, looksBinary, MAX_FILE_BYTES, skipReason, walkFiles } from '../src/scanning/source-files.ts';
import { parserFor, ruleLanguageOf, type ParserName } from '../src/languages/index.ts';
import { loadRuleSet, type RuleSet } from '../src/scanning/sast/rule-set.ts';
import { SastEngine } from '../src/scanning/sast/sast-engine.ts';
import { looksMinified, MAX_SCRIPT_BYTES } from '../src/scanning/sast/analyze-files.ts';
import { seededRandom } from '../test/support/secret-samples.ts';
import { filesBelow } from './source-tree.ts';

const MiB = 1024 * 1024;
const PROJECT = path.resolve(import.meta.dirname, '..');
const AST_GREP = path.join(PROJECT, 'node_modules', '.bin', 'ast-grep');
const TIME = '/usr/bin/time';

// ---------------------------------------------------------------------------------------------------------
// options

interface Options {
  mb: number;
  runs: number;
  scales: number[];
  seed: number;
  keep: boolean;
}

const USAGE = 'usage: node bench/sast.ts [--mb N] [--runs N] [--scales 1,2,4] [--seed N] [--keep]';

function parseArgs(argv: string[]): Options {
  const options: Options = { mb: 3, runs: 2, scales: [1, 2, 4], seed: 1, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const raw = () => {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new Error(`${flag} needs a value`);
      return value;
    };
    const value = (min: number) => {
      const n = Number(raw());
      if (!Number.isFinite(n) || n < min) throw new Error(`${flag} needs a number of at least ${min}`);
      return n;
    };
    if (flag === '--mb') options.mb = value(0.01);
    else if (flag === '--runs') options.runs = Math.max(1, Math.round(value(1)));
    else if (flag === '--scales') {
      options.scales = raw().split(',').map(Number);
      if (!options.scales.length || options.scales.some((n) => !Number.isFinite(n) || n <= 0)) throw new Error('--scales needs positive numbers, e.g. 1,2,4');
    } else if (flag === '--seed') options.seed = Math.round(value(0));
    else if (flag === '--keep') options.keep = true;
    else if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument ${arg}\n${USAGE}`);
  }
  return options;
}

// ---------------------------------------------------------------------------------------------------------
// Bulwark scan in a child process: `node bench/sast.ts --worker <dir> <cache dir or -> <out.json>`

interface ScanResult {
  seconds: number;
  cpuSeconds: number;
  maxRssBytes: number;
  /** Findings: file and rule. */
  findings: { filePath: string; checkId: string }[];
  notes: number;
}

async function worker(dir: string, cacheDir: string, out: string, deep: boolean): Promise<void> {
  const fingerprintKey = crypto.createHash('sha256').update('bulwark-bench').digest();
  let notes = 0;
  const sast = new SastEngine({ cacheDir: cacheDir === '-' ? null : cacheDir });
  const engine = deep ? new (await import('../src/scanning/deep/deep-engine.ts')).DeepEngine(sast) : sast;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const raw = await engine.scan({ dir, fingerprintKey, onNote: () => notes++ });
  const used = process.cpuUsage(cpu);
  const result: ScanResult = {
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    findings: raw.map((f) => ({ filePath: f.filePath, checkId: f.checkId })),
    notes,
  };
  await fsp.writeFile(out, JSON.stringify(result));
}

function child(command: string, args: string[], options: { stdout?: string; env?: Record<string, string> } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = options.stdout ? fs.openSync(options.stdout, 'w') : 'ignore';
    const proc = spawn(command, args, { stdio: ['ignore', out, 'inherit'], env: { ...process.env, ...options.env } });
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (typeof out === 'number') fs.closeSync(out);
      if (code !== 0) reject(new Error(`${path.basename(command)} ${args[0] ?? ''} failed (${signal ?? code})`));
      else resolve();
    });
  });
}

async function scanBulwark(dir: string, cacheDir: string | null, scratch: string, deep = false): Promise<ScanResult> {
  const out = path.join(scratch, `scan-${crypto.randomBytes(4).toString('hex')}.json`);
  await child(process.execPath, [import.meta.filename, deep ? '--deep-worker' : '--worker', dir, cacheDir ?? '-', out], deep ? { env: { BULWARK_ENGINE_THREADS: '1' } } : {});
  return JSON.parse(await fsp.readFile(out, 'utf8')) as ScanResult;
}

// ---------------------------------------------------------------------------------------------------------
// ast-grep with comparable rules

const AST_GREP_LANGUAGES: Partial<Record<ParserName, string>> = { python: 'Python', javascript: 'JavaScript', typescript: 'TypeScript', tsx: 'Tsx' };

/**
 * An sgconfig.yml with the rule set's pattern rules and, per taint rule, its sinks as one rule, for every
 * parser of the corpus. Rules ast-grep refuses for a dialect are dropped (as Bulwark drops them).
 */
async function astGrepRules(ruleSet: RuleSet, dir: string): Promise<{ config: string; rules: number }> {
  const rulesDir = path.join(dir, 'rules');
  const empty = path.join(dir, 'empty');
  await fsp.mkdir(rulesDir, { recursive: true });
  await fsp.mkdir(empty, { recursive: true });
  let rules = 0;
  for (const [parser, language] of Object.entries(AST_GREP_LANGUAGES) as [ParserName, string][]) {
    for (const rule of ruleSet.rules.filter((r) => r.language === ruleLanguageOf(parser))) {
      const body = rule.mode === 'pattern' ? rule.rule : rule.mode === 'taint' ? { any: rule.sinks.map((s) => s.rule) } : undefined;
      if (!body) continue;
      const doc = { id: `${rule.id}.${parser}`, language, severity: 'warning', message: rule.id, rule: body, ...(rule.constraints ? { constraints: rule.constraints } : {}) };
      const file = path.join(rulesDir, `${rule.id}.${parser}.yml`);
      await fsp.writeFile(file, YAML.stringify(doc));
      // A node kind one dialect lacks (JSX in plain TypeScript) makes ast-grep refuse the whole config.
      if (spawnSync(AST_GREP, ['scan', '--rule', file, empty], { stdio: 'ignore' }).status !== 0) {
        await fsp.rm(file);
        continue;
      }
      rules++;
    }
  }
  const config = path.join(dir, 'sgconfig.yml');
  await fsp.writeFile(config, YAML.stringify({ ruleDirs: ['rules'] }));
  return { config, rules };
}

interface AstGrepResult {
  seconds: number;
  /** User and system CPU time of the process, all its threads. */
  cpuSeconds: number;
  maxRssBytes: number;
  matches: number;
}

async function scanAstGrep(config: string, dir: string, scratch: string): Promise<AstGrepResult> {
  const id = crypto.randomBytes(4).toString('hex');
  const out = path.join(scratch, `ast-grep-${id}.jsonl`);
  const usage = path.join(scratch, `ast-grep-${id}.time`);
  const started = performance.now();
  await child(TIME, ['-f', '%M %U %S', '-o', usage, AST_GREP, 'scan', '--config', config, '--json=stream', dir], { stdout: out });
  const seconds = (performance.now() - started) / 1000;
  const [maxRssKiB, user, system] = (await fsp.readFile(usage, 'utf8')).trim().split('\n').at(-1)!.split(' ').map(Number);
  const text = await fsp.readFile(out, 'utf8');
  return { seconds, cpuSeconds: user + system, maxRssBytes: maxRssKiB * 1024, matches: text.split('\n').filter((line) => line.trim()).length };
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
    // Scripts the engine skips (bundles, minified builds) would count lines it never reads.
    if (candidate.pool === 'js/ts' && (buffer.length > MAX_SCRIPT_BYTES || looksMinified(buffer.toString('utf8')))) continue;
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

const best = <T extends { seconds: number }>(runs: T[]): T => runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const benchStarted = performance.now();
  const scratch = await fsp.mkdtemp(path.join(os.tmpdir(), 'bulwark-bench-sast-'));
  const cleanup = () => fs.rmSync(scratch, { recursive: true, force: true });
  const onSignal = () => {
    if (!options.keep) cleanup();
    process.exit(130);
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    const ruleSet = loadRuleSet();
    const languagesWithRules = new Set<string>(ruleSet.rules.map((r) => r.language));
    console.log(`bench:sast — node ${process.version}, ${os.availableParallelism()} × ${os.cpus()[0]?.model ?? 'cpu'}`);
    console.log(`rules: ${ruleSet.rules.length} (${countBy(ruleSet.rules, (r) => r.language).map(([l, n]) => `${l} ${n}`).join(', ')})`);
    const astGrep = fs.existsSync(AST_GREP) && fs.existsSync(TIME) ? await astGrepRules(ruleSet, path.join(scratch, 'ast-grep')) : undefined;
    console.log(
      astGrep
        ? `ast-grep: ${AST_GREP} with ${astGrep.rules} rules (pattern rules, and each taint rule's sinks; no taint tracking)`
        : `ast-grep: not compared — ${fs.existsSync(AST_GREP) ? `${TIME} is missing` : 'the @ast-grep/cli devDependency is not installed'}`,
    );

    const listed = performance.now();
    const candidates = await listCandidates();
    const scales = [...new Set(options.scales)].sort((a, b) => a - b);
    const picked = await pickFiles(candidates, options.mb * MiB * scales.at(-1)!, options.seed);
    if (!picked.length) throw new Error('no source files found under /usr/lib/python3* or node_modules');
    console.log(`corpus: up to ${mib(picked.reduce((s, f) => s + f.size, 0))} picked from ${fmt(candidates.length)} candidate files in ${fmt((performance.now() - listed) / 1000, 1)} s`);
    console.log('');
    console.log('scale  files   lines      | Bulwark: best s  lines/s   lines/s/core  peak RSS   | ast-grep: best s  lines/s    lines/s/core  peak RSS   | wall ratio');

    const rows: { scale: number; lines: number; bulwark: ScanResult }[] = [];
    let last: { dir: string; bulwark: ScanResult } | undefined;
    for (const scale of scales) {
      const files = prefixOf(picked, options.mb * MiB * scale);
      const dir = path.join(scratch, `corpus-${scale}x`);
      await copyFiles(dir, files);
      const { analyzed } = await analyzedStats(dir, languagesWithRules);
      const lines = [...analyzed.values()].reduce((sum, s) => sum + s.lines, 0);
      const analyzedFiles = [...analyzed.values()].reduce((sum, s) => sum + s.files, 0);
      const bulwarkRuns: ScanResult[] = [];
      const astGrepRuns: AstGrepResult[] = [];
      for (let run = 0; run < options.runs; run++) {
        bulwarkRuns.push(await scanBulwark(dir, null, scratch));
        if (astGrep) astGrepRuns.push(await scanAstGrep(astGrep.config, dir, scratch));
      }
      const b = best(bulwarkRuns);
      const a = astGrepRuns.length ? best(astGrepRuns) : undefined;
      console.log(
        `${`${scale}×`.padEnd(6)} ${fmt(analyzedFiles).padStart(5)}  ${fmt(lines).padStart(9)}  | ` +
          `${fmt(b.seconds, 2).padStart(14)}  ${fmt(lines / b.seconds).padStart(8)}  ${fmt(lines / b.cpuSeconds).padStart(12)}  ${mib(Math.max(...bulwarkRuns.map((r) => r.maxRssBytes))).padStart(9)}  | ` +
          (a
            ? `${fmt(a.seconds, 2).padStart(15)}  ${fmt(lines / a.seconds).padStart(9)}  ${fmt(lines / a.cpuSeconds).padStart(12)}  ${mib(Math.max(...astGrepRuns.map((r) => r.maxRssBytes))).padStart(9)}  | ${fmt(b.seconds / a.seconds, 1)}×`
            : `${'—'.padStart(15)}  ${'—'.padStart(9)}  ${'—'.padStart(12)}  ${'—'.padStart(9)}  | —`),
      );
      if (a) console.log(`       ast-grep matches: ${fmt(a.matches)}; Bulwark findings: ${fmt(b.findings.length)}`);
      rows.push({ scale, lines, bulwark: b });
      last = { dir, bulwark: b };
    }
    if (rows.length > 1) {
      const base = rows[0].bulwark.seconds / rows[0].lines;
      console.log(`scaling: seconds per line relative to ${rows[0].scale}× — ${rows.map((r) => `${r.scale}× ${fmt(r.bulwark.seconds / r.lines / base, 2)}`).join(', ')} (1.00 is linear)`);
    }

    // An unchanged rescan with the result cache, against the first scan that fills it.
    const cacheDir = path.join(scratch, 'cache');
    const first = await scanBulwark(last!.dir, cacheDir, scratch);
    const rescan = await scanBulwark(last!.dir, cacheDir, scratch);
    console.log(`rescan, unchanged (${rows.at(-1)!.scale}×, result cache on): first ${fmt(first.seconds, 2)} s, rescan ${fmt(rescan.seconds, 2)} s → ${fmt(first.seconds / rescan.seconds, 1)}× faster`);

    // deep_ai_scan without a model on the largest corpus, on one engine thread (the goal is for one core).
    const deep = await scanBulwark(last!.dir, null, scratch, true);
    console.log(
      `deep_ai_scan, no model, one engine thread (${rows.at(-1)!.scale}×, ${fmt(rows.at(-1)!.lines)} lines): ${fmt(deep.seconds, 2)} s, ` +
        `${fmt(rows.at(-1)!.lines / deep.seconds)} lines/s, peak RSS ${mib(deep.maxRssBytes)}, ${fmt(deep.findings.length)} findings`,
    );

    const findings = last!.bulwark.findings;
    const languageOf = (file: string) => {
      const parser = parserFor(file);
      return parser ? ruleLanguageOf(parser) : 'other';
    };
    const counts = new Map(countBy(findings, (f) => languageOf(f.filePath)));
    const languages = [...new Set([...languagesWithRules, ...counts.keys()])].sort();
    console.log(`findings (${rows.at(-1)!.scale}×): ${fmt(findings.length)} — ${languages.map((l) => `${l} ${fmt(counts.get(l) ?? 0)}`).join(', ')}`);
    const top = countBy(findings, (f) => f.checkId).slice(0, 5);
    if (top.length) console.log(`top rules: ${top.map(([id, n]) => `${id} ${fmt(n)}`).join(', ')}`);
    if (last!.bulwark.notes) console.log(`notes: ${fmt(last!.bulwark.notes)} (files that could not be analyzed)`);
    console.log(`total bench time: ${fmt((performance.now() - benchStarted) / 1000, 1)} s${options.keep ? `; corpora kept in ${scratch}` : ''}`);
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    if (!options.keep) cleanup();
  }
}

if (process.argv[2] === '--worker' || process.argv[2] === '--deep-worker') {
  const [, , mode, dir, cacheDir, out] = process.argv;
  await worker(dir, cacheDir, out, mode === '--deep-worker');
} else {
  await main();
}
