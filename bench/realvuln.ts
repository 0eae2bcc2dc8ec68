// RealVuln benchmark of the SAST engine: how well `bulwark scan --type semgrep` finds the labelled
// vulnerabilities (and avoids the labelled false-positive traps) in the DEV half of kolega-ai's RealVuln
// benchmark, 13 intentionally vulnerable Python web applications and 12 JavaScript/TypeScript ones (--lang;
// the JS/TS ground truth is in the 3.x format, so the shared adapt_gt.py rewrites it and the results before
// score.py scores them), scored by the shared, independent
// score.py (F2 weights recall four times as heavily as precision; "micro" sums the repos that have results,
// "strict" also counts every repo in scope without results as all false negatives, and is the benchmark's
// headline figure), plus the wall-clock seconds of each scan. The scans run the real CLI in a child process
// on local checkouts that live outside the project (default ../.bench-cache/realvuln/<repo id>, or
// $BULWARK_REALVULN_DIR, or --repos-dir): each is a clone of a snapshot of the repository named by
// `fetch_source` in the shared dev-repos.json, checked out at its `checkout_sha`. Repos whose status is
// "unavailable" have no checkout and always count as missing; none of the benchmark's code is ever copied
// into this project. The JS/TS checkouts live in ../.bench-cache/realvuln-js/<repo id> and are listed, with
// their pinned commits, in the Sources table of the shared realvuln-js/README.md. After the scores, a table
// per check id (bench/realvuln-checks.ts) shows which checks pass the default-enable bar. Results go to a
// temporary folder that is removed at the end unless --keep is given.
//
//   npm run bench:realvuln -- [--lang python|js|both] [--repos-dir DIR] [--bench-dir DIR] [--js-repos-dir DIR]
//                             [--js-bench-dir DIR] [--repos a,b] [--keep] [--details] [--timeout SECONDS]
//                             [--type semgrep|deep|semgrep,deep]
//   npm run bench:realvuln -- --results-dir DIR     score an existing <DIR>/<repo>/results.json tree; no scans
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { perCheck, printPerCheck, type ScorerDecision } from './realvuln-checks.ts';

const PROJECT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(PROJECT, 'src', 'cli', 'main.ts');
const LABEL = 'bulwark';
const TIMINGS_FILE = 'timings.json';
const SCORER_TIMEOUT_MS = 120_000;
/** Stderr kept from each scan, for the failure message. */
const STDERR_TAIL_BYTES = 16 * 1024;

const USAGE = `usage: npm run bench:realvuln -- [options]

  --lang LANG         python, js or both (default both when the JS/TS checkout folder exists, else python)
  --repos-dir DIR     Python checkouts, one folder per repo id (default $BULWARK_REALVULN_DIR or ../.bench-cache/realvuln)
  --bench-dir DIR     the shared benchmark folder (default ../shared/bench/realvuln); its score.py scores both languages
  --js-repos-dir DIR  JS/TS checkouts (default $BULWARK_REALVULN_JS_DIR or ../.bench-cache/realvuln-js)
  --js-bench-dir DIR  the shared JS/TS benchmark folder (default ../shared/bench/realvuln-js)
  --repos a,b         only these repo ids (of either language)
  --keep              keep the results folder and print where it is
  --details           list every TP/FP/FN/TN decision
  --timeout SECONDS   per-scan time limit (default 600)
  --type TYPE         the scan type to score: semgrep (default) or deep, or both as semgrep,deep
  --results-dir DIR   score DIR/<repo>/results.json as it is, without scanning`;

// ---------------------------------------------------------------------------------------------------------
// options

type Lang = 'python' | 'js';

interface Options {
  reposDir: string;
  benchDir: string;
  jsReposDir: string;
  jsBenchDir: string;
  langs: Lang[];
  repos?: string[];
  keep: boolean;
  details: boolean;
  timeoutSeconds: number;
  resultsDir?: string;
  scanType: string;
}

interface ParsedOptions extends Omit<Options, 'scanType'> {
  scanTypes: string[];
}

