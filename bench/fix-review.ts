// A reviewer's reading of one fix, for bench:fixes: does each changed Python module still parse under the
// Python the application declares (the lowest its declarations allow, as the repository facts read them;
// with none, 2.7 for Python 2 code, else the local Python 3), does it reach for a standard-library name
// that version lacks (python-apis.ts), and does the fix add a credential read that fails open
// (fail-open.ts). Only texts are read: nothing of the checkout is run or imported. A finding the unchanged
// file has as well is kept but marked preexisting, as it is not the fix's doing (a module that did not
// parse before means the declared version is doubtful, not the fix).
import fs from 'node:fs';
import path from 'node:path';
import { readRepoFacts } from '../src/fixing/repo-facts.ts';
import { failOpenReads } from './fix-review/fail-open.ts';
import { apiUses, unavailableApis } from './fix-review/python-apis.ts';
import { checkSyntax, localPython3, planSyntaxCheck, versionText, type PythonVersion, type SyntaxProblem } from './fix-review/python-syntax.ts';

export interface ChangedFile {
  path: string;
  /** null: the fix creates the file. */
  before: string | null;
  /** null: the fix deletes the file. */
  after: string | null;
}

export interface FixReviewFinding {
  kind: 'syntax' | 'api' | 'fail-open';
  file: string;
  line: number | null;
  /** The Python version it concerns (syntax and api). */
  version?: string;
  message: string;
  preexisting: boolean;
}

export interface CheckedVersion {
  version: string;
  /** Where the application declares it, or why it is checked though undeclared. */
  source: string;
  /** How its syntax was checked; null when no interpreter here can. */
  how: string | null;
  caveat?: string;
}

export interface FixReview {
  versions: CheckedVersion[];
  findings: FixReviewFinding[];
}

interface VersionToCheck extends PythonVersion {
  source: string;
}

/** The lowest Python the repository facts find declared, as a version to check (`2` reads as 2.7, `3` as the local 3.x). */
async function declared(checkout: string): Promise<VersionToCheck | null> {
  const python = (await readRepoFacts(checkout)).runtimes.python;
  const [major, minor, micro] = (python?.lowest ?? '').split('.').map(Number);
  if (!python || (major !== 2 && major !== 3)) return null;
  const source = `${python.source}: ${python.spec}`;
  if (minor !== undefined) return { major, minor, ...(micro !== undefined ? { micro } : {}), source };
  if (major === 2) return { major, minor: 7, source: `${source}, read as 2.7` };
  const local = localPython3();
  return local ? { ...local, source: `${source}, read as the local ${versionText(local)}` } : null;
}

async function syntaxProblems(version: PythonVersion, files: { name: string; source: string }[]): Promise<(SyntaxProblem | null)[] | null> {
  const plan = planSyntaxCheck(version);
  return plan ? checkSyntax(plan, files) : null;
}

/**
 * The versions to check: the one the repository declares (the lowest it allows); with none declared, the
 * local Python 3, or 2.7 when an unchanged module is Python 2 code: it parses as Python 2.7 and not as
 * Python 3, or imports a module Python 3 does not have (urlparse, urllib2…).
 */
async function versionsFor(checkout: string, befores: { name: string; source: string }[]): Promise<VersionToCheck[]> {
  const version = await declared(checkout);
  if (version) return [version];
  const local = localPython3();
  if (!local) return [];
  const py3 = await syntaxProblems(local, befores);
  if (py3?.some(Boolean)) {
    const py2 = await syntaxProblems({ major: 2, minor: 7 }, befores);
    const moduleOf = py3.findIndex(Boolean);
    if (py2 && !py2[moduleOf]) return [{ major: 2, minor: 7, source: `none declared; ${befores[moduleOf]!.name} parses as Python 2.7, not as Python 3` }];
  }
  const py2Only = python2OnlyImport(checkout, befores);
  if (py2Only) return [{ major: 2, minor: 7, source: `none declared; ${py2Only}, which Python 3 does not have` }];
  return [{ ...local, source: 'none declared; the local Python 3' }];
}

const SKIPPED = new Set(['.git', 'node_modules', 'venv', '.venv', 'env', 'virtualenv', 'site-packages', '__pycache__', 'dist', 'build', '.tox']);
const python2ByFolder = new Map<string, string | null>();

/**
 * Where the application uses a module only Python 2 has (`import urlparse`, `urllib2`): in the files the fix
 * changes, else in the Python files of the top folder they are in (the whole checkout for a file at its root,
 * as a repository of several small apps keeps each in a folder of its own); at most 2,000 files of up to
 * 512 KiB, no link followed.
 */
function python2OnlyImport(checkout: string, befores: { name: string; source: string }[]): string | null {
  const find = (name: string, source: string) => {
    const use = apiUses(source).find((u) => u.entry.py3 === null);
    return use ? `${name}:${use.line} uses ${use.entry.name}` : null;
  };
  for (const before of befores) {
    const found = find(before.name, before.source);
    if (found) return found;
  }
  for (const top of new Set(befores.map((b) => (b.name.includes('/') ? b.name.split('/')[0]! : '')))) {
    const key = `${checkout}\0${top}`;
    if (!python2ByFolder.has(key)) {
      let found: string | null = null;
      let files = 0;
      const visit = (dir: string) => {
        let entries: fs.Dirent[];
        try {
          entries = fs.readdirSync(path.join(checkout, dir), { withFileTypes: true });
        } catch {
          return;
        }
        for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
          if (found || files >= 2000) return;
          const rel = path.join(dir, entry.name);
          if (entry.isDirectory() && !SKIPPED.has(entry.name)) visit(rel);
          else if (entry.isFile() && entry.name.endsWith('.py') && fs.statSync(path.join(checkout, rel)).size <= 512 << 10) {
            files++;
            found = find(rel, fs.readFileSync(path.join(checkout, rel), 'utf8'));
          }
        }
      };
      visit(top);
      python2ByFolder.set(key, found);
    }
    if (python2ByFolder.get(key)) return python2ByFolder.get(key)!;
  }
  return null;
}

