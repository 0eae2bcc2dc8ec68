// OWASP Benchmark for Python (OWASP-Benchmark/BenchmarkPython): scans a local checkout with the real CLI
// (`semgrep_scan` and `deep_ai_scan`, the latter without a model: the BULWARK_LLM_* settings are removed
// from the scan's environment) and scores it the way the OWASP scorecards do. Each test case is a file
// named in expectedresults-*.csv (testcode/BenchmarkTest00001.py, and its template of the same name); a
// test case is reported when a result in a file of that name carries the CWE of the test case's category.
// Per category: TPR (reported real vulnerabilities / real vulnerabilities), FPR (reported safe cases /
// safe cases) and score = TPR - FPR; the overall row averages the categories, as the scorecards do. The
// checkout lives outside the project (default ../.bench-cache/benchmark-python, or
// $BULWARK_OWASP_PYTHON_DIR, or --dir); none of its code is copied here.
//
//   npm run bench:owasp-python -- [--dir DIR] [--type semgrep|deep|semgrep,deep] [--timeout SECONDS] [--keep]
//   npm run bench:owasp-python -- --results FILE    score an existing Semgrep JSON file; no scan
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const PROJECT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(PROJECT, 'src', 'cli', 'main.ts');
const TEST_FILE = /^(BenchmarkTest\d+)\./;

const USAGE = `usage: npm run bench:owasp-python -- [options]

  --dir DIR          the BenchmarkPython checkout (default $BULWARK_OWASP_PYTHON_DIR or ../.bench-cache/benchmark-python)
  --type TYPES       scan types, comma-separated: semgrep, deep (default semgrep,deep)
  --timeout SECONDS  per-scan time limit (default 1200)
  --keep             keep the results files and print where they are
  --results FILE     score this Semgrep JSON file (paths relative to the checkout) instead of scanning`;

interface Options {
  dir: string;
  types: string[];
  timeoutSeconds: number;
  keep: boolean;
  results?: string;
}

function optionsOf(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      dir: { type: 'string', default: process.env.BULWARK_OWASP_PYTHON_DIR || path.resolve(PROJECT, '..', '.bench-cache', 'benchmark-python') },
      type: { type: 'string', default: 'semgrep,deep' },
      timeout: { type: 'string', default: '1200' },
      keep: { type: 'boolean', default: false },
      results: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  for (const flag of ['dir', 'type', 'timeout', 'results'] as const) if (values[flag] === '') throw new Error(`--${flag} needs a value`);
  const timeoutSeconds = Number(values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) throw new Error('--timeout needs a positive number of seconds');
  return {
    dir: path.resolve(values.dir!),
    types: values.type!.split(',').map((s) => s.trim()).filter(Boolean),
    timeoutSeconds,
    keep: values.keep!,
    ...(values.results ? { results: path.resolve(values.results) } : {}),
  };
}

interface TestCase {
  name: string;
  category: string;
  real: boolean;
  cwe: number;
}

function loadExpected(dir: string): { file: string; cases: Map<string, TestCase> } {
  const names = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /^expectedresults-.*\.csv$/.test(f)).sort() : [];
  if (!names.length) throw new Error(`no expectedresults-*.csv in ${dir}; point --dir at a BenchmarkPython checkout`);
  const file = path.join(dir, names.at(-1)!);
  const cases = new Map<string, TestCase>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [name, category, real, cwe] = line.split(',').map((s) => s.trim());
    if (!/^BenchmarkTest\d+$/.test(name) || !Number.isInteger(Number(cwe))) continue;
    cases.set(name, { name, category, real: real === 'true', cwe: Number(cwe) });
  }
  if (!cases.size) throw new Error(`${file}: no test cases`);
  return { file, cases };
}

function scan(options: Options, type: string, output: string): number {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BULWARK_LLM_')));
  const args = [CLI, 'scan', options.dir, '--type', type, '--format', 'semgrep-json', '--history-depth', '0', '--output', output];
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { cwd: PROJECT, env, encoding: 'utf8', timeout: options.timeoutSeconds * 1000, maxBuffer: 64 * 1024 * 1024 });
  const seconds = (performance.now() - started) / 1000;
  if (run.error) throw new Error(`--type ${type}: ${run.error.message}`);
  if ((run.status !== 0 && run.status !== 1) || !fs.existsSync(output)) {
    throw new Error(`--type ${type}: exit ${run.status ?? run.signal}: ${run.stderr.trim().split('\n').slice(-5).join('\n  ')}`);
  }
  return seconds;
}

/** For each test case, the CWE numbers its files were reported with and the check ids that reported each. */
type Reported = Map<string, Map<number, Set<string>>>;

function reported(resultsFile: string): { byCase: Reported; results: number; outside: number } {
  const data = JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as { results?: { check_id?: unknown; path?: unknown; extra?: { metadata?: { cwe?: unknown } } }[] };
  const byCase: Reported = new Map();
  let outside = 0;
  const results = data.results ?? [];
  for (const result of results) {
    const name = typeof result.path === 'string' ? TEST_FILE.exec(path.basename(result.path))?.[1] : undefined;
    if (!name) {
      outside++;
      continue;
    }
    const raw = result.extra?.metadata?.cwe;
    for (const entry of Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw]) {
      const cwe = /^CWE-(\d+)/.exec(String(entry))?.[1];
      if (!cwe) continue;
      let cwes = byCase.get(name);
      if (!cwes) byCase.set(name, (cwes = new Map()));
      let checks = cwes.get(Number(cwe));
      if (!checks) cwes.set(Number(cwe), (checks = new Set()));
      checks.add(typeof result.check_id === 'string' ? result.check_id : '(no check id)');
    }
  }
  return { byCase, results: results.length, outside };
}