function parseArgs(argv: string[]): ParsedOptions {
  const options: ParsedOptions = {
    reposDir: process.env.BULWARK_REALVULN_DIR || path.resolve(PROJECT, '..', '.bench-cache', 'realvuln'),
    benchDir: path.resolve(PROJECT, '..', 'shared', 'bench', 'realvuln'),
    jsReposDir: process.env.BULWARK_REALVULN_JS_DIR || path.resolve(PROJECT, '..', '.bench-cache', 'realvuln-js'),
    jsBenchDir: path.resolve(PROJECT, '..', 'shared', 'bench', 'realvuln-js'),
    langs: [],
    keep: false,
    details: false,
    timeoutSeconds: 600,
    scanTypes: ['semgrep'],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = () => {
      const raw = inline ?? argv[++i];
      if (raw === undefined || raw === '') throw new Error(`${flag} needs a value`);
      return raw;
    };
    if (flag === '--repos-dir') options.reposDir = path.resolve(value());
    else if (flag === '--bench-dir') options.benchDir = path.resolve(value());
    else if (flag === '--js-repos-dir') options.jsReposDir = path.resolve(value());
    else if (flag === '--js-bench-dir') options.jsBenchDir = path.resolve(value());
    else if (flag === '--lang') {
      const lang = value();
      if (lang !== 'python' && lang !== 'js' && lang !== 'both') throw new Error('--lang is python, js or both');
      options.langs = lang === 'both' ? ['python', 'js'] : [lang];
    }
    else if (flag === '--repos') options.repos = value().split(',').map((s) => s.trim()).filter(Boolean);
    else if (flag === '--keep') options.keep = true;
    else if (flag === '--details') options.details = true;
    else if (flag === '--results-dir') options.resultsDir = path.resolve(value());
    else if (flag === '--type') options.scanTypes = value().split(',').map((s) => s.trim()).filter(Boolean);
    else if (flag === '--timeout') {
      const n = Number(value());
      if (!Number.isFinite(n) || n <= 0) throw new Error('--timeout needs a positive number of seconds');
      options.timeoutSeconds = n;
    } else if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument ${arg}\n${USAGE}`);
  }
  if (!options.langs.length) options.langs = fs.existsSync(options.jsReposDir) ? ['python', 'js'] : ['python'];
  return options;
}

// ---------------------------------------------------------------------------------------------------------
// the shared bench folder

interface DevRepo {
  repo: string;
  repo_url: string;
  commit_sha: string;
  checkout_status: 'exact' | 'substitute' | 'unavailable';
  checkout_note?: string;
  fetch_source?: string;
  checkout_sha?: string;
}

interface Bench {
  lang: Lang;
  dir: string;
  reposDir: string;
  scorer: string;
  gtDir: string;
  families: string;
  /** The 3.x ground-truth adapter that must rewrite ground truth and results before score.py reads them. */
  adapter?: string;
  repos: DevRepo[];
}

function loadPythonBench(dir: string, reposDir: string): Bench {
  const bench = {
    lang: 'python' as const,
    dir,
    reposDir,
    scorer: path.join(dir, 'score.py'),
    gtDir: path.join(dir, 'ground-truth'),
    families: path.join(dir, 'cwe-families.json'),
  };
  const repoList = path.join(dir, 'dev-repos.json');
  for (const file of [bench.scorer, bench.gtDir, repoList]) {
    if (!fs.existsSync(file)) throw new Error(`${file} not found; point --bench-dir at the shared realvuln folder`);
  }
  const parsed = JSON.parse(fs.readFileSync(repoList, 'utf8')) as { repos?: DevRepo[] };
  if (!Array.isArray(parsed.repos)) throw new Error(`${repoList}: no "repos" list`);
  return { ...bench, repos: parsed.repos };
}

/**
 * The JS/TS half: its repos are the rows of the Sources table in the folder's README.md (| repo id | upstream |
 * pinned commit | checkout available |), or, without that table, the ground-truth folders present.
 */
function loadJsBench(dir: string, reposDir: string, python: Bench): Bench {
  const bench = {
    lang: 'js' as const,
    dir,
    reposDir,
    scorer: python.scorer,
    gtDir: path.join(dir, 'ground-truth'),
    families: python.families,
    adapter: path.join(dir, 'adapt_gt.py'),
  };
  for (const file of [bench.gtDir, bench.adapter]) {
    if (!fs.existsSync(file)) throw new Error(`${file} not found; point --js-bench-dir at the shared realvuln-js folder`);
  }
  const readme = path.join(dir, 'README.md');
  const text = fs.existsSync(readme) ? fs.readFileSync(readme, 'utf8') : '';
  const repos: DevRepo[] = [];
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // ['', id, upstream, sha, available, '']
    if (cells.length < 6 || !/^realvuln-/.test(cells[1]) || !/^[0-9a-f]{40}$/.test(cells[3])) continue;
    const available = /^yes\b/i.test(cells[4]);
    repos.push({
      repo: cells[1],
      repo_url: `https://github.com/${cells[2]}`,
      commit_sha: cells[3],
      checkout_status: available ? 'exact' : 'unavailable',
      checkout_note: available ? undefined : cells[4].replace(/^no:?\s*/i, '') || undefined,
      fetch_source: `github:${cells[2]}`,
      checkout_sha: available ? cells[3] : undefined,
    });
  }
  if (!repos.length) {
    for (const id of fs.readdirSync(bench.gtDir).sort()) {
      if (fs.existsSync(path.join(bench.gtDir, id, 'ground-truth.json'))) repos.push({ repo: id, repo_url: '', commit_sha: '', checkout_status: 'substitute' });
    }
  }
  return { ...bench, repos };
}

