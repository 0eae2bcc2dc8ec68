import path from 'node:path';
import semver from 'semver';
import { isJsonObject, type JsonObject } from '../shared/json-file.ts';

// What npm would fetch from somewhere other than the configured registry. A package.json or lock of the
// scanned repository names its dependencies; a spec that is not a registry range (a URL, git, a local
// folder or tarball, a GitHub shorthand, an alias to one of those) makes npm contact the host it names
// or read a path of the server, and a `resolved` outside the registry is written into the fix's lock as
// it stands. The dependency fixer refuses both, before npm runs and again on what npm wrote.

const SECTIONS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const;
/** The public registry's address, which npm itself reads as "the configured registry" (`replace-registry-host`). */
const NPM_PUBLIC_REGISTRY = 'https://registry.npmjs.org/';
const ALIAS = /^npm:((?:@[^/@\s]+\/)?[^/@\s]+)(?:@(.*))?$/s;
const DIST_TAG = /^[A-Za-z][\w.-]*$/;
const TARBALL = /\.(?:tgz|tar\.gz|tar)$/i;

/** What kind of non-registry source a spec names, or null for a registry range, version or tag. */
export function nonRegistrySource(spec: string): string | null {
  const alias = ALIAS.exec(spec);
  if (alias) {
    const inner = nonRegistrySource(alias[2] ?? '');
    return inner && `an alias to ${inner}`;
  }
  if (spec.startsWith('npm:')) return 'an alias npm cannot read';
  if (!TARBALL.test(spec) && (semver.validRange(spec) !== null || DIST_TAG.test(spec))) return null;
  if (/^git(?:\+[a-z]+)?:/i.test(spec) || /^[a-z]+:\/\/[^#]*\.git(?:#|$)/i.test(spec)) return 'a git repository';
  if (/^(?:github|gitlab|bitbucket|gist):/i.test(spec) || /^[\w.-]+\/[\w.-]+(?:#.*)?$/.test(spec)) return 'a hosted git repository';
  if (/^(?:file|link):/i.test(spec) || /^(?:\.{0,2}\/|~\/|[A-Za-z]:[\\/])/.test(spec)) return 'a local folder or file';
  if (/^[a-z][\w+.-]*:/i.test(spec)) return 'a URL';
  if (TARBALL.test(spec)) return 'a local folder or file';
  return 'a spec npm does not resolve from the registry';
}

/** The first dependency of a package.json (or a lock entry mirroring one) not taken from the registry. */
export function foreignDependency(where: string, manifest: JsonObject): string | null {
  for (const section of [...SECTIONS, 'overrides'] as const) {
    const declared = manifest[section];
    if (!isJsonObject(declared)) continue;
    const found = foreignIn(declared);
    if (found) return `${where} takes ${found.name} from ${found.kind}`;
  }
  return null;
}

/** Overrides nest (`"foo": {".": "1.0.0", "bar": "2.0.0"}`); ranges are read at every level. */
function foreignIn(ranges: JsonObject): { name: string; kind: string } | null {
  for (const [name, spec] of Object.entries(ranges)) {
    if (isJsonObject(spec)) {
      const nested = foreignIn(spec);
      if (nested) return nested;
      continue;
    }
    if (typeof spec !== 'string') continue;
    // An override may refer to the root's own range (`"$lodash"`).
    const kind = spec.startsWith('$') ? null : nonRegistrySource(spec);
    if (kind) return { name, kind };
  }
  return null;
}

/** Whether a `resolved` address lies under the configured registry (or the public one npm reads as it). */
export function underRegistry(resolved: string, registry: string): boolean {
  const base = `${registry.replace(/\/+$/, '')}/`;
  return resolved.startsWith(base) || resolved.startsWith(NPM_PUBLIC_REGISTRY);
}

/**
 * The first thing in a lock that npm would take from elsewhere than the registry: a dependency spec of
 * any entry, a version 1 entry's version or `requires`, or a `resolved` address; null when there is none.
 * Link entries (workspace members) must point inside the lock's folder.
 */
export function foreignInLock(file: string, lock: JsonObject, registry: string): string | null {
  if (isJsonObject(lock.packages)) {
    for (const [key, entry] of Object.entries(lock.packages)) {
      if (!isJsonObject(entry)) continue;
      const where = key === '' ? `${file}'s project entry` : `${file}'s entry ${key}`;
      if (!isInside(key)) return `${where} lies outside the lock's folder`;
      const declared = foreignDependency(where, entry);
      if (declared) return declared;
      if (typeof entry.resolved !== 'string') continue;
      if (entry.link === true) {
        if (!isInside(entry.resolved)) return `${where} links to a folder outside the lock's folder`;
      } else if (!underRegistry(entry.resolved, registry)) {
        return `${where} is resolved from ${kindOfAddress(entry.resolved)} outside the registry`;
      }
    }
  }
  if (isJsonObject(lock.dependencies)) return foreignInTree(file, lock.dependencies, registry);
  return null;
}

function foreignInTree(file: string, tree: JsonObject, registry: string): string | null {
  for (const [name, entry] of Object.entries(tree)) {
    if (!isJsonObject(entry)) continue;
    const where = `${file}'s entry ${name}`;
    if (typeof entry.version === 'string') {
      const kind = nonRegistrySource(entry.version);
      if (kind) return `${where} is ${kind}`;
    }
    if (isJsonObject(entry.requires)) {
      const found = foreignIn(entry.requires);
      if (found) return `${where} requires ${found.name} from ${found.kind}`;
    }
    if (typeof entry.resolved === 'string' && !underRegistry(entry.resolved, registry)) {
      return `${where} is resolved from ${kindOfAddress(entry.resolved)} outside the registry`;
    }
    if (isJsonObject(entry.dependencies)) {
      const nested = foreignInTree(file, entry.dependencies, registry);
      if (nested) return nested;
    }
  }
  return null;
}

/** A folder path relative to the lock that stays inside its folder. */
function isInside(relative: string): boolean {
  if (relative === '') return true;
  const normalized = path.posix.normalize(relative.replaceAll('\\', '/'));
  return !path.posix.isAbsolute(normalized) && normalized !== '..' && !normalized.startsWith('../') && !/^[A-Za-z]:/.test(normalized) && !normalized.includes(':');
}

/** An address said without its text, which may carry credentials. */
function kindOfAddress(resolved: string): string {
  const scheme = /^([a-z][\w+.-]*):/i.exec(resolved)?.[1]?.toLowerCase();
  if (!scheme) return 'a local path';
  if (scheme.startsWith('git')) return 'a git repository';
  if (scheme === 'file') return 'a local file';
  try {
    return `${new URL(resolved).host}`;
  } catch {
    return 'an address';
  }
}
