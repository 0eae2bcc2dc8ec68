import { posix } from 'node:path';
import { component, type Component } from '../../component.ts';
import { ExtractError, isJsonObject, parseYamlDocument, type ExtractContext, type Extractor, type JsonObject, type ManifestFile } from '../extractor.ts';
import { lockedPackagesToComponents, type LockedPackage } from '../js/locked-package.ts';
import { nodeStandings, type DeclarationKind, type ProjectRoot } from '../js/node-standings.ts';
import { LOCKFILES } from '../../lockfiles.ts';

// pnpm-lock.yaml. The project's folders are `importers` (a single-project file before 9.0 puts the root's
// sections at the top level instead), each mapping its dependencies to references into the package
// entries. How package keys are spelled changed twice:
//   5.x       /@babel/core/7.22.0_supports-color@8.1.1   peer suffix after `_`
//   6.0, 6.1  /@babel/core@7.22.0(supports-color@8.1.1)  peers in parentheses
//   9.0       @babel/core@7.22.0(supports-color@8.1.1)   in `snapshots`, which hold the dependency
//             edges; `packages` keeps one entry per name@version without the peer suffix.
// Packages not from the registry (git, tarball URLs) carry their `name` and `version` in the entry.

type KeyStyle = 'v5' | 'v6' | 'v9';

const IMPORTER_SECTIONS: [string, DeclarationKind][] = [
  ['dependencies', 'production'],
  ['optionalDependencies', 'production'],
  ['devDependencies', 'development'],
];
const EDGE_SECTIONS = ['dependencies', 'optionalDependencies'];

interface ParsedLock {
  style: KeyStyle;
  /** Node key → the entry holding its dependencies (a snapshot in 9.0, else the package entry). */
  nodes: Record<string, JsonObject>;
  /** Node key → the entry describing the package; the same entry before 9.0. */
  metadataOf: (key: string) => JsonObject;
  importers: JsonObject[];
  /** Importers by folder relative to the lockfile; empty for a single-project lock. */
  importerFolders: Record<string, JsonObject>;
}

export const pnpmLockExtractor: Extractor = {
  id: 'pnpm-lock',
  ecosystem: 'npm',
  docs: '`pnpm-lock.yaml` (v5.4–v9)',
  fileNames: LOCKFILES['pnpm-lock'],
  lockfile: true,
  async extract(file, context) {
    const lock = parseLock(file);
    const standing = nodeStandings(importerRoots(lock), (key) => nodeDependencies(lock, key), true);

    const locked: LockedPackage[] = [];
    for (const [key, node] of Object.entries(lock.nodes)) {
      const metadata = lock.metadataOf(key);
      const pkg = packageOf(lock.style, key, metadata);
      if (!pkg) continue;
      const { direct, development } = standing(key);
      // Before 9.0 pnpm marks each package itself: dev true (dev only), false (production only), or
      // absent when both use it.
      const marked = node.dev === 'true' ? true : node.dev === 'false' ? false : undefined;
      // For the SBOM: the packages this one's dependencies resolve to, and its tarball's integrity.
      const dependsOn = nodeDependencies(lock, key).flatMap((target) => packageOf(lock.style, target, lock.metadataOf(target)) ?? []);
      const integrity = isJsonObject(metadata.resolution) ? metadata.resolution.integrity : undefined;
      locked.push({ ...pkg, direct, development: marked ?? development, dependsOn, ...(typeof integrity === 'string' ? { integrity } : {}) });
    }
    return [...lockedPackagesToComponents(locked, file.path), ...(await workspaceMembers(lock, file.path, context))];
  },
};

/**
 * The importers other than the root are the workspace's own packages: first-party components, named
 * by the `link:` references other importers make to them, else by their package.json, which also
 * gives the version (none when it cannot be read). An importer nothing names is left out.
 */
async function workspaceMembers(lock: ParsedLock, sourceFile: string, context: ExtractContext): Promise<Component[]> {
  const lockDir = posix.dirname(sourceFile);
  const names = new Map<string, string>();
  for (const [folder, importer] of Object.entries(lock.importerFolders)) {
    for (const [section] of IMPORTER_SECTIONS) {
      for (const [name, reference] of references(importer[section])) {
        if (reference.startsWith('link:')) names.set(posix.join(folder, reference.slice('link:'.length)), name);
      }
    }
  }
  const members: Component[] = [];
  for (const folder of Object.keys(lock.importerFolders)) {
    if (posix.normalize(folder) === '.') continue;
    let manifest: unknown = null;
    try {
      const text = await context.readFile(posix.join(lockDir, folder, 'package.json'));
      manifest = text === null ? null : JSON.parse(text);
    } catch {
      // An unreadable package.json costs only the name and version it would give.
    }
    const declared = isJsonObject(manifest) ? manifest : {};
    const name = typeof declared.name === 'string' ? declared.name : names.get(posix.normalize(folder));
    if (!name) continue;
    const version = typeof declared.version === 'string' ? declared.version : '';
    members.push(component({ name, version, ecosystem: 'npm', direct: null, firstParty: true, sourceFile }));
  }
  return members;
}

