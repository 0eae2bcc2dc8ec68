import { posix } from 'node:path';
import { component, type Component } from '../../component.ts';
import { ExtractError, isJsonObject, parseJsonObject, type ExtractContext, type Extractor, type JsonObject, type ManifestFile } from '../extractor.ts';
import { lockedPackagesToComponents, type LockedPackage } from '../js/locked-package.ts';
import { readPackageManifest } from '../js/package-manifest.ts';
import { LOCKFILES } from '../../lockfiles.ts';

// package-lock.json and npm-shrinkwrap.json. Version 1 (npm 5/6) nests a `dependencies` tree the way
// node_modules is laid out; version 2 (npm 7/8) adds a flat `packages` map keyed by install path, which
// version 3 (npm 9+) keeps alone. Keys of `packages` outside any node_modules are the project's own
// folders: "" for the root, then workspaces and `file:` directories.


const DECLARING_SECTIONS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const;
const NODE_MODULES = 'node_modules/';
/** The sections of an installed package whose entries npm installs (peers too, since npm 7). */
const EDGE_SECTIONS = ['dependencies', 'optionalDependencies', 'peerDependencies'] as const;

export const npmLockExtractor: Extractor = {
  id: 'npm-lock',
  ecosystem: 'npm',
  docs: '`package-lock.json` (v1–v3), `npm-shrinkwrap.json`',
  fileNames: LOCKFILES['npm-lock'],
  lockfile: true,
  async extract(file, context) {
    const lock = parseJsonObject(file);
    const version = lock.lockfileVersion;
    if (typeof version !== 'number') throw new ExtractError(file.path, 'no numeric "lockfileVersion"');
    if (version >= 2) {
      if (!isJsonObject(lock.packages)) throw new ExtractError(file.path, `lockfileVersion ${version} without a "packages" object`);
      const locked = lockedPackagesToComponents(fromPackagesMap(file, lock.packages), file.path);
      return [...locked, ...projectFolders(lock.packages as Record<string, JsonObject>, file.path)];
    }
    const tree = lock.dependencies ?? {};
    if (!isJsonObject(tree)) throw new ExtractError(file.path, '"dependencies" is not an object');
    return lockedPackagesToComponents(await fromDependencyTree(file, tree, context), file.path);
  },
};


// ---- lockfileVersion 2 and 3 ----

function fromPackagesMap(file: ManifestFile, packages: JsonObject): LockedPackage[] {
  for (const [path, entry] of Object.entries(packages)) {
    if (!isJsonObject(entry)) throw new ExtractError(file.path, `packages["${path}"] is not an object`);
  }
  const entries = packages as Record<string, JsonObject>;
  const directPaths = directInstallPaths(entries);
  // Without the root entry nobody says what the project declares.
  const rootKnown = Object.hasOwn(entries, '');

  const locked: LockedPackage[] = [];
  for (const [path, entry] of Object.entries(entries)) {
    if (!isInstallPath(path) || entry.link === true || typeof entry.version !== 'string' || !entry.version) continue;
    const name = packageNameAt(path, entry);
    locked.push({
      name,
      version: entry.version,
      direct: directPaths.has(path) ? true : rootKnown ? false : null,
      development: entry.dev === true,
      dependsOn: installedDependencies(path, entry, entries),
      ...(typeof entry.integrity === 'string' ? { integrity: entry.integrity } : {}),
      ...(typeof entry.license === 'string' ? { license: entry.license } : {}),
    });
  }
  return locked;
}

/** The packages an installed copy's dependencies resolve to, the way Node finds them from its folder. */
function installedDependencies(path: string, entry: JsonObject, entries: Record<string, JsonObject>): { name: string; version: string }[] {
  const found: { name: string; version: string }[] = [];
  for (const section of EDGE_SECTIONS) {
    const declared = entry[section];
    if (!isJsonObject(declared)) continue;
    for (const name of Object.keys(declared)) {
      let installed = resolveInstallPath(path, name, entries);
      // A link (a workspace member or `file:` folder) stands for the folder it points at.
      for (let hops = 0; installed && entries[installed]?.link === true && hops < 5; hops++) {
        const target = entries[installed]!.resolved;
        installed = typeof target === 'string' ? target : undefined;
      }
      const target = installed === undefined ? undefined : entries[installed];
      if (installed && target && isInstallPath(installed) && typeof target.version === 'string' && target.version) {
        found.push({ name: packageNameAt(installed, target), version: target.version });
      }
    }
  }
  return found;
}

/**
 * The project's own packages other than the root: workspace members and `file:` folders, which the
 * lockfile keys by folder and installs as links. Listed as first-party, never matched against advisories.
 */
function projectFolders(entries: Record<string, JsonObject>, sourceFile: string): Component[] {
  const directPaths = directInstallPaths(entries);
  const rootKnown = Object.hasOwn(entries, '');
  const members: Component[] = [];
  for (const [folder, entry] of Object.entries(entries)) {
    if (folder === '' || isInstallPath(folder)) continue;
    const links = Object.entries(entries).filter(([path, link]) => link.link === true && link.resolved === folder).map(([path]) => path);
    const name = typeof entry.name === 'string' ? entry.name : links[0] ? installName(links[0]) : null;
    if (!name) continue;
    const direct = links.some((path) => directPaths.has(path)) ? true : rootKnown ? false : null;
    const version = typeof entry.version === 'string' ? entry.version : '';
    members.push(component({ name, version, ecosystem: 'npm', direct, firstParty: true, sourceFile }));
  }
  return members;
}

/**
 * Install paths the project's own folders resolve their declared dependencies to, the way Node looks
 * a package up: the folder's own node_modules first, then each parent's. Workspace members count as the
 * project, so what they declare is direct as well.
 */