interface Row {
  category: string;
  cwe: number;
  tp: number;
  fn: number;
  fp: number;
  tn: number;
  /** Test cases of the category reported only with other CWEs, by CWE: findings the scorecard does not count. */
  otherCwes: Map<number, number>;
  /** The test cases each check reported with the category's CWE, real (tp) and safe (fp). */
  checks: Map<string, { tp: number; fp: number }>;
}

const rate = (a: number, b: number) => (b ? a / b : 0);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`.padStart(7);

function scorecard(cases: Map<string, TestCase>, byCase: Reported): Row[] {
  const rows = new Map<string, Row>();
  for (const test of cases.values()) {
    let row = rows.get(test.category);
    if (!row) rows.set(test.category, (row = { category: test.category, cwe: test.cwe, tp: 0, fn: 0, fp: 0, tn: 0, otherCwes: new Map(), checks: new Map() }));
    const cwes = byCase.get(test.name) ?? new Map<number, Set<string>>();
    const hit = cwes.has(test.cwe);
    if (test.real) hit ? row.tp++ : row.fn++;
    else hit ? row.fp++ : row.tn++;
    if (!hit) for (const cwe of cwes.keys()) row.otherCwes.set(cwe, (row.otherCwes.get(cwe) ?? 0) + 1);
    for (const check of cwes.get(test.cwe) ?? []) {
      let counts = row.checks.get(check);
      if (!counts) row.checks.set(check, (counts = { tp: 0, fp: 0 }));
      if (test.real) counts.tp++;
      else counts.fp++;
    }
  }
  return [...rows.values()].sort((a, b) => a.category.localeCompare(b.category));
}

function printScorecard(title: string, rows: Row[]): void {
  console.log(`\n${title}`);
  console.log(`  ${'category'.padEnd(16)} ${'CWE'.padStart(4)} ${'TP'.padStart(4)} ${'FN'.padStart(4)} ${'FP'.padStart(4)} ${'TN'.padStart(4)} ${'TPR'.padStart(7)} ${'FPR'.padStart(7)} ${'score'.padStart(7)}  reported with other CWEs only`);
  let tpr = 0;
  let fpr = 0;
  for (const r of rows) {
    const t = rate(r.tp, r.tp + r.fn);
    const f = rate(r.fp, r.fp + r.tn);
    tpr += t;
    fpr += f;
    const others = [...r.otherCwes].sort((a, b) => b[1] - a[1]).map(([cwe, n]) => `CWE-${cwe} x${n}`).join(', ');
    console.log(
      `  ${r.category.padEnd(16)} ${String(r.cwe).padStart(4)} ${String(r.tp).padStart(4)} ${String(r.fn).padStart(4)} ${String(r.fp).padStart(4)} ${String(r.tn).padStart(4)} ${pct(t)} ${pct(f)} ${pct(t - f)}  ${others}`.trimEnd(),
    );
    const checks = [...r.checks].sort((a, b) => b[1].tp + b[1].fp - (a[1].tp + a[1].fp)).map(([id, c]) => `${id} ${c.tp}/${c.fp}`);
    if (checks.length) console.log(`  ${''.padEnd(16)}   real/safe cases reported, per check: ${checks.join(', ')}`);
  }
  const n = rows.length || 1;
  console.log(`  ${'average'.padEnd(16)} ${''.padStart(4)} ${''.padStart(4)} ${''.padStart(4)} ${''.padStart(4)} ${''.padStart(4)} ${pct(tpr / n)} ${pct(fpr / n)} ${pct((tpr - fpr) / n)}`);
}

function scoreFile(title: string, file: string, cases: Map<string, TestCase>): void {
  const { byCase, results, outside } = reported(file);
  printScorecard(`${title}: ${results} results, ${outside} outside the test case files`, scorecard(cases, byCase));
}

function main(): number {
  const options = optionsOf(process.argv.slice(2));
  const expected = loadExpected(options.dir);
  console.log(`${expected.cases.size} test cases from ${expected.file}`);
  if (options.results) {
    scoreFile(path.basename(options.results), options.results, expected.cases);
    return 0;
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-owasp-python-'));
  try {
    for (const type of options.types) {
      const output = path.join(scratch, `${type}.json`);
      process.stderr.write(`scanning ${options.dir} with --type ${type} ... `);
      const seconds = scan(options, type, output);
      process.stderr.write(`${seconds.toFixed(1)}s\n`);
      scoreFile(`--type ${type} (${seconds.toFixed(1)} s)`, output, expected.cases);
    }
  } finally {
    if (options.keep) console.log(`\nresults kept in ${scratch}`);
    else fs.rmSync(scratch, { recursive: true, force: true });
  }
  return 0;
}

try {
  process.exit(main());
} catch (error) {
  console.error(`bench:owasp-python: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
