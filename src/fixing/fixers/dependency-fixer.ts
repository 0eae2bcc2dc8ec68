import path from 'node:path';
import { ECOSYSTEMS, type Ecosystem } from '../../sbom/component.ts';
import { versionScheme } from '../../osv/versions.ts';
import type { Fixer, FixerOutcome, FixFinding, FixWorkspace } from '../types.ts';
import { affectedCopies } from './affected-copies.ts';
import type { BumpResult, DependencyBump, ReadFile } from './dependency-bump.ts';
import { bumpNpmLock } from './npm-bump.ts';
import { bumpPyproject } from './pyproject-bump.ts';
import { bumpPythonLock, isPythonLock } from './python-lock-bump.ts';
import { bumpRequirements } from './requirements-bump.ts';
import { readTreeFile, writeTreeFile } from './tree-files.ts';

// Raises a vulnerable dependency to the version its advisory names as fixed, in the lockfile or
// requirements file the scan found it in and in the manifest that declares it.

const REQUIREMENTS = /(?:^|[-_.])requirements(?:[-_.][\w.-]*)?\.txt$/i;

type Bumper = (bump: DependencyBump, text: string, read: ReadFile) => Promise<BumpResult>;

function bumperFor(file: string, ecosystem: Ecosystem): Bumper | undefined {
  const base = path.posix.basename(file);
  if (ecosystem === 'npm' && (base === 'package-lock.json' || base === 'npm-shrinkwrap.json')) return bumpNpmLock;
  // An included file (`-r base.txt`) is a requirements file whatever its name.
  if (ecosystem === 'PyPI' && (REQUIREMENTS.test(base) || base.endsWith('.txt'))) return bumpRequirements;
  if (ecosystem === 'PyPI' && isPythonLock(file)) return bumpPythonLock;
  if (ecosystem === 'PyPI' && base === 'pyproject.toml') return bumpPyproject;
  return undefined;
}

export const dependencyFixer: Fixer = {
  name: 'dependencies',
  handles: (finding) => finding.scanType === 'sbom_scan',
  apply: fixDependency,
};

async function fixDependency(finding: FixFinding, workspace: FixWorkspace): Promise<FixerOutcome> {
  workspace.signal.throwIfAborted();
  const bump = bumpOf(finding);
  if (typeof bump === 'string') return refuse(bump);
  const bumper = bumperFor(bump.file, bump.ecosystem);
  if (!bumper) {
    return refuse(`Automatic upgrades in ${path.posix.basename(bump.file)} (${bump.ecosystem}) are not supported; upgrade ${bump.name} to ${bump.fixed} or later by hand`);
  }
  const read: ReadFile = (file) => readTreeFile(workspace.dir, file);
  const text = await read(bump.file);
  if (text === null) return refuse(`${bump.file} no longer exists, so ${bump.name} was not upgraded there`);
  const result = await bumper(bump, text, read);
  if (result.kind === 'refused') return refuse(`${bump.name} was not upgraded to ${bump.fixed}: ${result.reason}`);
  if (result.kind === 'already') {
    // The bumper found nothing to raise; the extractor must agree, or the entry is written in a way it missed.
    const left = await affectedCopies(bump.file, text, bump, { readFile: (file) => read(path.posix.normalize(file)).catch(() => null) }).catch(() => null);
    if (left?.length) return refuse(`${bump.name} was not upgraded to ${bump.fixed}: the fixer could not find how ${bump.file} pins ${bump.name} ${left[0].version}`);
    return { fixed: true, changedFiles: [], note: result.note };
  }

  const changedFiles: string[] = [];
  for (const [file, after] of result.files) {
    if (after === (file === bump.file ? text : await read(file))) continue;
    await writeTreeFile(workspace.dir, file, after);
    changedFiles.push(file);
  }
  return { fixed: changedFiles.includes(bump.file), changedFiles, note: result.note };
}

/** The finding's package and versions, or why it cannot be upgraded. */
function bumpOf(finding: FixFinding): DependencyBump | string {
  const { package: name, ecosystem, installed_version: installed, fixed_version: fixed } = finding.metadata;
  if (typeof name !== 'string' || typeof installed !== 'string' || !ECOSYSTEMS.includes(ecosystem as Ecosystem)) {
    return `The finding does not say which package and version to upgrade`;
  }
  if (typeof fixed !== 'string' || !fixed) return `No fixed version of ${name} is published for ${finding.checkId}, so there is nothing to upgrade to`;
  const scheme = versionScheme(ecosystem as Ecosystem);
  if (scheme.isValid(installed) && scheme.isValid(fixed) && scheme.compare(fixed, installed) <= 0) {
    return `${name} ${installed} is not older than the fixed version ${fixed}`;
  }
  return { name, ecosystem: ecosystem as Ecosystem, installed, fixed, file: finding.filePath };
}

function refuse(note: string): FixerOutcome {
  return { fixed: false, changedFiles: [], note };
}
