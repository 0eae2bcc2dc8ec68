// Benchmark of the secrets engine on real code: recall on planted credentials, false positives on a clean
// corpus, throughput, peak memory, and a keyword-only ripgrep pass over the same files for scale.
//
//   npm run bench:secrets [-- --mb 60 --per-rule 5 --runs 3 --seed 1 --examples 5 --per-rule-syntax 6 --keep]
//
// The clean corpus is copied from source trees already on the machine (this project's node_modules, the
// global npm, /usr/lib/python3*), never downloaded. Copies keep their relative paths with a source label in
// front; folder names the engine treats as vendored or as fixtures, and hidden names, are renamed so every
// copied file is scanned (and ripgrep sees the same files). The planted corpus holds copies of some of those
// files with one or more credentials from every rule inserted as whole lines; the ground truth is the file,
// the lines of the inserted snippet and the rule. A second planted corpus puts samples in some sixty file
// syntaxes (bench/secret-syntaxes.ts: XML, web.config, .properties, Terraform, Dockerfile, Kubernetes
// Secrets, PHP, C#, notebooks, .netrc…), each in a small file of that syntax, and recall is reported per
// syntax. Scans run in a child process so its peak RSS is the engine's own. Last, every rule's regex is
// timed on the hostile inputs the rule tests run (bench/secrets-hostile.ts), and the slowest are listed.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ALL_KEYWORDS, detectSecrets } from '../src/scanning/secrets/detector.ts';
import { looksBinary } from '../src/scanning/source-files.ts';
import { SECRET_RULES, type SecretRule } from '../src/scanning/secrets/rules.ts';
import { SecretsEngine } from '../src/scanning/secrets/secrets-engine.ts';
import { maskSecret } from '../src/scanning/secrets/text-checks.ts';
import { positiveSample, seededRandom } from '../test/support/secret-samples.ts';
import { camel, quoted, type Shape, shapeOf, SYNTAXES, syntaxAccepts } from './secret-syntaxes.ts';
import { hostileTable, timeHostileInputs } from './secrets-hostile.ts';
import { scratchFolder } from './scratch.ts';
import { listCorpusSources } from './source-tree.ts';

const MiB = 1024 * 1024;
const PROJECT = path.resolve(import.meta.dirname, '..');

// ---------------------------------------------------------------------------------------------------------
// options

interface Options {
  mb: number;
  perRule: number;
  runs: number;
  seed: number;
  examples: number;
  keep: boolean;
  /** Samples of each rule planted in file syntaxes (rotating through them), beside the five contexts. */
  perRuleSyntax: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { mb: 60, perRule: 5, runs: 3, seed: 1, examples: 5, keep: false, perRuleSyntax: 6 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = () => {
      const raw = inline ?? argv[++i];
      const n = Number(raw);
      if (raw === undefined || !Number.isFinite(n) || n <= 0) throw new Error(`${flag} needs a positive number`);
      return n;
    };
    if (flag === '--mb') options.mb = value();
    else if (flag === '--per-rule') options.perRule = Math.round(value());
    else if (flag === '--runs') options.runs = Math.round(value());
    else if (flag === '--seed') options.seed = Math.round(value());
    else if (flag === '--examples') options.examples = Math.round(value());
    else if (flag === '--per-rule-syntax') options.perRuleSyntax = Math.round(value());
    else if (flag === '--keep') options.keep = true;
    else if (flag === '--help' || flag === '-h') {
      console.log('usage: node bench/secrets.ts [--mb N] [--per-rule N] [--runs N] [--seed N] [--examples N] [--per-rule-syntax N] [--keep]');
      process.exit(0);
    } else throw new Error(`unknown argument ${arg}`);
  }
  return options;
}

// ---------------------------------------------------------------------------------------------------------
// scan worker: `node bench/secrets.ts --worker <dir> <runs> <out.json>`

interface ScanFinding {
  rule: string;
  filePath: string;
  startLine: number;
  endLine: number;
  masked: string;
  fingerprint: string;
}

interface WorkerResult {
  seconds: number[];
  maxRssBytes: number;
  findings: ScanFinding[];
}

