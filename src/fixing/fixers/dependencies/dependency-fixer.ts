import path from 'node:path';
import semver from 'semver';
import { ECOSYSTEMS, type Ecosystem } from '../../../inventory/component.ts';
import type { AdvisoryLookup } from '../../../osv/advisories.ts';
import { affectedMatch, nearestFixedVersion } from '../../../osv/affected.ts';
import type { Advisory } from '../../../osv/advisories.ts';
import { packageKey } from '../../../osv/package-key.ts';
import { versionScheme } from '../../../osv/versions.ts';
import { notFixed, type Fixer, type FixerOutcome, type FixFinding, type FixWorkspace } from '../../types.ts';
import { affectedCopies } from './affected-copies.ts';
import { crossesMajor, majorVersionNote, type BumpContext, type BumpResult, type DependencyBump, type ReadFile } from './dependency-bump.ts';
import { bumpNpmLock } from './npm-bump.ts';
import { regenerateNpmLock } from './npm-lock-regenerate.ts';
import { defaultPackageRegistry, RegistryUnreachable, type PackageRegistry } from './package-registry.ts';
import { bumpPyproject } from './pyproject-bump.ts';
import { bumpPythonLockResolved, isPythonLock } from './python-lock-bump.ts';
import { bumpRequirementsResolved } from './requirements-bump.ts';
import { readTreeFile, writeTreeFile } from '../shared/tree-files.ts';

// Raises a vulnerable dependency to the smallest version that fixes it, in the lockfile or requirements
// file the scan found it in and in the manifest that declares it, checked against the registry's
// metadata so the result still installs; a move to a new major version is left to the user to review.

const REQUIREMENTS = /(?:^|[-_.])requirements(?:[-_.][\w.-]*)?\.txt$/i;

type Bumper = (bump: DependencyBump, text: string, read: ReadFile, context: BumpContext) => Promise<BumpResult>;

function bumperFor(file: string, ecosystem: Ecosystem): Bumper | undefined {
  const base = path.posix.basename(file);
  if (ecosystem === 'npm' && (base === 'package-lock.json' || base === 'npm-shrinkwrap.json')) return bumpNpmLock;
  // An included file (`-r base.txt`) is a requirements file whatever its name.
  if (ecosystem === 'PyPI' && (REQUIREMENTS.test(base) || base.endsWith('.txt'))) return bumpRequirementsResolved;
  if (ecosystem === 'PyPI' && isPythonLock(file)) return bumpPythonLockResolved;
  if (ecosystem === 'PyPI' && base === 'pyproject.toml') return bumpPyproject;
  return undefined;
}

export interface DependencyFixerOptions {
  /** Default: the public registries. */
  registry?: PackageRegistry;
  /** The stored advisories, so the chosen version is clear of the package's other advisories too. */
  advisories?: AdvisoryLookup;
}

export function createDependencyFixer(options: DependencyFixerOptions = {}): Fixer {
  return {
    name: 'dependencies',
    handles: isDependencyAdvisory,
    apply: (finding, workspace) => fixDependency(finding, workspace, options),
  };
}

/**
 * Whether the finding is an advisory on a dependency: the SBOM engine files those under the `dependency`
 * category, with the package and its ecosystem in the metadata.
 */
export function isDependencyAdvisory(finding: FixFinding): boolean {
  const { package: name, ecosystem } = finding.metadata;
  return finding.category === 'dependency' || (typeof name === 'string' && typeof ecosystem === 'string');
}

/** The fixer against the public registries, without the stored advisories. */
export const dependencyFixer: Fixer = createDependencyFixer();

/** Whether a version is outside every affected range the stored advisories give for the package. */
function clearOf(advisories: AdvisoryLookup | undefined, bump: DependencyBump): (version: string) => Promise<boolean> {
  if (!advisories) return async () => true;
  const key = packageKey(bump.ecosystem, bump.name);
  const known = advisories.forPackages(bump.ecosystem, [key]).then((found) => found.get(key) ?? []);
  return async (version) => (await known).every((advisory) => advisory.affected.every((entry) => !affectedMatch(entry, bump.ecosystem, version).affected));
}