/** Marks as preexisting as many of `after`'s items of each key as `before` has. */
function markPreexisting<T>(after: T[], before: T[], key: (item: T) => string): { item: T; preexisting: boolean }[] {
  const left = new Map<string, number>();
  for (const item of before) left.set(key(item), (left.get(key(item)) ?? 0) + 1);
  return after.map((item) => {
    const n = left.get(key(item)) ?? 0;
    if (n) left.set(key(item), n - 1);
    return { item, preexisting: n > 0 };
  });
}

/** What a reviewer of the fix would flag in its changed files (`checkout` is the repository the fix applies to). */
export async function reviewFix(checkout: string, files: ChangedFile[]): Promise<FixReview> {
  const findings: FixReviewFinding[] = [];
  const python = files.filter((f) => f.path.endsWith('.py') && f.after !== null);
  const afters = python.map((f) => ({ name: f.path, source: f.after! }));
  const befores = python.filter((f) => f.before !== null).map((f) => ({ name: f.path, source: f.before! }));
  const versions: CheckedVersion[] = [];
  for (const version of python.length ? await versionsFor(checkout, befores) : []) {
    const label = versionText({ major: version.major, minor: version.minor, micro: version.micro });
    const plan = planSyntaxCheck(version);
    versions.push({ version: label, source: version.source, how: plan?.how ?? null, ...(plan?.caveat ? { caveat: plan.caveat } : {}) });
    if (plan) {
      const [after, before] = await Promise.all([checkSyntax(plan, afters), checkSyntax(plan, befores)]);
      after.forEach((problem, i) => {
        if (!problem) return;
        const file = python[i]!;
        const was = befores.findIndex((b) => b.name === file.path);
        findings.push({
          kind: 'syntax', file: file.path, line: problem.line, version: label, preexisting: was >= 0 && !!before[was],
          message: `does not parse as Python ${label}: ${problem.message} (${plan.how})`,
        });
      });
    }
    for (const file of python) {
      const missing = unavailableApis(file.after!, version);
      const old = file.before === null ? [] : unavailableApis(file.before, version);
      for (const { item, preexisting } of markPreexisting(missing, old, (m) => m.why)) {
        findings.push({ kind: 'api', file: file.path, line: item.use.line, version: label, preexisting, message: `${item.why} (Python ${label}: ${version.source})` });
      }
    }
  }
  for (const file of files) {
    if (file.after === null) continue;
    const reads = failOpenReads(file.path, file.after);
    if (!reads.length) continue;
    const old = file.before === null ? [] : failOpenReads(file.path, file.before);
    for (const { item, preexisting } of markPreexisting(reads, old, (r) => `${r.how}|${r.sink}|${r.variable}`)) {
      findings.push({ kind: 'fail-open', file: file.path, line: item.line, preexisting, message: item.message });
    }
  }
  return { versions, findings };
}

interface Counts {
  fixes: number;
  syntax: number;
  api: number;
  failOpen: number;
  flagged: number;
  preexisting: number;
}

/** Per-repository and total figures of the reviews of many fixes, printed, never asserted. */
export class FixReviewTally {
  private readonly byRepo = new Map<string, Counts>();
  private readonly versionsByRepo = new Map<string, Set<string>>();

  add(repo: string, review: FixReview): void {
    const counts = this.byRepo.get(repo) ?? { fixes: 0, syntax: 0, api: 0, failOpen: 0, flagged: 0, preexisting: 0 };
    this.byRepo.set(repo, counts);
    counts.fixes++;
    const introduced = review.findings.filter((f) => !f.preexisting);
    const has = (kind: FixReviewFinding['kind']) => introduced.some((f) => f.kind === kind);
    if (has('syntax')) counts.syntax++;
    if (has('api')) counts.api++;
    if (has('fail-open')) counts.failOpen++;
    if (introduced.length) counts.flagged++;
    counts.preexisting += review.findings.length - introduced.length;
    const versions = this.versionsByRepo.get(repo) ?? new Set();
    this.versionsByRepo.set(repo, versions);
    for (const v of review.versions) versions.add(`${v.version} (${v.source}; ${v.how ?? 'no interpreter can check it here'})`);
  }

  lines(): string[] {
    const header = ['', 'fixes', 'breaks syntax', 'missing API', 'fails open', 'flagged', 'preexisting'];
    const total: Counts = { fixes: 0, syntax: 0, api: 0, failOpen: 0, flagged: 0, preexisting: 0 };
    const rows = [...this.byRepo.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([repo, c]) => {
      for (const k of Object.keys(total) as (keyof Counts)[]) total[k] += c[k];
      return [repo, c.fixes, c.syntax, c.api, c.failOpen, c.flagged, c.preexisting].map(String);
    });
    rows.push(['total', total.fixes, total.syntax, total.api, total.failOpen, total.flagged, total.preexisting].map(String));
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const out = ['\nfix review (fixes whose changes a reviewer would flag: each counted once per kind; preexisting: findings the unchanged files had too)'];
    for (const row of [header, ...rows]) out.push(row.map((cell, i) => (i ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  '));
    out.push('Python versions checked per repository:');
    for (const [repo, versions] of [...this.versionsByRepo.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
      out.push(`  ${repo}: ${versions.size ? [...versions].join('; ') : 'no Python module changed'}`);
    }
    return out;
  }
}