const checkable = (r: DevRepo) => r.checkout_status === 'exact' || r.checkout_status === 'substitute';

function howToGet(repo: DevRepo, reposDir: string): string {
  const dest = path.join(reposDir, repo.repo);
  if (!repo.fetch_source || !repo.checkout_sha) return `  ${repo.repo}: no checkout at ${dest}`;
  return [
    `  ${repo.repo}: no checkout at ${dest}; to obtain it, take a snapshot of ${repo.fetch_source} and check out ${repo.checkout_sha}:`,
    `    git clone --no-checkout <snapshot git dir> ${dest} && git -C ${dest} checkout --quiet ${repo.checkout_sha}`,
  ].join('\n');
}

function git(dir: string, args: string[]): string | undefined {
  const result = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8', timeout: 30_000 });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/** Warnings about a checkout that is not the pinned, unmodified commit; the scan still runs. */
function checkoutWarnings(repo: DevRepo, dir: string): string[] {
  const head = git(dir, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (!head) return [`${repo.repo}: ${dir} is not a git checkout; cannot tell whether it is at ${repo.checkout_sha}`];
  const warnings: string[] = [];
  if (repo.checkout_sha && head !== repo.checkout_sha) {
    warnings.push(`${repo.repo}: checkout is at ${head}, not ${repo.checkout_sha}; run git -C ${dir} checkout ${repo.checkout_sha}`);
  }
  const top = git(dir, ['rev-parse', '--show-toplevel']);
  if (top && fs.realpathSync(top) !== fs.realpathSync(dir)) warnings.push(`${repo.repo}: ${dir} is inside the work tree ${top}`);
  const status = git(dir, ['status', '--porcelain', '--untracked-files=no']);
  if (status) warnings.push(`${repo.repo}: checkout has local modifications to tracked files`);
  return warnings;
}

// ---------------------------------------------------------------------------------------------------------
// scanning

interface ScanRecord {
  repo: string;
  seconds: number;
  exitCode: number | null;
  ok: boolean;
  results?: number;
  note?: string;
}

let running: ReturnType<typeof spawn> | undefined;

function killRunning(): void {
  const child = running;
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL'); // the whole group: an engine may start processes of its own
  } catch {
    child.kill('SIGKILL');
  }
}

function runScan(options: Options, repoDir: string, output: string): Promise<{ code: number | null; signal: string | null; timedOut: boolean; stderr: string; seconds: number }> {
  return new Promise((resolve, reject) => {
    const args = [CLI, 'scan', repoDir, '--type', options.scanType, '--format', 'semgrep-json', '--history-depth', '0', '--output', output];
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: PROJECT, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    running = child;
    let stderr = '';
    let timedOut = false;
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL_BYTES);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killRunning();
    }, options.timeoutSeconds * 1000);
    child.on('error', (error) => {
      clearTimeout(timer);
      running = undefined;
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running = undefined;
      resolve({ code, signal, timedOut, stderr, seconds: (performance.now() - started) / 1000 });
    });
  });
}

interface SemgrepResult {
  path?: unknown;
  extra?: { metadata?: { cwe?: unknown } };
}