function parseLock(file: ManifestFile): ParsedLock {
  const document = parseYamlDocument(file, { failsafe: true });
  if (!isJsonObject(document)) throw new ExtractError(file.path, 'not a YAML mapping');
  const version = typeof document.lockfileVersion === 'string' ? Number.parseFloat(document.lockfileVersion) : Number.NaN;
  if (Number.isNaN(version)) throw new ExtractError(file.path, 'no "lockfileVersion"');
  if (version < 5) throw new ExtractError(file.path, `unsupported lockfileVersion ${document.lockfileVersion}`);
  const style: KeyStyle = version >= 9 ? 'v9' : version >= 6 ? 'v6' : 'v5';

  const packages = objectSection(file, document, 'packages');
  const snapshots = objectSection(file, document, 'snapshots');
  const importerFolders = isJsonObject(document.importers)
    ? (Object.fromEntries(Object.entries(document.importers).filter(([, i]) => isJsonObject(i))) as Record<string, JsonObject>)
    : {};
  const importers = isJsonObject(document.importers) ? Object.values(importerFolders) : [document];
  if (style === 'v9') {
    const nodes = Object.hasOwn(document, 'snapshots') ? snapshots : packages;
    return { style, nodes, metadataOf: (key) => packages[withoutPeers(key)] ?? {}, importers, importerFolders };
  }
  return { style, nodes: packages, metadataOf: (key) => packages[key], importers, importerFolders };
}

function objectSection(file: ManifestFile, document: JsonObject, name: string): Record<string, JsonObject> {
  const section = document[name] ?? {};
  if (!isJsonObject(section)) throw new ExtractError(file.path, `"${name}" is not a mapping`);
  for (const [key, entry] of Object.entries(section)) {
    if (!isJsonObject(entry)) throw new ExtractError(file.path, `${name}["${key}"] is not a mapping`);
  }
  return section as Record<string, JsonObject>;
}

function importerRoots(lock: ParsedLock): ProjectRoot<string>[] {
  const roots: ProjectRoot<string>[] = [];
  for (const importer of lock.importers) {
    for (const [section, kind] of IMPORTER_SECTIONS) {
      for (const [name, reference] of references(importer[section])) {
        const node = nodeKey(lock, name, reference);
        if (node) roots.push({ node, kind });
      }
    }
  }
  return roots;
}

function nodeDependencies(lock: ParsedLock, key: string): string[] {
  const node = lock.nodes[key];
  const keys: string[] = [];
  for (const section of EDGE_SECTIONS) {
    for (const [name, reference] of references(node?.[section])) {
      const dependency = nodeKey(lock, name, reference);
      if (dependency) keys.push(dependency);
    }
  }
  return keys;
}

/** Dependency maps give `name: reference`; importers from 6.0 on give `name: {specifier, version: reference}`. */
function references(section: unknown): [string, string][] {
  if (!isJsonObject(section)) return [];
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(section)) {
    const reference = isJsonObject(value) ? value.version : value;
    if (typeof reference === 'string') pairs.push([name, reference]);
  }
  return pairs;
}

/**
 * A reference is usually the version (with its peer suffix) to combine with the name; for an alias or a
 * package not from the registry it is the key itself. `link:` references point at folders and match nothing.
 */
function nodeKey(lock: ParsedLock, name: string, reference: string): string | undefined {
  const combined = lock.style === 'v9' ? `${name}@${reference}` : lock.style === 'v6' ? `/${name}@${reference}` : `/${name}/${reference}`;
  return [combined, reference].find((key) => Object.hasOwn(lock.nodes, key));
}

function packageOf(style: KeyStyle, key: string, metadata: JsonObject): { name: string; version: string } | null {
  const resolution = isJsonObject(metadata.resolution) ? metadata.resolution : {};
  // A `file:` folder (or an injected workspace package) is the project's own code.
  if (typeof resolution.directory === 'string') return null;
  const fromKey = style === 'v5' ? splitVersion5Key(key) : splitKey(key);
  const name = typeof metadata.name === 'string' ? metadata.name : fromKey?.name;
  const version = typeof metadata.version === 'string' ? metadata.version : fromKey?.version;
  if (!name || !version || /^(file|link):/.test(version)) return null;
  return { name, version };
}

/** `/@scope/name/1.0.0_peer@2.0.0` → `@scope/name`, `1.0.0`; scoped peers in the suffix have `/` written as `+`. */
function splitVersion5Key(key: string): { name: string; version: string } | null {
  const segments = key.replace(/^\//, '').split('/');
  if (segments.length < 2) return null;
  return { name: segments.slice(0, -1).join('/'), version: segments[segments.length - 1].split('_')[0] };
}

/** `/@scope/name@1.0.0(peer@2.0.0)` or `@scope/name@1.0.0(peer@2.0.0)` → `@scope/name`, `1.0.0`. */
function splitKey(key: string): { name: string; version: string } | null {
  const bare = withoutPeers(key.replace(/^\//, ''));
  const at = bare.indexOf('@', 1);
  return at > 0 ? { name: bare.slice(0, at), version: bare.slice(at + 1) } : null;
}

function withoutPeers(key: string): string {
  const open = key.indexOf('(');
  return open > 0 ? key.slice(0, open) : key;
}

