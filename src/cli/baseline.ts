import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { identityOfDetection, matchFindings, type DetectedIdentity, type StoredIdentity } from '../core/finding-identity.ts';
import type { ReportFormat } from '../reports/index.ts';
import type { RawFinding } from '../scanning/engine.ts';
import { writeCommitFiles } from '../scm/commit-files.ts';
import { git } from '../scm/git-command.ts';
import { renamedSinceCommit } from '../scm/work-tree-renames.ts';
import { UsageError } from './output.ts';

// `bulwark scan DIR --baseline REF`: the findings of DIR that REF does not already have, as the service
// follows a finding from one commit to the next (src/core/finding-identity.ts, files followed through
// git's rename detection). REF's files are written to a temporary folder from the object database.

/** The commit of DIR's repository that DIR is compared with. */
export interface Baseline {
  /** As given on the command line. */
  ref: string;
  commit: string;
  gitDir: string;
  /** DIR's folder within the repository: '' at its top, else `sub/dir/`. */
  prefix: string;
}

export interface BaselineSummary {
  ref: string;
  commit: string;
  /** Findings of DIR left out of the report because REF has them. */
  alreadyPresent: number;
}

/** --baseline's value: a revision, never something git could read as an option. */
export function baselineOption(values: Record<string, unknown>): string | undefined {
  const ref = values.baseline;
  if (ref === undefined) return undefined;
  if (typeof ref !== 'string' || ref.trim() === '') throw new UsageError('--baseline needs a git revision: a branch, tag or commit');
  if (ref.startsWith('-')) throw new UsageError(`--baseline takes a git revision (a branch, tag or commit), not "${ref}"`);
  return ref;
}

/** The repository around `dir` and the commit `ref` names in it; usage errors when there is neither. */
export async function resolveBaseline(dir: string, ref: string, timeoutMs: number): Promise<Baseline> {
  let top: string;
  let gitDir: string;
  let prefix: string;
  try {
    [top, gitDir, prefix = ''] = (await git(['rev-parse', '--show-toplevel', '--absolute-git-dir', '--show-prefix'], { cwd: dir, timeoutMs })).split('\n');
  } catch (error) {
    throw new UsageError(`--baseline compares with a commit of the folder's git repository, and ${dir} is not in a git work tree (${(error as Error).message})`);
  }
  try {
    const commit = (await git(['--git-dir', gitDir, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { timeoutMs })).trim();
    return { ref, commit, gitDir, prefix };
  } catch {
    throw new UsageError(`--baseline ${ref}: no such commit in the repository at ${top} (a shallow clone may lack it: fetch it first)`);
  }
}

export interface BaselineTree {
  /** REF's files of DIR's folder. */
  dir: string;
  /** REF's files the repository holds no content for (a partial clone), left out. */
  missing: number;
  /** Files git sees renamed from REF to DIR's work tree, old path to new, relative to DIR. */
  renames: Map<string, string>;
}

const CLEANUP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Runs `use` on REF's files, written to a temporary folder that is removed afterwards: when `use` ends or
 * fails, and when the process is interrupted (the signal is then raised again, so it still ends the process).
 */
export async function withBaselineTree<T>(baseline: Baseline, dir: string, timeoutMs: number, use: (tree: BaselineTree) => Promise<T>): Promise<T> {
  let scratch: string | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    for (const s of CLEANUP_SIGNALS) process.off(s, onSignal);
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
    process.kill(process.pid, signal);
  };
  // Handlers first and the folder made synchronously: a signal is handled only once the folder is known.
  for (const s of CLEANUP_SIGNALS) process.on(s, onSignal);
  try {
    const folder = (scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-baseline-')));
    const tree = path.join(folder, 'tree');
    await fsp.mkdir(tree);
    const files = await writeCommitFiles(baseline.gitDir, baseline.commit, tree, { prefix: baseline.prefix, timeoutMs });
    const renames = await renamedSinceCommit(dir, baseline.commit, { scratch: folder, timeoutMs });
    return await use({ dir: tree, missing: files.missing, renames });
  } finally {
    if (scratch) await fsp.rm(scratch, { recursive: true, force: true });
    for (const s of CLEANUP_SIGNALS) process.off(s, onSignal);
  }
}


/** DIR's findings that are none of REF's, each of REF's findings standing for one of DIR's at most. */
export function newFindings(found: RawFinding[], inBaseline: RawFinding[], renames: ReadonlyMap<string, string>): RawFinding[] {
  const stored: StoredIdentity[] = inBaseline.map((f, i) => ({ id: String(i), ...identityOfDetection(f) }));
  const detected: DetectedIdentity[] = found.map(identityOfDetection);
  const matches = matchFindings(stored, detected, renames);
  return found.filter((_, i) => matches[i] === undefined);
}

export function baselineLine(summary: BaselineSummary): string {
  const n = summary.alreadyPresent;
  return `${n} finding${n === 1 ? '' : 's'} left out as already present in ${summary.ref} (${summary.commit.slice(0, 12)})`;
}

/**
 * A rendered report with what the baseline left out: a last line of the table, `summary.baseline` in json,
 * the run's `properties.baseline` in SARIF. semgrep-json keeps Semgrep's shape and says nothing.
 */
export function withBaselineSummary(format: ReportFormat, text: string, summary: BaselineSummary): string {
  if (format === 'table') return `${text}${baselineLine(summary)}\n`;
  if (format === 'json') {
    const report = JSON.parse(text);
    report.summary.baseline = { ref: summary.ref, commit: summary.commit, already_present: summary.alreadyPresent };
    return JSON.stringify(report, null, 2) + '\n';
  }
  if (format === 'sarif') {
    const sarif = JSON.parse(text);
    for (const run of sarif.runs) run.properties = { ...run.properties, baseline: { ...summary } };
    return JSON.stringify(sarif, null, 2) + '\n';
  }
  return text;
}
