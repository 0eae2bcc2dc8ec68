import path from 'node:path';
import semver from 'semver';
import { alreadyFixed, needsBump, refused, type BumpResult, type DependencyBump, type LockPin, type ReadFile } from './dependency-bump.ts';
import { formatJson, isJsonObject, jsonLayout, parseJsonObject, type JsonObject } from '../shared/json-file.ts';
import { npmRangeAdmits, raiseNpmRange } from './npm-range.ts';
import { installName, isInstallPath, packageNameAt, resolveInstallPath } from '../../../inventory/extractors/npm-lock/npm-lock.ts';

// package-lock.json / npm-shrinkwrap.json: every installed copy of the package at the vulnerable version
// is taken out of the lock, with what was installed under it, and every range that leads to it is set to
// the fixed version exactly; npm then regenerates the lock (see npm-lock-regenerate.ts), so the new
// entry and its dependencies are what the registry says, and the ranges are written back. What the
// project declares moves along: the range in its package.json and in the lock's mirror of it
// (`packages[""]` and workspace entries), raised to the fixed version in the same style. A copy that
// another package requires at a range excluding the fixed version is refused, since `npm install` would
// put the vulnerable one back. Aliases (`"lodash3": "npm:lodash@^3.10.1"`) are followed: the copy is
// installed, and declared, under the alias.

/** Sections of package.json whose ranges are raised; peer ranges are a library's promise to its users and stay. */
const RAISED_SECTIONS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const;
const REQUIRING_SECTIONS = ['dependencies', 'optionalDependencies', 'peerDependencies'] as const;
const ALIASED = /^npm:((?:@[^/@]+\/)?[^@]+)@(.+)$/;

interface Manifest {
  text: string;
  json: JsonObject;
  changed: boolean;
}

/** One bump's state: the package.json files it read and which of them it raised a range in. */
class Bump {
  readonly manifests = new Map<string, Manifest>();
  readonly raisedIn = new Set<string>();
  /** Ranges set to the fixed version exactly while npm regenerates the lock, with what they become after. */
  readonly pins: LockPin[] = [];
  readonly bump: DependencyBump;
  readonly #read: ReadFile;

  constructor(bump: DependencyBump, read: ReadFile) {
    this.bump = bump;
    this.#read = read;
  }

  /** Raises the range `key` has in a package.json (when there is one), or says why it cannot admit the fixed version. */
  async raiseInManifest(file: string, key: string): Promise<string | null> {
    const { bump } = this;
    let manifest = this.manifests.get(file);
    if (!manifest) {
      const text = await this.#read(file);
      const json = text === null ? null : parseJsonObject(text);
      if (text === null || !json) return null;
      manifest = { text, json, changed: false };
      this.manifests.set(file, manifest);
    }
    const ranges: [JsonObject, string, string, string][] = [];
    for (const section of RAISED_SECTIONS) {
      const declared = manifest.json[section];
      if (isJsonObject(declared) && typeof declared[key] === 'string') ranges.push([declared, section, key, `${file} declares ${key}`]);
    }
    const overrides = manifest.json.overrides;
    if (isJsonObject(overrides) && key in overrides) {
      if (typeof overrides[key] !== 'string') return `${file} overrides ${key} per dependent, which the fixer does not rewrite`;
      ranges.push([overrides, 'overrides', key, `${file} overrides ${key}`]);
    }
    for (const [holder, section, name, where] of ranges) {
      const range = holder[name] as string;
      const change = raiseNpmRange(range, bump.fixed);
      if ('refused' in change) return `${where} and ${change.refused}`;
      if ('range' in change) this.raisedIn.add(file);
      this.pin(file, [section, name], holder, name, 'range' in change ? change.range : range);
      manifest.changed = true;
    }
    return null;
  }

  /** Sets a range to the fixed version exactly for npm's run, to become `after` once it is done. */
  pin(file: string, at: string[], holder: JsonObject, key: string, after: string): void {
    const alias = ALIASED.exec(String(holder[key]));
    holder[key] = alias ? `npm:${alias[1]}@${this.bump.fixed}` : this.bump.fixed;
    this.pins.push({ file, path: at, range: after });
  }
}