async function fixDependency(finding: FixFinding, workspace: FixWorkspace, options: DependencyFixerOptions): Promise<FixerOutcome> {
  workspace.signal.throwIfAborted();
  const bump = bumpOf(finding);
  if (typeof bump === 'string') return notFixed(bump);
  const bumper = bumperFor(bump.file, bump.ecosystem);
  if (!bumper) {
    return notFixed(`Automatic upgrades in ${path.posix.basename(bump.file)} (${bump.ecosystem}) are not supported; upgrade ${bump.name} to ${bump.fixed} or later by hand`);
  }
  const read: ReadFile = (file) => readTreeFile(workspace.dir, file);
  const text = await read(bump.file);
  if (text === null) return notFixed(`${bump.file} no longer exists, so ${bump.name} was not upgraded there`);
  const together = options.advisories ? await fixedForEveryAdvisory(options.advisories, bump, finding.checkId) : undefined;
  if (together) bump.fixed = together.version;
  const registry = options.registry ?? defaultPackageRegistry();
  const context: BumpContext = { registry, isClear: clearOf(options.advisories, bump), signal: workspace.signal };
  if (bumper === bumpNpmLock && options.advisories && semver.valid(bump.fixed)) {
    const clear = await smallestClearNpmVersion(bump, context);
    if (typeof clear !== 'string') return notFixed(`${bump.name} was not upgraded to ${bump.fixed}: ${clear.refused}`);
    bump.fixed = clear;
  }
  const result = await bumper(bump, text, read, context);
  if (result.kind === 'refused') return notFixed(`${bump.name} was not upgraded to ${bump.fixed}: ${result.reason}`);
  if (result.kind === 'already') {
    // The bumper found nothing to raise; the extractor must agree, or the entry is written in a way it missed.
    const left = await affectedCopies(bump.file, text, bump, { readFile: (file) => read(path.posix.normalize(file)).catch(() => null) }).catch(() => null);
    if (left?.length) return notFixed(`${bump.name} was not upgraded to ${bump.fixed}: the fixer could not find how ${bump.file} pins ${bump.name} ${left[0].version}`);
    return { fixed: true, changedFiles: [], note: result.note };
  }

  const originals = new Map<string, string | null>();
  for (const file of result.files.keys()) originals.set(file, file === bump.file ? text : await read(file));
  for (const [file, after] of result.files) if (after !== originals.get(file)) await writeTreeFile(workspace.dir, file, after);
  let note = together?.note ? `${result.note}; ${together.note}` : result.note;
  if (bumper === bumpNpmLock) {
    const regenerated = await regenerateNpmLock({ dir: workspace.dir, lockFile: bump.file, pins: result.pins ?? [], npmUrl: registry.settings.npmUrl, signal: workspace.signal });
    if ('refused' in regenerated) {
      for (const [file, original] of originals) if (original !== null) await writeTreeFile(workspace.dir, file, original);
      return notFixed(`${bump.name} was not upgraded to ${bump.fixed}: ${regenerated.refused}`);
    }
    note = `${note}; ${regenerated.note}`;
  }
  const changedFiles: string[] = [];
  for (const [file, original] of originals) if ((await read(file)) !== original) changedFiles.push(file);

  const moves = result.moves ?? [{ name: bump.name, from: bump.installed, to: bump.fixed }];
  const majors = moves.filter((move) => crossesMajor(bump.ecosystem, move.from, move.to)).map(majorVersionNote);
  if (majors.length) note = `${note}; ${majors.join('; ')}`;
  return { fixed: changedFiles.includes(bump.file), changedFiles, note, ...(majors.length ? { userNotes: majors } : {}) };
}

const affects = (advisory: Advisory, ecosystem: Ecosystem, version: string) =>
  advisory.affected.some((entry) => affectedMatch(entry, ecosystem, version).affected);

/**
 * One upgrade for every stored advisory of the package that affects the installed version: the finding's
 * fixed version, raised while another advisory still affects it to that advisory's nearest fix (what the
 * advisories themselves say, so it holds without the registry too), with a sentence naming the other
 * advisories the upgrade fixes. Undefined when no other advisory affects the installed version.
 */
async function fixedForEveryAdvisory(lookup: AdvisoryLookup, bump: DependencyBump, advisoryId: string): Promise<{ version: string; note: string } | undefined> {
  const key = packageKey(bump.ecosystem, bump.name);
  const others = ((await lookup.forPackages(bump.ecosystem, [key])).get(key) ?? []).filter(
    (advisory) => advisory.id !== advisoryId && !advisory.aliases.includes(advisoryId) && affects(advisory, bump.ecosystem, bump.installed),
  );
  if (!others.length) return undefined;
  const scheme = versionScheme(bump.ecosystem);
  let version = bump.fixed;
  for (let round = 0; round < 50; round++) {
    const blocking = others.find((advisory) => affects(advisory, bump.ecosystem, version));
    if (!blocking) break;
    const next = nearestFixedVersion(bump.ecosystem, blocking.affected.flatMap((entry) => affectedMatch(entry, bump.ecosystem, version).fixedVersions));
    if (!next || !scheme.isValid(next) || !scheme.isValid(version) || scheme.compare(next, version) <= 0) break;
    version = next;
  }
  const fixed = others.filter((advisory) => !affects(advisory, bump.ecosystem, version)).map((advisory) => advisory.id);
  if (!fixed.length) return undefined;
  const also = `the one upgrade also fixes ${fixed.join(', ')} of ${bump.name}`;
  return { version, note: version === bump.fixed ? also : `${bump.name} goes to ${version} or later rather than ${bump.fixed}, so that ${also}` };
}

/** The smallest published npm version from the fixed one on that no stored advisory of the package affects. */
async function smallestClearNpmVersion(bump: DependencyBump, context: BumpContext): Promise<string | { refused: string }> {
  let versions: string[];
  try {
    versions = await context.registry.npmVersions(bump.name, context.signal);
  } catch (error) {
    if (error instanceof RegistryUnreachable) return { refused: `the package registry is needed to choose a version clear of every advisory, and ${error.message}` };
    throw error;
  }
  for (const version of versions) {
    if (semver.prerelease(version) || semver.lt(version, bump.fixed)) continue;
    if (await context.isClear(version)) return version;
  }
  return { refused: `no published version from ${bump.fixed} on is clear of every advisory of ${bump.name}` };
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