async function worker(dir: string, runs: number, out: string): Promise<void> {
  const fingerprintKey = crypto.createHash('sha256').update('bulwark-bench').digest();
  const seconds: number[] = [];
  let findings: ScanFinding[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const raw = await new SecretsEngine({ historyDepth: 0 }).scan({ dir, fingerprintKey });
    seconds.push((performance.now() - started) / 1000);
    findings = raw.map((f) => ({
      rule: String(f.metadata.rule),
      filePath: f.filePath,
      startLine: f.startLine,
      endLine: f.endLine,
      masked: String(f.metadata.masked_secret),
      fingerprint: f.fingerprint,
    }));
  }
  const result: WorkerResult = { seconds, maxRssBytes: process.resourceUsage().maxRSS * 1024, findings };
  await fsp.writeFile(out, JSON.stringify(result));
}

function runWorker(dir: string, runs: number, scratch: string): Promise<WorkerResult> {
  const out = path.join(scratch, `scan-${crypto.randomBytes(4).toString('hex')}.json`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [import.meta.filename, '--worker', dir, String(runs), out], { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code !== 0) return reject(new Error(`scan worker failed (${signal ?? code})`));
      fsp.readFile(out, 'utf8').then((text) => resolve(JSON.parse(text) as WorkerResult), reject);
    });
  });
}

// ---------------------------------------------------------------------------------------------------------
// clean corpus

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

interface CorpusFile {
  dest: string;
  size: number;
  ext: string;
}

async function buildCleanCorpus(root: string, targetBytes: number, seed: number): Promise<{ files: CorpusFile[]; available: number }> {
  const candidates = shuffle(await listCorpusSources(PROJECT), seededRandom(seed));
  const available = candidates.reduce((sum, f) => sum + f.size, 0);
  const files: CorpusFile[] = [];
  const seen = new Set<string>();
  let total = 0;
  for (const candidate of candidates) {
    if (total >= targetBytes) break;
    const buffer = await fsp.readFile(candidate.source);
    if (looksBinary(buffer)) continue;
    const digest = crypto.createHash('sha1').update(buffer).digest('hex');
    if (seen.has(digest)) continue; // nested node_modules hold the same package twice
    seen.add(digest);
    const target = path.join(root, candidate.dest);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    await fsp.writeFile(target, buffer);
    total += buffer.length;
    files.push({ dest: candidate.dest, size: buffer.length, ext: candidate.dest.split('.').pop()!.toLowerCase() });
  }
  return { files, available };
}

// ---------------------------------------------------------------------------------------------------------
// planted corpus

const CONTEXTS = ['string', 'env', 'yaml', 'json', 'comment'] as const;
type Context = (typeof CONTEXTS)[number];

const CODE_EXT = new Set('js ts mjs cjs mts cts jsx tsx py pyi go java rb'.split(' '));
const HOST_EXT: Record<Context, string[]> = {
  string: [...CODE_EXT],
  env: ['sh', 'bash', 'md', 'rst', 'txt'],
  yaml: ['yml', 'yaml', 'md'],
  json: ['json'],
  comment: [...CODE_EXT, 'sh', 'bash', 'yml', 'yaml', 'toml', 'md'],
};

interface Plant {
  rule: string;
  context: Context;
  variant: string;
  file: string;
  /** 1-based, inclusive: the inserted snippet in the planted file. */
  startLine: number;
  endLine: number;
  masked: string;
}

function language(ext: string): 'js' | 'py' | 'rb' | 'go' | 'java' | 'hash' | 'md' | 'json' {
  if (['js', 'ts', 'mjs', 'cjs', 'mts', 'cts', 'jsx', 'tsx'].includes(ext)) return 'js';
  if (ext === 'py' || ext === 'pyi') return 'py';
  if (ext === 'rb') return 'rb';
  if (ext === 'go') return 'go';
  if (ext === 'java') return 'java';
  if (ext === 'json') return 'json';
  if (['md', 'rst', 'txt'].includes(ext)) return 'md';
  return 'hash'; // sh, yml, toml: `#` comments
}