export async function bumpNpmLock(bump: DependencyBump, text: string, read: ReadFile): Promise<BumpResult> {
  const lock = parseJsonObject(text);
  if (!lock) return refused(`${bump.file} is not a JSON object`);
  if (!semver.valid(bump.fixed)) return refused(`${bump.fixed} is not a version npm can install`);
  const state = new Bump(bump, read);
  const lockDir = path.posix.dirname(bump.file);
  let copies = 0;

  if (isJsonObject(lock.packages)) {
    const packages = lock.packages as Record<string, JsonObject>;
    for (const target of Object.keys(packages).filter((key) => isCopyOf(key, packages[key], bump))) {
      const key = installName(target);
      for (const { folder, section } of declarersOf(target, key, packages)) {
        const declared = packages[folder][section] as JsonObject;
        const range = String(declared[key]);
        if (isInstallPath(folder)) {
          if (!npmRangeAdmits(range, bump.fixed)) {
            return refused(`${packageNameAt(folder, packages[folder])} requires ${key}@${range}, which excludes ${bump.fixed}; upgrade it instead`);
          }
          state.pin(bump.file, ['packages', folder, section, key], declared, key, range);
          continue;
        }
        const change = raiseNpmRange(range, bump.fixed);
        if ('refused' in change) return refused(`${folder || 'the project'} declares ${key} and ${change.refused}`);
        state.pin(bump.file, ['packages', folder, section, key], declared, key, 'range' in change ? change.range : range);
        const problem = await state.raiseInManifest(path.posix.join(lockDir, folder, 'package.json'), key);
        if (problem) return refused(problem);
      }
      // The copy goes with what was installed under it; npm puts the fixed version and its own dependencies back.
      for (const installed of Object.keys(packages)) if (installed === target || installed.startsWith(`${target}/`)) delete packages[installed];
      copies++;
    }
  }

  // lockfileVersion 1, and the copy of it version 2 keeps for old npm versions.
  if (isJsonObject(lock.dependencies)) {
    const excluding = requirerExcluding(lock.dependencies, bump);
    if (excluding) return refused(excluding);
    const bumped = bumpTree(lock.dependencies, bump);
    if (lock.lockfileVersion === 1) {
      copies += bumped.count;
      for (const key of bumped.topLevel) {
        const problem = await state.raiseInManifest(path.posix.join(lockDir, 'package.json'), key);
        if (problem) return refused(problem);
      }
    }
  }

  if (!copies) return alreadyFixed(bump);
  const files = new Map([[bump.file, formatJson(lock, jsonLayout(text))]]);
  for (const [file, manifest] of state.manifests) if (manifest.changed) files.set(file, formatJson(manifest.json, jsonLayout(manifest.text)));
  const where = state.raisedIn.size ? ` and raised its range in ${[...state.raisedIn].join(', ')}` : '';
  return {
    kind: 'bumped',
    files,
    pins: state.pins,
    note: `Set ${bump.name} ${bump.installed} to ${bump.fixed} in ${bump.file} (${copies} ${copies === 1 ? 'copy' : 'copies'})${where}`,
  };
}

function isCopyOf(key: string, entry: unknown, bump: DependencyBump): boolean {
  if (!isInstallPath(key) || !isJsonObject(entry) || entry.link === true || typeof entry.version !== 'string') return false;
  return packageNameAt(key, entry) === bump.name && needsBump(bump, entry.version);
}

/** The lock entries whose declaration of `key` Node resolves to the install path `target`. */
function declarersOf(target: string, key: string, packages: Record<string, JsonObject>): { folder: string; section: string }[] {
  const found: { folder: string; section: string }[] = [];
  for (const [folder, entry] of Object.entries(packages)) {
    if (!isJsonObject(entry) || folder === target) continue;
    const sections = isInstallPath(folder) ? REQUIRING_SECTIONS : [...RAISED_SECTIONS, 'peerDependencies'];
    for (const section of sections) {
      const declared = entry[section];
      if (isJsonObject(declared) && typeof declared[key] === 'string' && resolveInstallPath(folder, key, packages) === target) {
        found.push({ folder, section });
      }
    }
  }
  return found;
}

/** A version 1 entry's package and version: `npm:<name>@<version>` for an alias. */
function treeEntryPackage(key: string, version: string): { name: string; version: string; alias: boolean } {
  const alias = ALIASED.exec(version);
  return alias ? { name: alias[1], version: alias[2], alias: true } : { name: key, version, alias: false };
}

/** Version 1 trees: the copies to raise, nested `dependencies` included, and the keys of those at the top. */
function bumpTree(tree: JsonObject, bump: DependencyBump, depth = 0): { count: number; topLevel: string[] } {
  let count = 0;
  const topLevel: string[] = [];
  for (const [key, entry] of Object.entries(tree)) {
    if (!isJsonObject(entry)) continue;
    if (typeof entry.version === 'string') {
      const locked = treeEntryPackage(key, entry.version);
      if (locked.name === bump.name && needsBump(bump, locked.version)) {
        delete tree[key];
        count++;
        if (depth === 0) topLevel.push(key);
      }
    }
    if (key in tree && isJsonObject(entry.dependencies)) count += bumpTree(entry.dependencies, bump, depth + 1).count;
  }
  return { count, topLevel };
}

/** A version 1 package whose `requires` admits the vulnerable version but not the fixed one. */
function requirerExcluding(tree: JsonObject, bump: DependencyBump): string | null {
  for (const [key, entry] of Object.entries(tree)) {
    if (!isJsonObject(entry)) continue;
    for (const [required, range] of Object.entries(isJsonObject(entry.requires) ? entry.requires : {})) {
      if (typeof range !== 'string') continue;
      const forPackage = ALIASED.exec(range)?.[1] === bump.name || (required === bump.name && !range.startsWith('npm:'));
      if (forPackage && npmRangeAdmits(range, bump.installed) && !npmRangeAdmits(range, bump.fixed)) {
        return `${key} requires ${required}@${range}, which excludes ${bump.fixed}; upgrade it instead`;
      }
    }
    if (isJsonObject(entry.dependencies)) {
      const nested = requirerExcluding(entry.dependencies, bump);
      if (nested) return nested;
    }
  }
  return null;
}
