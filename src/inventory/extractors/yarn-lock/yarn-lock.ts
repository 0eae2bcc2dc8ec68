import { posix } from 'node:path';
import { parseSyml } from '@yarnpkg/parsers';
import { ExtractError, isJsonObject, parserReason, type ExtractContext, type Extractor, type JsonObject, type ManifestFile } from '../extractor.ts';
import { lockedPackagesToComponents, type LockedPackage } from '../js/locked-package.ts';
import { nodeStandings, type ProjectRoot } from '../js/node-standings.ts';
import { readPackageManifest } from '../js/package-manifest.ts';
import { LOCKFILES } from '../../lockfiles.ts';
import { component, type Component } from '../../component.ts';

// yarn.lock, both Yarn 1 (`# yarn lockfile v1`) and Berry (Yarn 2+, YAML with `__metadata`). Each entry is
// keyed by the descriptors (`name@range`, comma-separated) that resolved to it. Berry also lists the
// project's workspaces (`app@workspace:.`) with what each declares, and writes every entry's
// `resolution` as `<real name>@<protocol>:<reference>`; Yarn 1 has neither, so the project's declarations
// come from package.json.


/** A package the lockfile resolves, by `name@version`, with the descriptors it depends on. */
interface PackageNode {
  name: string;
  version: string;
  dependencies: Set<string>;
  /** Yarn 1's `integrity` (Subresource Integrity of the registry tarball). Berry's `checksum` is of its cache zip, not kept. */
  integrity?: string;
}

interface Workspace {
  name: string;
  path: string;
  dependencies: Record<string, string>;
}

interface ParsedLock {
  /** Descriptor → `name@version` of the package it resolves to; null for the project's own folders. */
  descriptors: Map<string, string | null>;
  packages: Map<string, PackageNode>;
  /** Berry only. */
  workspaces: Workspace[];
}

// Protocols whose target is a folder of the project or next to it, not a published package.
const LOCAL_PROTOCOLS = new Set(['link', 'portal', 'workspace']);

export const yarnLockExtractor: Extractor = {
  id: 'yarn-lock',
  ecosystem: 'npm',
  docs: '`yarn.lock` (v1 and Berry)',
  fileNames: LOCKFILES['yarn-lock'],
  lockfile: true,
  async extract(file, context) {
    const lock = parseLock(file);
    const lockDir = posix.dirname(file.path);
    const { roots, complete } = lock.workspaces.length
      ? await workspaceRoots(lock, lockDir, context)
      : await manifestRoots(lock, lockDir, context);
    const standing = nodeStandings(roots, (id) => resolvedDependencies(lock, id), complete);

    const locked: LockedPackage[] = [];
    for (const [id, node] of lock.packages) {
      // For the SBOM: the packages its dependencies resolve to, and its integrity.
      const dependsOn = resolvedDependencies(lock, id).flatMap((target) => lock.packages.get(target) ?? []);
      const integrity = node.integrity === undefined ? {} : { integrity: node.integrity };
      locked.push({ name: node.name, version: node.version, ...standing(id), dependsOn, ...integrity });
    }
    return [...lockedPackagesToComponents(locked, file.path), ...(await workspaceMembers(lock, lockDir, file.path, context))];
  },
};

/**
 * Berry's workspaces other than the root, as first-party components: the lockfile writes them at
 * `0.0.0-use.local`, so the version is the member's package.json's, or none when it cannot be read.
 */
async function workspaceMembers(lock: ParsedLock, lockDir: string, sourceFile: string, context: ExtractContext): Promise<Component[]> {
  const members: Component[] = [];
  for (const workspace of lock.workspaces) {
    if (workspace.path === '.') continue;
    const text = await context.readFile(posix.join(lockDir, workspace.path, 'package.json'));
    let version = '';
    try {
      const manifest: unknown = text === null ? null : JSON.parse(text);
      if (isJsonObject(manifest) && typeof manifest.version === 'string') version = manifest.version;
    } catch {
      // An unreadable package.json costs only the version.
    }
    members.push(component({ name: workspace.name, version, ecosystem: 'npm', direct: null, firstParty: true, sourceFile }));
  }
  return members;
}

function parseLock(file: ManifestFile): ParsedLock {
  let document: JsonObject;
  try {
    document = parseSyml(file.text);
  } catch (error) {
    throw new ExtractError(file.path, `not a yarn.lock: ${parserReason(error)}`);
  }
  if (!isJsonObject(document)) throw new ExtractError(file.path, 'not a yarn.lock: no entries');
  const berry = Object.hasOwn(document, '__metadata');

  const lock: ParsedLock = { descriptors: new Map(), packages: new Map(), workspaces: [] };
  for (const [key, entry] of Object.entries(document)) {
    if (key === '__metadata') continue;
    if (!isJsonObject(entry) || typeof entry.version !== 'string') throw new ExtractError(file.path, `entry "${key}" has no version`);
    const descriptors = key.split(',').map((d) => d.trim());
    const target = berry ? berryTarget(file, key, entry, entry.version) : classicTarget(descriptors[0], entry.version);
    const dependencies = { ...stringRecord(entry.dependencies), ...stringRecord(entry.optionalDependencies) };

    let id: string | null = null;
    if ('workspace' in target) {
      lock.workspaces.push({ name: target.name, path: target.workspace, dependencies });
    } else if (target.package) {
      id = `${target.package.name}@${target.package.version}`;
      const node = lock.packages.get(id) ?? { ...target.package, dependencies: new Set<string>() };
      for (const [name, range] of Object.entries(dependencies)) node.dependencies.add(`${name}@${range}`);
      if (!berry && typeof entry.integrity === 'string') node.integrity = entry.integrity;
      lock.packages.set(id, node);
    }
    for (const descriptor of descriptors) lock.descriptors.set(descriptor, id);
  }
  return lock;
}