function directInstallPaths(entries: Record<string, JsonObject>): Set<string> {
  const direct = new Set<string>();
  for (const [folder, entry] of Object.entries(entries)) {
    if (isInstallPath(folder)) continue;
    for (const section of DECLARING_SECTIONS) {
      const declared = entry[section];
      if (!isJsonObject(declared)) continue;
      for (const name of Object.keys(declared)) {
        const installed = resolveInstallPath(folder, name, entries);
        if (installed) direct.add(installed);
      }
    }
  }
  return direct;
}

/** The name a copy is declared under: the last node_modules segment of its key. */
export function installName(path: string): string {
  return path.slice(path.lastIndexOf(NODE_MODULES) + NODE_MODULES.length);
}

/** The package an installed copy is: its `name` field (an alias's real package) or its install name. */
export function packageNameAt(path: string, entry: JsonObject): string {
  return typeof entry.name === 'string' ? entry.name : installName(path);
}

/**
 * Where Node finds `name` from `folder` in a lockfile's `packages` map: the folder's own node_modules
 * first, then each parent's. Undefined when no copy is installed on that path.
 */
export function resolveInstallPath(folder: string, name: string, entries: Record<string, JsonObject>): string | undefined {
  for (let dir = folder; ; dir = parentFolder(dir)) {
    const candidate = dir ? `${dir}/${NODE_MODULES}${name}` : `${NODE_MODULES}${name}`;
    if (Object.hasOwn(entries, candidate)) return candidate;
    if (!dir) return undefined;
  }
}

function parentFolder(dir: string): string {
  // node_modules/a/node_modules/b → node_modules/a; packages/x → packages
  const inner = dir.lastIndexOf(`/${NODE_MODULES}`);
  if (inner !== -1) return dir.slice(0, inner);
  const parent = posix.dirname(dir);
  return parent === '.' || parent === dir ? '' : parent;
}

/** Whether a `packages` key is an installed copy (under some node_modules) rather than a project folder. */
export function isInstallPath(path: string): boolean {
  return path.startsWith(NODE_MODULES) || path.includes(`/${NODE_MODULES}`);
}

// ---- lockfileVersion 1 ----

interface TreeNode {
  name: string;
  entry: JsonObject;
  /** The `dependencies` maps Node would search from inside this package, innermost first. */
  scopes: JsonObject[];
}

async function fromDependencyTree(file: ManifestFile, tree: JsonObject, context: ExtractContext): Promise<LockedPackage[]> {
  const nodes = treeNodes(file, tree);
  const isDirect = await directnessOfTopLevel(file, tree, nodes, context);

  const locked: LockedPackage[] = [];
  for (const node of nodes) {
    const resolved = packageOfVersion1Entry(node.name, node.entry);
    if (!resolved) continue;
    const topLevel = node.scopes.length === 2;
    // For the SBOM: `requires` resolved the way Node looks them up (own nested tree first, then outward).
    const requires = isJsonObject(node.entry.requires) ? Object.keys(node.entry.requires) : [];
    const dependsOn = requires.flatMap((name) => {
      const entry = node.scopes.find((scope) => Object.hasOwn(scope, name))?.[name];
      return (isJsonObject(entry) && packageOfVersion1Entry(name, entry)) || [];
    });
    const integrity = typeof node.entry.integrity === 'string' ? { integrity: node.entry.integrity } : {};
    locked.push({ ...resolved, direct: topLevel ? isDirect(node.name) : false, development: node.entry.dev === true, dependsOn, ...integrity });
  }
  return locked;
}

function treeNodes(file: ManifestFile, tree: JsonObject): TreeNode[] {
  const nodes: TreeNode[] = [];
  const walk = (level: JsonObject, outerScopes: JsonObject[]) => {
    for (const [name, entry] of Object.entries(level)) {
      if (!isJsonObject(entry)) throw new ExtractError(file.path, `dependency ${name} is not an object`);
      const children = isJsonObject(entry.dependencies) ? entry.dependencies : {};
      const scopes = [children, ...outerScopes];
      nodes.push({ name, entry, scopes });
      walk(children, scopes);
    }
  };
  walk(tree, [tree]);
  return nodes;
}

/**
 * Version 1 does not record what the root declares. The sibling package.json says it; without it, a
 * top-level package nothing else requires can only be there for the root, while one something requires
 * may or may not also be declared.
 */
async function directnessOfTopLevel(
  file: ManifestFile,
  tree: JsonObject,
  nodes: TreeNode[],
  context: ExtractContext,
): Promise<(name: string) => boolean | null> {
  const manifest = await readPackageManifest(posix.dirname(file.path), context);
  if (manifest) {
    const declared = new Set(manifest.dependencies.map((d) => d.name));
    return (name) => declared.has(name);
  }
  const requiredAtTop = new Set<string>();
  for (const node of nodes) {
    const requires = isJsonObject(node.entry.requires) ? Object.keys(node.entry.requires) : [];
    for (const name of requires) {
      if (node.scopes.find((scope) => Object.hasOwn(scope, name)) === tree) requiredAtTop.add(name);
    }
  }
  return (name) => (requiredAtTop.has(name) ? null : true);
}

/** Version 1 writes an alias as `npm:<real name>@<version>` and a local folder or tarball as `file:<path>`. */
function packageOfVersion1Entry(name: string, entry: JsonObject): { name: string; version: string } | null {
  if (typeof entry.version !== 'string' || !entry.version || entry.version.startsWith('file:')) return null;
  if (entry.version.startsWith('npm:')) {
    const target = entry.version.slice('npm:'.length);
    const at = target.lastIndexOf('@');
    return at > 0 ? { name: target.slice(0, at), version: target.slice(at + 1) } : null;
  }
  return { name, version: entry.version };
}

