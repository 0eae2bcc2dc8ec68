import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Ignore } from 'ignore';
import type { EngineInput, RawFinding } from '../engine.ts';
import { firstCallee, hashParts, normalizeMatch, snippetOf } from '../match-identity.ts';
import { isTestPath, MAX_FILE_BYTES, skipReason } from '../source-files.ts';
import { readTreeText } from '../../scm/work-tree.ts';

// An optional second opinion: when an operator names rule configs and a `semgrep` or `opengrep` binary is on
// the PATH, it scans the same tree and its results join the built-in engine's.

export interface ExternalSemgrepOptions {
  /** `--config` values (files, folders, registry names, URLs); none: no external run. */
  configs: string[];
  /** Where to look for the binary; the process's PATH by default. */
  searchPath?: string;
  /** Longest the external run may take. */
  timeoutMs?: number;
}

export const SEMGREP_BINARIES = ['semgrep', 'opengrep'] as const;
export type SemgrepBinaryName = (typeof SEMGREP_BINARIES)[number];

export interface SemgrepBinary {
  name: SemgrepBinaryName;
  file: string;
}

const DEFAULT_TIMEOUT_MS = 15 * 60 * 1000;
const NOTE_TEXT_LIMIT = 300;

/** The subset of one entry of Semgrep's `--json` results that is mapped. */
export interface SemgrepResult {
  check_id: string;
  path: string;
  start: { line: number };
  end: { line: number };
  extra?: {
    message?: string;
    severity?: string;
    lines?: string;
    metadata?: Record<string, unknown>;
  };
}

export interface SemgrepOutput {
  results: SemgrepResult[];
  errors: { message?: string; level?: string }[];
}

const isExecutable = (file: string) =>
  fs.access(file, fs.constants.X_OK).then(
    () => fs.stat(file).then((s) => s.isFile()),
    () => false,
  );

/** The first `semgrep` or `opengrep` in PATH order (within one folder, semgrep first). */
export async function findSemgrepBinary(searchPath = process.env.PATH ?? ''): Promise<SemgrepBinary | undefined> {
  for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
    for (const name of SEMGREP_BINARIES) {
      const file = path.join(dir, name);
      if (await isExecutable(file)) return { name, file };
    }
  }
  return undefined;
}

/** Opengrep dropped Semgrep's `--metrics` flag (1.6.0) and sends none; it still accepts `--disable-version-check`. */
export function semgrepArgs(name: SemgrepBinaryName, configs: string[], dir: string): string[] {
  return [
    'scan',
    '--json',
    '--quiet',
    ...(name === 'semgrep' ? ['--metrics=off'] : []),
    '--disable-version-check',
    ...configs.flatMap((config) => ['--config', config]),
    dir,
  ];
}

const excerpt = (text: string) => {
  const oneLine = text.trim().replace(/\s+/g, ' ');
  return oneLine.length > NOTE_TEXT_LIMIT ? `${oneLine.slice(0, NOTE_TEXT_LIMIT)}…` : oneLine;
};

/** The first error Semgrep put in its JSON output, when stdout holds one. */
function reportedError(stdout: string): string | undefined {
  try {
    const message = (JSON.parse(stdout) as Partial<SemgrepOutput>).errors?.find((e) => e?.message)?.message;
    return message ? excerpt(message) : undefined;
  } catch {
    return undefined;
  }
}

/** Runs the binary and resolves with its stdout; rejects on a non-zero exit, a signal or the time limit. */
export function runSemgrep(binary: SemgrepBinary, args: string[], options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<string> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(binary.file, args, { stdio: ['ignore', 'pipe', 'pipe'], signal: options.signal, timeout: timeoutMs, killSignal: 'SIGKILL' });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const out = Buffer.concat(stdout).toString('utf8');
      if (code === 0) return resolve(out);
      if (signal && Date.now() - started >= timeoutMs) return reject(new Error(`timed out after ${timeoutMs / 1000} s`));
      const why = reportedError(out) ?? excerpt(Buffer.concat(stderr).toString('utf8'));
      reject(new Error(`exited with ${signal ?? `code ${code}`}${why ? `: ${why}` : ''}`));
    });
  });
}

/** Parses `--json` output, keeping the results that carry what a finding needs. */
export function parseSemgrepOutput(stdout: string): SemgrepOutput {
  let doc: { results?: unknown; errors?: unknown } | null;
  try {
    doc = JSON.parse(stdout);
  } catch {
    throw new Error(`its output is not JSON: ${excerpt(stdout.slice(0, NOTE_TEXT_LIMIT)) || '(empty)'}`);
  }
  if (!doc || !Array.isArray(doc.results)) throw new Error('its output has no results list');
  const results = (doc.results as SemgrepResult[]).filter(
    (r) => typeof r?.check_id === 'string' && typeof r.path === 'string' && Number.isInteger(r.start?.line) && Number.isInteger(r.end?.line),
  );
  return { results, errors: Array.isArray(doc.errors) ? (doc.errors as SemgrepOutput['errors']) : [] };
}

const SEVERITY: Record<string, RawFinding['severity']> = {
  ERROR: 'high',
  WARNING: 'medium',
  INFO: 'low',
  // Semgrep's newer rule severities.
  CRITICAL: 'critical',
  HIGH: 'high',
  MEDIUM: 'medium',
  LOW: 'low',
};
/** A result whose level Semgrep spells in a way the table above does not know. */
const UNKNOWN_LEVEL_SEVERITY: RawFinding['severity'] = 'low';