/** Counts the results and notes paths the scorer cannot match (it wants them relative to the repo root). */
async function inspectResults(file: string, repoDir: string): Promise<{ results: number; note?: string }> {
  const data = JSON.parse(await fsp.readFile(file, 'utf8')) as { results?: SemgrepResult[] };
  const results = Array.isArray(data.results) ? data.results : [];
  const absolute = results.filter((r) => typeof r.path === 'string' && (path.isAbsolute(r.path) || r.path.startsWith(repoDir))).length;
  const noCwe = results.filter((r) => r.extra?.metadata?.cwe === undefined || r.extra?.metadata?.cwe === null).length;
  const notes: string[] = [];
  if (absolute) notes.push(`${absolute} result(s) with absolute paths`);
  if (noCwe) notes.push(`${noCwe} result(s) without extra.metadata.cwe (ignored by the scorer)`);
  return { results: results.length, note: notes.join('; ') || undefined };
}

async function scanAll(options: Options, bench: Bench, repos: DevRepo[], resultsDir: string): Promise<ScanRecord[]> {
  const records: ScanRecord[] = [];
  for (const [index, repo] of repos.entries()) {
    const repoDir = path.join(bench.reposDir, repo.repo);
    for (const warning of checkoutWarnings(repo, repoDir)) console.warn(`warning: ${warning}`);
    const output = path.join(resultsDir, repo.repo, 'results.json');
    await fsp.mkdir(path.dirname(output), { recursive: true });
    process.stderr.write(`[${index + 1}/${repos.length}] scanning ${repo.repo} ... `);
    const run = await runScan(options, repoDir, output);
    const record: ScanRecord = { repo: repo.repo, seconds: run.seconds, exitCode: run.code, ok: false };
    const produced = fs.existsSync(output);
    if (run.timedOut) record.note = `timed out after ${options.timeoutSeconds}s`;
    else if (run.code !== 0 && run.code !== 1) {
      const lastLines = run.stderr.trim().split('\n').slice(-5).join('\n      ');
      record.note = `exit ${run.code ?? run.signal}${lastLines ? `: ${lastLines}` : ''}`;
    } else if (!produced) record.note = 'no results file written';
    else {
      try {
        Object.assign(record, await inspectResults(output, repoDir));
        record.ok = true;
      } catch (error) {
        record.note = `unreadable results: ${(error as Error).message}`;
      }
    }
    // A failed scan must count as missing (all FN in strict), never as a partial file.
    if (!record.ok && produced) await fsp.rm(output, { force: true });
    process.stderr.write(record.ok ? `${record.seconds.toFixed(1)}s, ${record.results} results\n` : `FAILED (${record.note})\n`);
    records.push(record);
  }
  await fsp.writeFile(path.join(resultsDir, TIMINGS_FILE), JSON.stringify(records, null, 2) + '\n');
  return records;
}

// ---------------------------------------------------------------------------------------------------------
// scoring

interface Metrics {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  precision: number;
  recall: number;
  f2: number;
}

interface ScorerJson {
  repos: string[];
  scanners: {
    label: string;
    repos_total: number;
    repos_with_results: number;
    micro: Metrics;
    strict: Metrics;
    macro_f2: number;
    per_repo: (Metrics & { repo: string; status: string; ignored_results?: Record<string, number>; details?: ScorerDecision[] })[];
  }[];
}