type Target = { workspace: string; name: string } | { package: { name: string; version: string } | null };

/** Berry names the real package in `resolution`, which also covers aliases (`alias@npm:real@^1`) and patches. */
function berryTarget(file: ManifestFile, key: string, entry: JsonObject, version: string): Target {
  if (typeof entry.resolution !== 'string') throw new ExtractError(file.path, `entry "${key}" has no resolution`);
  const { name, protocol, reference } = splitDescriptor(entry.resolution);
  if (protocol === 'workspace') return { workspace: reference, name };
  if (isLocalFolder(protocol, reference)) return { package: null };
  return { package: { name, version } };
}

/** Yarn 1 keeps the alias in the range: `alias@npm:real@^1`. */
function classicTarget(descriptor: string, version: string): Target {
  const { name, protocol, reference } = splitDescriptor(descriptor);
  if (isLocalFolder(protocol, reference)) return { package: null };
  const aliased = protocol === 'npm' && reference.indexOf('@', 1) > 0;
  return { package: { name: aliased ? splitDescriptor(reference).name : name, version } };
}

function isLocalFolder(protocol: string, reference: string): boolean {
  if (LOCAL_PROTOCOLS.has(protocol)) return true;
  // `file:` is a folder unless it names a tarball; Berry appends `#…` and `::…` parameters to the path.
  return protocol === 'file' && !/\.(tgz|tar\.gz|tar)$/.test(reference.split(/#|::/)[0]);
}

/** `@scope/name@npm:^1.0.0` → name `@scope/name`, protocol `npm`, reference `^1.0.0`; a bare range has no protocol. */
function splitDescriptor(descriptor: string): { name: string; protocol: string; reference: string } {
  const at = descriptor.indexOf('@', 1);
  if (at < 0) return { name: descriptor, protocol: '', reference: '' };
  const range = descriptor.slice(at + 1);
  const protocol = /^([a-z]+):/.exec(range)?.[1] ?? '';
  return { name: descriptor.slice(0, at), protocol, reference: protocol ? range.slice(protocol.length + 1) : range };
}

/**
 * Berry writes a dependency's range without the default `npm:` protocol (Yarn 2/3) while the entry it
 * resolves to is keyed with it, so both spellings are tried.
 */
function resolveDescriptor(lock: ParsedLock, name: string, range: string): string | null {
  for (const descriptor of [`${name}@${range}`, `${name}@npm:${range}`]) {
    const id = lock.descriptors.get(descriptor);
    if (id !== undefined) return id;
  }
  return null;
}

function resolvedDependencies(lock: ParsedLock, id: string): string[] {
  const resolved: string[] = [];
  for (const descriptor of lock.packages.get(id)?.dependencies ?? []) {
    const { name } = splitDescriptor(descriptor);
    const target = resolveDescriptor(lock, name, descriptor.slice(name.length + 1));
    if (target) resolved.push(target);
  }
  return resolved;
}

interface Roots {
  roots: ProjectRoot<string>[];
  /** Whether every manifest of the project was accounted for. */
  complete: boolean;
}

/**
 * Berry: each workspace entry lists everything its package.json declares, dev or not, so the lockfile
 * alone says what is direct; the package.json beside it tells the devDependencies apart.
 */
async function workspaceRoots(lock: ParsedLock, lockDir: string, context: ExtractContext): Promise<Roots> {
  const roots: ProjectRoot<string>[] = [];
  for (const workspace of lock.workspaces) {
    const manifest = await readPackageManifest(posix.join(lockDir, workspace.path), context);
    const kinds = new Map(manifest?.dependencies.map((d) => [d.name, d.kind]));
    for (const [name, range] of Object.entries(workspace.dependencies)) {
      const node = resolveDescriptor(lock, name, range);
      if (node) roots.push({ node, kind: kinds.get(name) ?? 'unknown' });
    }
  }
  return { roots, complete: true };
}

/**
 * Yarn 1 records no workspaces, so the declarations are read from the root package.json and from the
 * workspace folders it names; a glob pattern cannot be listed through the context, which leaves the
 * picture incomplete.
 */
async function manifestRoots(lock: ParsedLock, lockDir: string, context: ExtractContext): Promise<Roots> {
  const root = await readPackageManifest(lockDir, context);
  if (!root) return { roots: [], complete: false };
  const manifests = [root];
  let complete = true;
  for (const pattern of root.workspaces) {
    const member = /[*?[\]{}!]/.test(pattern) ? null : await readPackageManifest(posix.join(lockDir, pattern), context);
    if (member) manifests.push(member);
    else complete = false;
  }

  const roots: ProjectRoot<string>[] = [];
  for (const { dependencies } of manifests) {
    for (const { name, range, kind } of dependencies) {
      const node = resolveDescriptor(lock, name, range);
      if (node) roots.push({ node, kind });
    }
  }
  return { roots, complete };
}

function stringRecord(value: unknown): Record<string, string> {
  if (!isJsonObject(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