/** The lines to insert for one sample in one context, and a label for the variant. */
function render(shape: Shape, context: Context, ext: string, random: () => number): { lines: string[]; variant: string } {
  const { name, value } = shape;
  const lang = language(ext);
  const pick = <T>(...options: T[]) => options[Math.floor(random() * options.length)];
  const valueLines = value.split('\n');

  if (shape.kind === 'multiline') {
    switch (context) {
      case 'string':
        if (lang === 'py') return { lines: [`${name} = """`, ...valueLines, '"""'], variant: 'py-triple-quoted' };
        if (lang === 'rb') return { lines: [`${name} = <<~KEY`, ...valueLines.map((l) => `  ${l}`), 'KEY'], variant: 'rb-heredoc' };
        if (lang === 'go') return { lines: [`var ${camel(name)} = \``, ...valueLines, '`'], variant: 'go-raw-string' };
        if (lang === 'java') return { lines: [`String ${camel(name)} = """`, ...valueLines, '""";'], variant: 'java-text-block' };
        return pick(
          { lines: [`const ${camel(name)} = \``, ...valueLines, '`;'], variant: 'js-template' },
          { lines: [`const ${camel(name)} = ${JSON.stringify(value + '\n')};`], variant: 'js-escaped-newlines' },
        );
      case 'env':
        if (lang === 'md') return { lines: ['```sh', `${name}="${valueLines[0]}`, ...valueLines.slice(1, -1), `${valueLines.at(-1)}"`, '```'], variant: 'dotenv-multiline' };
        return pick(
          { lines: [`export ${name}="${valueLines[0]}`, ...valueLines.slice(1, -1), `${valueLines.at(-1)}"`], variant: 'sh-multiline' },
          { lines: ["cat > key.pem <<'EOF'", ...valueLines, 'EOF'], variant: 'sh-heredoc' },
        );
      case 'yaml': {
        const block = [`${name.toLowerCase()}: |`, ...valueLines.map((l) => `  ${l}`)];
        return lang === 'md' ? { lines: ['```yaml', ...block, '```'], variant: 'yaml-block' } : { lines: block, variant: 'yaml-block' };
      }
      case 'json':
        return { lines: [`  ${JSON.stringify(name.toLowerCase())}: ${JSON.stringify(value + '\n')},`], variant: 'json-escaped-newlines' };
      case 'comment':
        if (lang === 'js' || lang === 'go' || lang === 'java') return { lines: ['/*', ...valueLines, '*/'], variant: 'block-comment' };
        if (lang === 'md') return { lines: ['<!--', ...valueLines, '-->'], variant: 'html-comment' };
        return { lines: valueLines.map((l) => `# ${l}`), variant: 'hash-comment' };
    }
  }

  switch (context) {
    case 'string':
      if (lang === 'py') {
        return pick(
          { lines: [`${name} = ${quoted(value, '"')}`], variant: 'py-assign' },
          { lines: [`    ${JSON.stringify(name.toLowerCase())}: ${quoted(value, "'")},`], variant: 'py-dict' },
          { lines: [`${name.toLowerCase()} = os.environ.get("${name}", ${quoted(value, '"')})`], variant: 'py-env-default' },
        );
      }
      if (lang === 'rb') return { lines: [`${name} = ${quoted(value, "'")}`], variant: 'rb-assign' };
      if (lang === 'go') return { lines: [`const ${camel(name)} = ${value.includes('"') ? `\`${value}\`` : `"${value}"`}`], variant: 'go-const' };
      if (lang === 'java') return { lines: [`private static final String ${name} = "${value.replaceAll('"', '\\"')}";`], variant: 'java-field' };
      return pick(
        { lines: [`const ${camel(name)} = ${quoted(value, "'")};`], variant: 'js-const' },
        { lines: [`  ${camel(name)}: ${quoted(value, '"')},`], variant: 'js-object' },
        { lines: [`const ${camel(name)} = process.env.${name} || ${quoted(value, "'")};`], variant: 'js-env-default' },
      );
    case 'env': {
      const plain = `${name}=${value}`;
      if (lang === 'md') return { lines: ['```sh', plain, '```'], variant: 'dotenv' };
      return pick({ lines: [plain], variant: 'dotenv' }, { lines: [`export ${name}=${quoted(value, /[$`]/.test(value) ? "'" : '"')}`], variant: 'sh-export' });
    }
    case 'yaml': {
      const needsQuotes = /^[{[&*!|>'"%@`]|: | #/.test(value);
      const entry = pick(
        { line: `  ${name}: ${needsQuotes ? quoted(value, "'") : value}`, variant: 'yaml-plain' },
        { line: `  ${name.toLowerCase()}: ${JSON.stringify(value)}`, variant: 'yaml-double-quoted' },
      );
      return lang === 'md' ? { lines: ['```yaml', 'env:', entry.line, '```'], variant: entry.variant } : { lines: [entry.line], variant: entry.variant };
    }
    case 'json':
      if (value.startsWith('{')) return { lines: [`  "${camel(name)}": ${value},`], variant: 'json-object' };
      return { lines: [`  "${pick(name, camel(name))}": ${JSON.stringify(value)},`], variant: 'json-string' };
    case 'comment': {
      // Prose (`staging github pat ghp_…`) only for self-describing tokens: a bare 32-hex string needs its name.
      const prose = `staging ${name.toLowerCase().replace(/_/g, ' ')} ${value}`;
      const text = shape.kind === 'bare' ? pick(`${name}=${value}`, `${name}: ${value}`, prose) : pick(`${name}=${value}`, `${name}: ${value}`);
      if (lang === 'js' || lang === 'go' || lang === 'java') return { lines: [`// ${text}`], variant: 'line-comment' };
      if (lang === 'md') return { lines: [`<!-- ${text} -->`], variant: 'html-comment' };
      return { lines: [`# ${text}`], variant: 'hash-comment' };
    }
  }
}

interface Insertion {
  at: number;
  lines: string[];
  plant: Omit<Plant, 'startLine' | 'endLine' | 'file'>;
}

interface PlantReport {
  plants: Plant[];
  /** Samples the detector misses even on their own: a rule or template problem, not a context one. */
  isolatedMisses: string[];
  hostFiles: number;
  bytes: number;
}

async function plantCorpus(cleanRoot: string, plantedRoot: string, files: CorpusFile[], options: Options): Promise<PlantReport> {
  const random = seededRandom(options.seed * 7919 + 17);
  const byContext = new Map<Context, CorpusFile[]>();
  for (const context of CONTEXTS) {
    const exts = HOST_EXT[context];
    // Prefer the first extensions listed (real YAML files over Markdown fences), then fall back.
    let hosts: CorpusFile[] = [];
    for (const ext of exts) {
      hosts = hosts.concat(files.filter((f) => f.ext === ext && f.size < 512 * 1024));
      if (context === 'yaml' && hosts.length >= 40) break;
    }
    if (!hosts.length) hosts = files.filter((f) => f.size < 512 * 1024);
    byContext.set(context, shuffle(hosts, random));
  }
  const used = new Map<Context, number>();
  const insertions = new Map<string, Insertion[]>();
  const isolatedMisses: string[] = [];

  SECRET_RULES.forEach((rule, ruleIndex) => {
    for (let i = 0; i < options.perRule; i++) {
      const sample = positiveSample(rule, (options.seed * 1000 + ruleIndex) * 100 + i + 1);
      const alone = detectSecrets(sample).find((m) => m.rule.id === rule.id);
      if (!alone) isolatedMisses.push(rule.id);
      const context = CONTEXTS[(i + ruleIndex) % CONTEXTS.length];
      const hosts = byContext.get(context)!;
      const n = used.get(context) ?? 0;
      used.set(context, n + 1);
      const host = hosts[n % hosts.length];
      const { lines, variant } = render(shapeOf(rule, sample), context, host.ext, random);
      const masked = maskSecret(alone?.secret ?? sample);
      const list = insertions.get(host.dest) ?? [];
      list.push({ at: -1, lines, plant: { rule: rule.id, context, variant, masked } });
      insertions.set(host.dest, list);
    }
  });

  const plants: Plant[] = [];
  let bytes = 0;
  for (const [dest, list] of insertions) {
    const text = await fsp.readFile(path.join(cleanRoot, dest), 'utf8');
    const lines = text.split('\n');
    for (const insertion of list) insertion.at = Math.floor(random() * (lines.length + 1));
    list.sort((a, b) => a.at - b.at); // snippets landing on the same line go in one after the other
    const out: string[] = [];
    let next = 0;
    for (const insertion of list) {
      out.push(...lines.slice(next, insertion.at));
      next = insertion.at;
      const startLine = out.length + 1;
      out.push(...insertion.lines);
      plants.push({ ...insertion.plant, file: dest, startLine, endLine: out.length });
    }
    out.push(...lines.slice(next));
    const target = path.join(plantedRoot, dest);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const body = out.join('\n');
    await fsp.writeFile(target, body);
    bytes += Buffer.byteLength(body);
  }
  return { plants, isolatedMisses: [...new Set(isolatedMisses)], hostFiles: insertions.size, bytes };
}

/** Samples that are a snippet of one file's own syntax (a `.netrc` line, a NuGet `<add …/>`): not moved elsewhere. */
function fileBound(shape: Shape): boolean {
  return shape.kind === 'bare' && /[<>]|^\/\/|^machine\s|^[\w.-]+:\s|^[\w.]+\s*=\s*"|^[A-Z0-9_]+=|^[^:/\s]+:\d+:/.test(shape.value);
}

interface SyntaxPlant extends Plant {
  syntax: string;
}

/**
 * Plants `perRuleSyntax` samples of every rule into small synthesized files of the syntaxes, the rule's
 * samples going round the syntaxes so each syntax gets samples of many rules. Returns the ground truth.
 */
async function plantSyntaxes(root: string, options: Options): Promise<{ plants: SyntaxPlant[]; files: number; bytes: number; skipped: string[] }> {
  const random = seededRandom(options.seed * 104729 + 3);
  const pick = <T>(...choices: T[]) => choices[Math.floor(random() * choices.length)];
  const queued = new Map<string, { shape: Shape; rule: string; masked: string }[]>();
  const skipped: string[] = [];
  SECRET_RULES.forEach((rule, ruleIndex) => {
    for (let i = 0; i < options.perRuleSyntax; i++) {
      const sample = positiveSample(rule, (options.seed * 1000 + ruleIndex) * 100 + 50 + i);
      const shape = shapeOf(rule, sample);
      if (fileBound(shape)) {
        if (i === 0) skipped.push(rule.id);
        continue;
      }
      let index = (ruleIndex * options.perRuleSyntax + i) % SYNTAXES.length;
      for (let tries = 0; tries < SYNTAXES.length && !syntaxAccepts(SYNTAXES[index], shape); tries++) index = (index + 1) % SYNTAXES.length;
      const syntax = SYNTAXES[index];
      if (!syntaxAccepts(syntax, shape)) continue;
      const alone = detectSecrets(sample).find((m) => m.rule.id === rule.id);
      const list = queued.get(syntax.id) ?? [];
      list.push({ shape, rule: rule.id, masked: maskSecret(alone?.secret ?? sample) });
      queued.set(syntax.id, list);
    }
  });
  const plants: SyntaxPlant[] = [];
  let files = 0;
  let bytes = 0;
  for (const syntax of SYNTAXES) {
    const list = queued.get(syntax.id) ?? [];
    // Up to three credentials a file, between clean lines of the same syntax.
    for (let n = 0; n * 3 < list.length; n++) {
      const file = syntax.file(n);
      const out = [...syntax.head];
      for (const { shape, rule, masked } of list.slice(n * 3, n * 3 + 3)) {
        out.push(...syntax.filler.slice(0, 1 + Math.floor(random() * syntax.filler.length)));
        const lines = syntax.render(shape, pick);
        plants.push({ rule, context: 'string', variant: syntax.id, syntax: syntax.id, file, startLine: out.length + 1, endLine: out.length + lines.length, masked });
        out.push(...lines);
      }
      out.push(...syntax.tail);
      const target = path.join(root, file);
      await fsp.mkdir(path.dirname(target), { recursive: true });
      const body = out.join('\n') + '\n';
      await fsp.writeFile(target, body);
      files++;
      bytes += Buffer.byteLength(body);
    }
  }
  return { plants, files, bytes, skipped };
}

// ---------------------------------------------------------------------------------------------------------
// ripgrep

interface RgResult {
  seconds: number;
  matches: number;
  files: number;
}

function rgAvailable(): boolean {
  const probe = spawnSync('rg', ['--version'], { stdio: 'ignore' });
  return !probe.error && probe.status === 0;
}

function timeRg(dir: string, runs: number, extra: string[] = []): RgResult {
  const args = ['--count-matches', '-i', '-F', ...extra, ...ALL_KEYWORDS.flatMap((k) => ['-e', k]), '.'];
  let best = Infinity;
  let output = '';
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const result = spawnSync('rg', args, { cwd: dir, encoding: 'utf8', maxBuffer: 256 * MiB });
    const seconds = (performance.now() - started) / 1000;
    if (result.error) throw result.error;
    if (result.status !== 0 && result.status !== 1) throw new Error(`rg exited ${result.status}: ${result.stderr}`);
    best = Math.min(best, seconds);
    output = result.stdout;
  }
  let matches = 0;
  let files = 0;
  for (const line of output.split('\n')) {
    const count = Number(line.slice(line.lastIndexOf(':') + 1));
    if (line && Number.isFinite(count)) {
      matches += count;
      files++;
    }
  }
  return { seconds: best, matches, files };
}

// ---------------------------------------------------------------------------------------------------------
// report

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : 'n/a');
const mb = (bytes: number) => bytes / MiB;

function table(rows: [string, string][]): string {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join('\n');
}

function countBy<T>(items: T[], key: (item: T) => string): [string, number][] {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const { dir: scratch, cleanup } = await scratchFolder('bulwark-bench-secrets-', options.keep);
  try {
    const cleanRoot = path.join(scratch, 'clean');
    const plantedRoot = path.join(scratch, 'planted');
    await fsp.mkdir(cleanRoot);
    await fsp.mkdir(plantedRoot);

    console.log(`secrets benchmark: ${SECRET_RULES.length} rules, ${ALL_KEYWORDS.length} keywords, target ${options.mb} MB`);
    const { files, available } = await buildCleanCorpus(cleanRoot, options.mb * MiB, options.seed);
    const cleanBytes = files.reduce((sum, f) => sum + f.size, 0);
    const roots = countBy(files, (f) => f.dest.split('/')[0]);
    console.log(`clean corpus: ${files.length} files, ${mb(cleanBytes).toFixed(1)} MB (${roots.map(([k, v]) => `${k} ${v}`).join(', ')})` +
      (cleanBytes < options.mb * MiB ? `; that is all the distinct source here (${mb(available).toFixed(1)} MB before removing duplicates)` : ''));

    const planted = await plantCorpus(cleanRoot, plantedRoot, files, options);
    console.log(`planted corpus: ${planted.plants.length} samples (${options.perRule} per rule) in ${planted.hostFiles} copies of corpus files, ${mb(planted.bytes).toFixed(1)} MB`);
    if (options.keep) await fsp.writeFile(path.join(scratch, 'ground-truth.json'), JSON.stringify(planted.plants, null, 1));
    const syntaxRoot = path.join(scratch, 'syntaxes');
    const syntaxes = await plantSyntaxes(syntaxRoot, options);
    console.log(`syntax corpus: ${syntaxes.plants.length} samples (${options.perRuleSyntax} per rule) in ${syntaxes.files} files of ${SYNTAXES.length} syntaxes, ${mb(syntaxes.bytes).toFixed(1)} MB`);
    if (options.keep) await fsp.writeFile(path.join(scratch, 'syntax-ground-truth.json'), JSON.stringify(syntaxes.plants, null, 1));
    console.log(`built in ${((performance.now() - started) / 1000).toFixed(1)} s; scanning…\n`);

    const clean = await runWorker(cleanRoot, options.runs, scratch);
    const plantedScan = await runWorker(plantedRoot, 1, scratch);
    const syntaxScan = await runWorker(syntaxRoot, 1, scratch);

    // ---- recall
    const byFile = new Map<string, ScanFinding[]>();
    for (const f of plantedScan.findings) byFile.set(f.filePath, [...(byFile.get(f.filePath) ?? []), f]);
    const within = (f: ScanFinding, p: Plant) => f.startLine >= p.startLine && f.startLine <= p.endLine;
    const outcomes = planted.plants.map((p) => {
      const near = (byFile.get(p.file) ?? []).filter((f) => within(f, p));
      return { plant: p, hit: near.some((f) => f.rule === p.rule), other: near.find((f) => f.rule !== p.rule)?.rule };
    });
    const hits = outcomes.filter((o) => o.hit).length;
    const perRule = new Map<string, { hit: number; total: number; misses: string[] }>();
    for (const o of outcomes) {
      const entry = perRule.get(o.plant.rule) ?? { hit: 0, total: 0, misses: [] };
      entry.total++;
      if (o.hit) entry.hit++;
      else entry.misses.push(`${o.plant.context}/${o.plant.variant}${o.other ? ` (found as ${o.other})` : ''}`);
      perRule.set(o.plant.rule, entry);
    }
    const weakRules = [...perRule].filter(([, e]) => e.hit < e.total);
    const perContext = countBy(outcomes, (o) => o.plant.context).map(([context, total]) => {
      const hit = outcomes.filter((o) => o.plant.context === context && o.hit).length;
      return `${context} ${pct(hit, total)}`;
    });
    const misattributed = outcomes.filter((o) => !o.hit && o.other).length;

    console.log(`recall: ${hits}/${outcomes.length} = ${pct(hits, outcomes.length)}  (by context: ${perContext.join(', ')})`);
    if (planted.isolatedMisses.length) console.log(`  samples not detected even on their own: ${planted.isolatedMisses.join(', ')}`);
    if (weakRules.length) {
      console.log(`  rules below 100% (${weakRules.length}):`);
      for (const [rule, e] of weakRules) console.log(`    ${rule.padEnd(36)} ${e.hit}/${e.total}  missed: ${e.misses.join('; ')}`);
    } else console.log('  every rule found every planted sample');

    // Findings in the planted copies that are neither planted nor already in the clean file.
    const cleanPrints = new Set(clean.findings.map((f) => f.fingerprint));
    const stray = plantedScan.findings.filter(
      (f) => !cleanPrints.has(f.fingerprint) && !planted.plants.some((p) => p.file === f.filePath && within(f, p)),
    );
    if (stray.length) {
      console.log(`  findings outside the planted lines (${stray.length}):`);
      for (const f of stray.slice(0, options.examples)) console.log(`    ${f.filePath}:${f.startLine}  ${f.rule}  ${f.masked}`);
    }

    // ---- recall per file syntax: `rule` counts findings under the planted rule, `any` findings under any rule
    const syntaxByFile = new Map<string, ScanFinding[]>();
    for (const f of syntaxScan.findings) syntaxByFile.set(f.filePath, [...(syntaxByFile.get(f.filePath) ?? []), f]);
    const syntaxOutcomes = syntaxes.plants.map((p) => {
      const near = (syntaxByFile.get(p.file) ?? []).filter((f) => within(f, p));
      return { plant: p, hit: near.some((f) => f.rule === p.rule), found: near.length > 0 };
    });
    const syntaxHits = syntaxOutcomes.filter((o) => o.hit).length;
    const syntaxFound = syntaxOutcomes.filter((o) => o.found).length;
    const syntaxRows = SYNTAXES.map((syntax) => {
      const mine = syntaxOutcomes.filter((o) => o.plant.syntax === syntax.id);
      const hit = mine.filter((o) => o.hit).length;
      const found = mine.filter((o) => o.found).length;
      const missed = [...new Set(mine.filter((o) => !o.found).map((o) => o.plant.rule))];
      return { id: syntax.id, total: mine.length, hit, found, missed };
    }).filter((r) => r.total);
    console.log(`\nrecall per syntax: ${pct(syntaxHits, syntaxOutcomes.length)} under the planted rule, ${pct(syntaxFound, syntaxOutcomes.length)} found at all (${syntaxFound}/${syntaxOutcomes.length})`);
    if (syntaxes.skipped.length) console.log(`  not planted (samples that are a snippet of their own file syntax): ${syntaxes.skipped.join(', ')}`);
    const idWidth = Math.max(...syntaxRows.map((r) => r.id.length));
    console.log(`  ${'syntax'.padEnd(idWidth)}  samples   rule    any  missed (not found at all)`);
    for (const r of syntaxRows.sort((a, b) => a.found / a.total - b.found / b.total || a.hit / a.total - b.hit / b.total || a.id.localeCompare(b.id))) {
      const miss = r.missed.length ? `${r.missed.slice(0, 6).join(', ')}${r.missed.length > 6 ? ` +${r.missed.length - 6}` : ''}` : '';
      console.log(`  ${r.id.padEnd(idWidth)}  ${String(r.total).padStart(7)} ${pct(r.hit, r.total).padStart(6)} ${pct(r.found, r.total).padStart(6)}  ${miss}`);
    }
    const syntaxStray = syntaxScan.findings.filter((f) => !syntaxes.plants.some((p) => p.file === f.filePath && within(f, p)));
    if (syntaxStray.length) {
      console.log(`  findings outside the planted lines (${syntaxStray.length}):`);
      for (const f of syntaxStray.slice(0, options.examples)) console.log(`    ${f.filePath}:${f.startLine}  ${f.rule}  ${f.masked}`);
    }

    // ---- false positives
    const fpRules = countBy(clean.findings, (f) => f.rule);
    console.log(`\nfalse positives on the clean corpus: ${clean.findings.length} (${(clean.findings.length / mb(cleanBytes)).toFixed(2)} per MB) in ${new Set(clean.findings.map((f) => f.filePath)).size} files`);
    for (const [rule, count] of fpRules.slice(0, 8)) {
      console.log(`  ${rule.padEnd(36)} ${count}`);
      for (const f of clean.findings.filter((x) => x.rule === rule).slice(0, options.examples)) {
        console.log(`      ${f.filePath}:${f.startLine}  ${f.masked}`);
      }
    }

    // ---- throughput
    const bestScan = Math.min(...clean.seconds);
    const engineRate = mb(cleanBytes) / bestScan;
    console.log(`\nengine: best of ${clean.seconds.length} runs ${bestScan.toFixed(2)} s (${clean.seconds.map((s) => s.toFixed(2)).join(', ')})`);

    let rg: RgResult | undefined;
    let rg1: RgResult | undefined;
    if (rgAvailable()) {
      rg = timeRg(cleanRoot, options.runs);
      rg1 = timeRg(cleanRoot, options.runs, ['-j1']);
      console.log(`rg --count-matches -i -F -e <${ALL_KEYWORDS.length} keywords>: best ${rg.seconds.toFixed(2)} s, ${rg.matches} keyword hits in ${rg.files} files; with -j1 ${rg1.seconds.toFixed(2)} s`);
    } else {
      console.log('rg (ripgrep) is not on PATH: skipping the keyword-search comparison. Install it with `apt-get install ripgrep` (Debian/Ubuntu).');
    }

    // ---- hostile input
    const hostile = timeHostileInputs(options.runs);
    console.log(`\n${hostileTable(hostile)}`);

    const rows: [string, string][] = [
      ['corpus', `${files.length} files, ${mb(cleanBytes).toFixed(1)} MB clean; ${planted.plants.length} planted samples, ${SECRET_RULES.length} rules`],
      ['recall', `${pct(hits, outcomes.length)} (${hits}/${outcomes.length}); ${weakRules.length} rules below 100%${misattributed ? `; ${misattributed} found under another rule` : ''}`],
      ['syntax recall', `${pct(syntaxHits, syntaxOutcomes.length)} under the planted rule, ${pct(syntaxFound, syntaxOutcomes.length)} found at all, over ${syntaxRows.length} syntaxes; lowest ${syntaxRows.slice(0, 3).map((r) => `${r.id} ${pct(r.found, r.total)}`).join(', ')}`],
      ['false positives', `${clean.findings.length} (${(clean.findings.length / mb(cleanBytes)).toFixed(2)}/MB)${fpRules.length ? `; top ${fpRules.slice(0, 3).map(([r, c]) => `${r} ${c}`).join(', ')}` : ''}`],
      ['engine throughput', `${engineRate.toFixed(1)} MB/s (${bestScan.toFixed(2)} s, best of ${clean.seconds.length}, one thread)`],
      ['engine peak RSS', `${(clean.maxRssBytes / MiB).toFixed(0)} MB (scan process)`],
    ];
    if (rg && rg1) {
      const rgRate = mb(cleanBytes) / rg.seconds;
      const rg1Rate = mb(cleanBytes) / rg1.seconds;
      rows.push(['rg keywords', `${rgRate.toFixed(1)} MB/s (${os.availableParallelism()} threads), ${rg1Rate.toFixed(1)} MB/s with -j1`]);
      rows.push(['engine / rg', `${(engineRate / rgRate).toFixed(3)} (${(engineRate / rg1Rate).toFixed(3)} against -j1)`]);
    } else rows.push(['rg keywords', 'skipped (apt-get install ripgrep)']);
    const [slowest] = hostile.rules;
    rows.push(['hostile input', `slowest rule ${slowest.rule} ${slowest.ms.toFixed(2)} ms (${slowest.input}); all rules on all inputs ${hostile.totalMs.toFixed(0)} ms`]);
    rows.push(['wall time', `${((performance.now() - started) / 1000).toFixed(1)} s`]);
    console.log(`\n${table(rows)}`);
    if (options.keep) console.log(`\nkept ${scratch}`);
  } finally {
    cleanup();
  }
}

if (process.argv[2] === '--worker') {
  await worker(process.argv[3], Number(process.argv[4]), process.argv[5]);
} else {
  await main();
}