const stringList = (value: unknown): string[] =>
  (Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]).filter((v): v is string => typeof v === 'string');

/** A result's path relative to the scanned folder (given as itself and as its real path), or undefined when outside it. */
export function relativeResultPath(resultPath: string, roots: string[]): string | undefined {
  for (const root of roots) {
    const relative = path.relative(root, path.resolve(root, resultPath));
    const outside = relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
    if (relative && !outside) return relative.split(path.sep).join('/');
  }
  return undefined;
}

/** One Semgrep result as a finding, its path already relative to the scanned folder. */
/** `text` is the whole file, so that the excerpt is masked knowing what surrounds it (a key block opened above it). */
export function toRawFinding(result: SemgrepResult, filePath: string, engine: SemgrepBinaryName, text: string): RawFinding {
  const extra = result.extra ?? {};
  const metadata = extra.metadata ?? {};
  const message = (extra.message ?? '').trim() || result.check_id;
  // Semgrep without a login prints "requires login" instead of the matched lines.
  const lines = extra.lines && extra.lines !== 'requires login' ? extra.lines.replace(/\s+/g, ' ').trim() : '';
  const content = lines || `${result.start.line}-${result.end.line}`;
  const confidence = typeof metadata.confidence === 'string' ? metadata.confidence.toLowerCase() : undefined;
  return {
    checkId: result.check_id,
    severity: SEVERITY[(extra.severity ?? '').toUpperCase()] ?? UNKNOWN_LEVEL_SEVERITY,
    category: typeof metadata.category === 'string' ? metadata.category : 'security',
    title: message.split(/(?<=\.)\s/)[0].slice(0, 200),
    message,
    filePath,
    startLine: result.start.line,
    endLine: result.end.line,
    cwe: stringList(metadata.cwe).slice(0, 1),
    owasp: stringList(metadata.owasp),
    references: stringList(metadata.references),
    fingerprint: crypto.createHash('sha256').update(`${result.check_id}\0${filePath}\0${content}`).digest('hex'),
    matchHash: hashParts(result.check_id, lines ? normalizeMatch(extra.lines!) : `${filePath}\0${content}`),
    anchor: lines ? firstCallee(extra.lines!) : null,
    snippet: snippetOf(text, result.start.line, result.end.line),
    commitSha: null,
    metadata: { engine, ...(confidence ? { confidence } : {}) },
  };
}

/** Where a finding is and what weakness it claims: the same place and CWE is one finding, whoever found it. */
function placeKey(finding: RawFinding): string {
  const cwe = finding.cwe.map((c) => /^CWE-(\d+)/i.exec(c)?.[1]).find(Boolean);
  return `${finding.filePath}\0${finding.startLine}\0${cwe ? `CWE-${cwe}` : `rule:${finding.checkId}`}`;
}

/** The built-in findings, then each external one at a place and CWE none of them (nor an earlier external one) holds. */
export function mergeFindings(builtIn: RawFinding[], external: RawFinding[]): RawFinding[] {
  const seen = new Set(builtIn.map(placeKey));
  const merged = [...builtIn];
  for (const finding of external) {
    const key = placeKey(finding);
    if (seen.has(key)) continue;
    seen.add(key);
    merged.push(finding);
  }
  return merged;
}

/** Files the built-in engine would not report on (vendored, test code, `.bulwarkignore`) are left out here too. */
const inScope = (file: string, ignored: Ignore) => !skipReason(file) && !isTestPath(file) && !ignored.ignores(file);

/**
 * The external engine's findings for `input.dir`, or none when no configs are set or no binary is found. A
 * failed run is reported through `input.onNote` and yields none; an abort is passed on.
 */
export async function externalSemgrepFindings(input: EngineInput, options: ExternalSemgrepOptions | undefined, ignored: Ignore): Promise<RawFinding[]> {
  if (!options?.configs.length) return [];
  const binary = await findSemgrepBinary(options.searchPath);
  if (!binary) return [];
  let output: SemgrepOutput;
  try {
    const args = semgrepArgs(binary.name, options.configs, input.dir);
    output = parseSemgrepOutput(await runSemgrep(binary, args, { signal: input.signal, timeoutMs: options.timeoutMs }));
  } catch (error) {
    input.signal?.throwIfAborted();
    input.onNote?.(`${binary.name} (${binary.file}) failed, so only the built-in rules' findings are reported: ${(error as Error).message}`);
    return [];
  }
  if (output.errors.length) {
    const first = output.errors.find((e) => e?.message)?.message;
    input.onNote?.(`${binary.name} reported ${output.errors.length} problem(s) while scanning${first ? ` (first: ${excerpt(first)})` : ''}`);
  }
  const roots = [input.dir, await fs.realpath(input.dir)];
  const findings: RawFinding[] = [];
  const texts = new Map<string, Promise<string | null>>();
  for (const result of output.results) {
    const file = relativeResultPath(result.path, roots);
    if (!file || !inScope(file, ignored)) continue;
    if (!texts.has(file)) texts.set(file, readTreeText(input.dir, file, MAX_FILE_BYTES));
    // A result in a file reached through a symbolic link, or no regular file at all, is not reported.
    const text = await texts.get(file)!;
    if (text !== null) findings.push(toRawFinding(result, file, binary.name, text));
  }
  return findings;
}