function python(script: string, args: string[]): string {
  const result = spawnSync('python3', [script, ...args], { encoding: 'utf8', timeout: SCORER_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new Error(`could not run python3 ${script}: ${result.error.message}`);
  if (result.stderr) process.stderr.write(result.stderr);
  if (result.status !== 0) throw new Error(`${path.basename(script)} exited with ${result.status ?? result.signal}`);
  return result.stdout;
}

/** Where score.py reads ground truth and results: the shared folders, or the adapter's rewrite of both. */
interface Scorable {
  gtDir: string;
  resultsDir: string;
}

function prepare(bench: Bench, resultsDir: string, scope: string[], scratch: string): Scorable {
  if (!bench.adapter) return { gtDir: bench.gtDir, resultsDir };
  const out = path.join(scratch, 'adapted');
  fs.rmSync(out, { recursive: true, force: true });
  python(bench.adapter, ['--gt-dir', bench.gtDir, '--out', out, '--results-dir', `${LABEL}=${resultsDir}`, '--repos', scope.join(',')]);
  return { gtDir: path.join(out, 'gt'), resultsDir: path.join(out, 'results', LABEL) };
}

function score(bench: Bench, on: Scorable, scope: string[], extra: string[]): string {
  return python(bench.scorer, ['--gt-dir', on.gtDir, '--results-dir', `${LABEL}=${on.resultsDir}`, '--repos', scope.join(','), ...extra]);
}

const pad = (s: string | number, n: number) => String(s).padStart(n);

function printSummary(summary: ScorerJson, records: Map<string, ScanRecord>, scope: number): void {
  const scanner = summary.scanners[0];
  console.log(`\nsummary over the ${summary.repos.length} repo(s) present (${scanner.repos_with_results} with results; ${scope} in scope)`);
  console.log(`  ${'aggregate'.padEnd(9)} ${pad('F2', 6)} ${pad('Prec', 6)} ${pad('Recall', 6)} ${pad('TP', 5)} ${pad('FP', 5)} ${pad('FN', 5)} ${pad('TN', 5)}`);
  for (const [name, m] of [['micro', scanner.micro], ['strict', scanner.strict]] as const) {
    console.log(
      `  ${name.padEnd(9)} ${pad(m.f2.toFixed(1), 6)} ${pad(m.precision.toFixed(3), 6)} ${pad(m.recall.toFixed(3), 6)} ${pad(m.tp, 5)} ${pad(m.fp, 5)} ${pad(m.fn, 5)} ${pad(m.tn, 5)}`,
    );
  }
  console.log(`\n  ${'repo'.padEnd(54)} ${pad('scan s', 7)} ${pad('results', 7)} ${pad('F2', 6)}  note`);
  let total = 0;
  for (const row of scanner.per_repo) {
    const record = records.get(row.repo);
    if (record && Number.isFinite(record.seconds)) total += record.seconds;
    const seconds = record && Number.isFinite(record.seconds) ? record.seconds.toFixed(1) : 'n/a';
    const results = record?.results ?? '';
    const note = [row.status !== 'ok' ? row.status : '', record?.note ?? ''].filter(Boolean).join('; ');
    console.log(`  ${row.repo.padEnd(54)} ${pad(seconds, 7)} ${pad(results, 7)} ${pad(row.f2.toFixed(1), 6)}  ${note}`.trimEnd());
  }
  if ([...records.values()].some((r) => Number.isFinite(r.seconds))) console.log(`  ${'total'.padEnd(54)} ${pad(total.toFixed(1), 7)}`);
}

// ---------------------------------------------------------------------------------------------------------
// main

async function main(): Promise<number> {
  const parsed = parseArgs(process.argv.slice(2));
  const python = loadPythonBench(parsed.benchDir, parsed.reposDir);
  const benches = parsed.langs.map((lang) => (lang === 'python' ? python : loadJsBench(parsed.jsBenchDir, parsed.jsReposDir, python)));
  if (parsed.repos) {
    const known = new Set(benches.flatMap((b) => b.repos.map((r) => r.repo)));
    const unknown = parsed.repos.filter((r) => !known.has(r));
    if (unknown.length) throw new Error(`unknown repo id(s): ${unknown.join(', ')}; known: ${[...known].join(', ')}`);
  }
  let code = 0;
  // Existing results were written by one scan type, which this script cannot tell: they are scored once.
  for (const scanType of parsed.resultsDir ? [''] : parsed.scanTypes) {
    for (const bench of benches) {
      const inScope = parsed.repos ? bench.repos.filter((r) => parsed.repos!.includes(r.repo)) : bench.repos;
      if (!inScope.length) continue;
      console.log(`\n======== ${bench.lang === 'python' ? 'Python' : 'JavaScript/TypeScript'} DEV apps, ${scanType ? `--type ${scanType}` : 'existing results'}`);
      code = Math.max(code, await runOne({ ...parsed, scanType }, bench, inScope, benches.length > 1));
    }
  }
  return code;
}

/** With `oneOfSeveral`, a results tree that holds none of this language's repos is skipped, not scored as all missing. */
async function runOne(options: Options, bench: Bench, inScope: DevRepo[], oneOfSeveral: boolean): Promise<number> {
  let resultsDir: string;
  let records: ScanRecord[] = [];
  let present: string[];
  const scratch = await fsp.mkdtemp(path.join(os.tmpdir(), 'bulwark-realvuln-'));
  const cleanup = () => {
    killRunning();
    if (!options.keep) fs.rmSync(scratch, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    cleanup();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    if (options.resultsDir) {
      resultsDir = options.resultsDir;
      if (!fs.statSync(resultsDir, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`${resultsDir}: no such directory`);
      present = inScope.map((r) => r.repo).filter((r) => fs.existsSync(path.join(resultsDir, r, 'results.json')));
      try {
        records = JSON.parse(fs.readFileSync(path.join(resultsDir, TIMINGS_FILE), 'utf8')) as ScanRecord[];
      } catch {
        // a tree not written by this script: no timings
      }
      // The files may have been edited since the scan: count what is there now.
      records = records.filter((r) => present.includes(r.repo));
      for (const repo of present) {
        let record = records.find((r) => r.repo === repo);
        if (!record) records.push((record = { repo, seconds: Number.NaN, exitCode: null, ok: true }));
        try {
          Object.assign(record, await inspectResults(path.join(resultsDir, repo, 'results.json'), path.join(bench.reposDir, repo)));
        } catch (error) {
          Object.assign(record, { ok: false, note: `unreadable results: ${(error as Error).message}` });
        }
      }
      if (!present.length && oneOfSeveral) {
        console.log(`no results for these repos in ${resultsDir}; skipped`);
        return 0;
      }
      console.log(`scoring existing results in ${resultsDir} (${present.length} of ${inScope.length} repos in scope have results.json)`);
    } else {
      const unavailable = inScope.filter((r) => !checkable(r));
      const missing = inScope.filter((r) => checkable(r) && !fs.existsSync(path.join(bench.reposDir, r.repo)));
      const toScan = inScope.filter((r) => checkable(r) && fs.existsSync(path.join(bench.reposDir, r.repo)));
      for (const r of unavailable) console.log(`note: ${r.repo} is ${r.checkout_status} (${r.checkout_note ?? 'no checkout'}); it counts as missing`);
      if (missing.length) {
        console.log(`missing checkouts (they count as missing in the scores):`);
        for (const r of missing) console.log(howToGet(r, bench.reposDir));
      }
      resultsDir = path.join(scratch, LABEL);
      await fsp.mkdir(resultsDir);
      console.log(`scanning ${toScan.length} repo(s) from ${bench.reposDir} with ${path.relative(PROJECT, CLI)} --type ${options.scanType}`);
      records = await scanAll(options, bench, toScan, resultsDir);
      present = toScan.map((r) => r.repo);
    }
    return report(options, bench, resultsDir, scratch, inScope, present, records);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (options.keep) console.log(`\nresults kept in ${scratch}${options.resultsDir ? '' : ` (score them again with --results-dir ${resultsDir!})`}`);
    else await fsp.rm(scratch, { recursive: true, force: true });
  }
}

function report(options: Options, bench: Bench, resultsDir: string, scratch: string, inScope: DevRepo[], present: string[], records: ScanRecord[]): number {
  const scope = inScope.map((r) => r.repo);
  const on = prepare(bench, resultsDir, scope, scratch);
  const extra = ['--families', bench.families, ...(options.details ? ['--details'] : [])];
  console.log();
  process.stdout.write(score(bench, on, scope, extra));
  if (!present.length) {
    console.log('\nno repos present: nothing to summarise');
    return 1;
  }
  const summary = JSON.parse(score(bench, on, present, ['--json', '--details'])) as ScorerJson;
  printSummary(summary, new Map(records.map((r) => [r.repo, r])), inScope.length);
  const lang = bench.lang === 'python' ? 'Python' : 'JS/TS';
  printPerCheck(`${lang}, ${options.scanType ? `--type ${options.scanType}` : 'existing results'}`, perCheck(summary.scanners[0].per_repo), present.length);
  const failed = records.filter((r) => !r.ok);
  if (failed.length) console.log(`\n${failed.length} scan(s) failed: ${failed.map((r) => r.repo).join(', ')}`);
  return failed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    killRunning();
    console.error(`bench:realvuln: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
