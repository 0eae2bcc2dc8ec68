import { ExtractError } from '../extractor.ts';
import type { Extractor } from '../extractor.ts';
import { developmentByReach } from '../python/dependency-reach.ts';
import type { DependencyEdges } from '../python/dependency-reach.ts';
import { lockedPythonComponent, type DeclaredDependencies } from '../python/pyproject-dependencies.ts';
import { normalizePythonName, uniquePythonComponents } from '../python/python-names.ts';
import { isTable, packageTables, parseTomlFile } from '../python/python-project-files.ts';
import type { Table } from '../python/python-project-files.ts';
import { LOCKFILES } from '../../lockfiles.ts';
import { attachLockDetails } from '../python/lock-details.ts';

// uv.lock (https://docs.astral.sh/uv/concepts/projects/layout/#the-lockfile) locks the project itself
// alongside its dependencies: the entry whose source is the project directory (`editable = "."` or
// `virtual = "."`), plus each workspace member named in `[manifest].members`. Those roots are not
// dependencies, but their lists say which packages are direct: `dependencies` and
// `[package.optional-dependencies]` for runtime, `[package.dev-dependencies]` (every dependency group)
// for development. Development-only transitive packages follow from the lock's dependency edges.

export const uvLockExtractor: Extractor = {
  id: 'uv-lock',
  ecosystem: 'PyPI',
  docs: '`uv.lock`',
  fileNames: LOCKFILES['uv-lock'],
  lockfile: true,
  extract(file) {
    const document = parseTomlFile(file);
    const packages = packageTables(file, document);
    packages.forEach((entry, index) => {
      if (typeof entry.name !== 'string') throw new ExtractError(file.path, `package ${index + 1} has no name`);
    });

    const manifest = isTable(document.manifest) ? document.manifest : {};
    const members = new Set(stringArray(manifest.members).map(normalizePythonName));
    const roots = packages.filter((entry) => isProjectRoot(entry, members));
    const declared = roots.length > 0 ? rootDependencies(roots) : null;
    const developmentOf = declared && developmentByReach(dependencyEdges(packages), declared);

    // Workspace members and path dependencies are listed as first-party; the project at the lock's own
    // folder is what the SBOM describes, not one of its components.
    const components = packages
      .filter((entry) => (typeof entry.version === 'string' || isLocalProject(entry)) && !isLockFolder(entry))
      .map((entry) => {
        const name = entry.name as string;
        const version = typeof entry.version === 'string' ? entry.version : '';
        const locked = lockedPythonComponent({ name, version, sourceFile: file.path }, declared, developmentOf?.(normalizePythonName(name)));
        return isLocalProject(entry) ? { ...locked, firstParty: true } : locked;
      });
    attachLockDetails(components, packages, 'uv');
    return uniquePythonComponents(components);
  },
};

function sourceOf(entry: Table): Table {
  return isTable(entry.source) ? entry.source : {};
}

function isProjectRoot(entry: Table, members: Set<string>): boolean {
  const source = sourceOf(entry);
  return source.editable === '.' || source.virtual === '.' || members.has(normalizePythonName(entry.name as string));
}

function isLockFolder(entry: Table): boolean {
  const source = sourceOf(entry);
  return source.editable === '.' || source.virtual === '.';
}

/** Source trees in the repository itself (the project, workspace members, path dependencies on directories). */
function isLocalProject(entry: Table): boolean {
  const source = sourceOf(entry);
  return 'editable' in source || 'virtual' in source || 'directory' in source;
}

function rootDependencies(roots: Table[]): DeclaredDependencies {
  const declared: DeclaredDependencies = { runtime: new Set(), development: new Set() };
  for (const root of roots) {
    for (const name of runtimeDependencyNames(root)) declared.runtime.add(name);
    for (const group of tableValues(root['dev-dependencies'])) {
      for (const name of dependencyNames(group)) declared.development.add(name);
    }
  }
  return declared;
}

/**
 * Runtime edges of a package, extras included. A root's dependency groups are left out: a workspace
 * member's test tools are not what another member needs when it depends on it.
 */
function dependencyEdges(packages: Table[]): DependencyEdges {
  const edges: DependencyEdges = new Map();
  for (const entry of packages) {
    const name = normalizePythonName(entry.name as string);
    edges.set(name, [...(edges.get(name) ?? []), ...runtimeDependencyNames(entry)]);
  }
  return edges;
}

function runtimeDependencyNames(entry: Table): string[] {
  return [entry.dependencies, ...tableValues(entry['optional-dependencies'])].flatMap(dependencyNames);
}

/** Names in a list of `{ name = "...", extra = [...], marker = "..." }` references. */
function dependencyNames(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((reference) => (isTable(reference) && typeof reference.name === 'string' ? [normalizePythonName(reference.name)] : []));
}

function tableValues(value: unknown): unknown[] {
  return isTable(value) ? Object.values(value) : [];
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
