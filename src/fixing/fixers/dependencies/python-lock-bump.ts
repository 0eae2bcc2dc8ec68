import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { normalizePythonName } from '../../../inventory/extractors/python/python-names.ts';
import { alreadyFixed, needsBump, refused, type BumpContext, type BumpResult, type DependencyBump, type ReadFile } from './dependency-bump.ts';
import type { Pin } from './python-resolve.ts';
import { bumpResolved } from './resolved-bump.ts';
import { raiseInPyproject } from './pyproject-bump.ts';
import { escapeRegExp } from '../../../regexp.ts';
import { applyEdits, type TextEdit } from '../shared/text-edits.ts';
import { scanTomlAssignments, type TomlAssignment } from './toml-scan.ts';

// poetry.lock, uv.lock and pdm.lock: the package's entry at the vulnerable version is set to the fixed
// one and loses its artifact list (poetry/pdm `files`, uv `sdist` and `wheels`), whose hashes belong to
// the old version and cannot be known offline; the sibling pyproject.toml's constraint is raised to
// admit it. The lock is then consistent in what it installs but needs its locker run once to restore
// hashes (and the content hash, where pyproject.toml changed): the note says so.

const LOCKERS: Record<string, { command: string; artifacts: string[]; emptied: boolean }> = {
  'poetry.lock': { command: 'poetry lock (poetry lock --no-update before Poetry 2)', artifacts: ['files'], emptied: true },
  'pdm.lock': { command: 'pdm lock --update-reuse', artifacts: ['files'], emptied: true },
  'uv.lock': { command: 'uv lock', artifacts: ['sdist', 'wheels'], emptied: false },
};

export function isPythonLock(file: string): boolean {
  return path.posix.basename(file) in LOCKERS;
}

/** The plain bump, with the lock's other packages moved along where the new release requires (see resolved-bump.ts). */
export function bumpPythonLockResolved(bump: DependencyBump, text: string, read: ReadFile, context: BumpContext): Promise<BumpResult> {
  let pins: Map<string, Pin>;
  try {
    parseToml(text);
    pins = lockedVersions(scanTomlAssignments(text));
  } catch {
    return bumpPythonLock(bump, text, read);
  }
  return bumpResolved(bump, text, read, context, pins, bumpPythonLock);
}

/** Each locked package's version by normalized name (the first entry of a name, where a lock holds several). */
function lockedVersions(assignments: TomlAssignment[]): Map<string, Pin> {
  const pins = new Map<string, Pin>();
  for (const entry of packageEntries(assignments)) {
    const name = entry.find((a) => a.key === 'name')?.strings[0]?.content;
    const version = entry.find((a) => a.key === 'version')?.strings[0]?.content;
    if (name && version && !pins.has(normalizePythonName(name))) pins.set(normalizePythonName(name), { name, version });
  }
  return pins;
}

export async function bumpPythonLock(bump: DependencyBump, text: string, read: ReadFile): Promise<BumpResult> {
  const base = path.posix.basename(bump.file);
  const locker = LOCKERS[base];
  try {
    parseToml(text);
  } catch {
    return refused(`${bump.file} is not valid TOML`);
  }
  const wanted = normalizePythonName(bump.name);
  const assignments = scanTomlAssignments(text);
  const edits: TextEdit[] = [];
  let entries = 0;
  for (const entry of packageEntries(assignments)) {
    const name = entry.find((a) => a.key === 'name')?.strings[0];
    const version = entry.find((a) => a.key === 'version')?.strings[0];
    if (!name || !version || normalizePythonName(name.content) !== wanted || !needsBump(bump, version.content)) continue;
    entries++;
    edits.push({ start: version.start + 1, end: version.end - 1, text: bump.fixed });
    for (const artifact of entry.filter((a) => locker.artifacts.includes(a.key))) {
      edits.push(locker.emptied ? { start: artifact.valueStart, end: artifact.valueEnd, text: '[]' } : { start: artifact.lineStart, end: artifact.end, text: '' });
    }
  }
  if (!entries) return alreadyFixed(bump);
  // Poetry before 1.2 kept the hashes apart, in `[metadata.files]`.
  for (const files of assignments.filter((a) => a.table === 'metadata.files' && normalizePythonName(a.key) === wanted)) {
    edits.push({ start: files.valueStart, end: files.valueEnd, text: '[]' });
  }
  let lock = applyEdits(text, edits);
  if (base === 'uv.lock') lock = bumpUvReferences(lock, bump);

  const files = new Map([[bump.file, lock]]);
  const manifest = path.posix.join(path.posix.dirname(bump.file), 'pyproject.toml');
  const pyproject = await read(manifest);
  let raised = '';
  if (pyproject !== null) {
    const change = raiseInPyproject(pyproject, bump.name, bump.fixed);
    if ('refused' in change) return refused(change.refused);
    if (change.changed) {
      files.set(manifest, change.text);
      raised = ` and raised its constraint in ${manifest}`;
    }
  }
  return {
    kind: 'bumped',
    files,
    note: `Set ${bump.name} ${bump.installed} to ${bump.fixed} in ${bump.file}${raised}; its old file hashes were removed, so run ${locker.command} to record the new ones`,
  };
}

/** The main table of each `[[package]]`, its `[package.*]` subtables left out. */
function packageEntries(assignments: TomlAssignment[]): TomlAssignment[][] {
  const byIndex = new Map<number, TomlAssignment[]>();
  for (const assignment of assignments) {
    if (assignment.table !== 'package') continue;
    byIndex.set(assignment.tableIndex, [...(byIndex.get(assignment.tableIndex) ?? []), assignment]);
  }
  return [...byIndex.values()];
}

/** uv names a version in a dependency reference where the lock holds several: `{ name = "x", version = "1.0" … }`. */
function bumpUvReferences(text: string, bump: DependencyBump): string {
  const reference = new RegExp(`(\\{\\s*name\\s*=\\s*"${escapeRegExp(bump.name)}"\\s*,\\s*version\\s*=\\s*")${escapeRegExp(bump.installed)}"`, 'gi');
  return text.replace(reference, `$1${bump.fixed}"`);
}
