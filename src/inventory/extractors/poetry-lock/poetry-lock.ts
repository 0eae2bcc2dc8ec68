import type { Component } from '../../component.ts';
import { ExtractError } from '../extractor.ts';
import type { Extractor } from '../extractor.ts';
import { developmentByReach } from '../python/dependency-reach.ts';
import type { DependencyEdges } from '../python/dependency-reach.ts';
import { normalizePythonName, uniquePythonComponents } from '../python/python-names.ts';
import { isTable, packageTables, parseTomlFile, readSiblingToml } from '../python/python-project-files.ts';
import type { Table } from '../python/python-project-files.ts';
import { pyprojectDependencies, lockedPythonComponent } from '../python/pyproject-dependencies.ts';
import { LOCKFILES } from '../../lockfiles.ts';
import { escapeRegExp } from '../../../regexp.ts';
import { attachLockDetails } from '../python/lock-details.ts';

// poetry.lock says whether a package is for development in one of three ways, by lock version:
// 1.x `category = "main" | "dev"`, 2.1 `groups = [...]` (`main` being the runtime group), and 2.0
// neither, which leaves following the dependency edges from what pyproject.toml declares. Which
// packages are direct always comes from pyproject.toml.
// Each release's files and their hashes are listed under the package from lock version 1.2 (2.0 and
// 2.1 too); 1.1 keeps them in one `[metadata.files]` table by package name instead.

export const poetryLockExtractor: Extractor = {
  id: 'poetry-lock',
  ecosystem: 'PyPI',
  docs: '`poetry.lock`',
  fileNames: LOCKFILES['poetry-lock'],
  lockfile: true,
  async extract(file, context) {
    const document = parseTomlFile(file);
    const packages = packageTables(file, document);
    packages.forEach((entry, index) => {
      if (typeof entry.name !== 'string' || typeof entry.version !== 'string') {
        throw new ExtractError(file.path, `package ${index + 1} has no name or version`);
      }
    });

    const pyproject = await readSiblingToml(file, 'pyproject.toml', context);
    const declared = pyproject && pyprojectDependencies(pyproject);
    const developmentFromEdges = declared && developmentByReach(dependencyEdges(packages), declared);

    const components: Component[] = packages.map((entry) => {
      const name = entry.name as string;
      const development = markedDevelopment(entry) ?? developmentFromEdges?.(normalizePythonName(name));
      const locked = lockedPythonComponent({ name, version: entry.version as string, sourceFile: file.path }, declared, development);
      return isLocalDirectory(entry) ? { ...locked, firstParty: true } : locked;
    });
    attachLockDetails(components, withMetadataFiles(packages, document), 'poetry');
    return uniquePythonComponents(components);
  },
};

/**
 * The packages with a 1.1 lock's `[metadata.files]` lists moved under them as `files`, the way later
 * locks write them. The table is by name alone: a name locked at several versions keeps the files whose
 * names carry its version.
 */
function withMetadataFiles(packages: Table[], document: Table): Table[] {
  const files = isTable(document.metadata) && isTable(document.metadata.files) ? document.metadata.files : null;
  if (!files) return packages;
  const byName = new Map(Object.entries(files).map(([name, list]) => [normalizePythonName(name), list]));
  const versionsOf = Map.groupBy(packages, (entry) => normalizePythonName(entry.name as string));
  return packages.map((entry) => {
    const name = normalizePythonName(entry.name as string);
    const list = byName.get(name);
    if ('files' in entry || !Array.isArray(list)) return entry;
    const several = (versionsOf.get(name)?.length ?? 0) > 1;
    return { ...entry, files: several ? list.filter((f) => isTable(f) && typeof f.file === 'string' && isFileOfVersion(f.file, entry.version as string)) : list };
  });
}

/** A distribution file name (`name-1.0.tar.gz`, `name-1.0-py3-none-any.whl`) of this version. */
function isFileOfVersion(fileName: string, version: string): boolean {
  return new RegExp(`-${escapeRegExp(version)}(?:-|\\.(?:tar|zip|tgz|whl|egg)\\b)`, 'i').test(fileName);
}

/** The lock's own verdict, when its version records one. */
function markedDevelopment(entry: Table): boolean | undefined {
  if (typeof entry.category === 'string') return entry.category !== 'main';
  if (Array.isArray(entry.groups)) return !entry.groups.includes('main');
  return undefined;
}

/** A path dependency on a directory is first-party code in the same repository, not a PyPI package: listed, never matched. */
function isLocalDirectory(entry: Table): boolean {
  return isTable(entry.source) && entry.source.type === 'directory';
}

function dependencyEdges(packages: Table[]): DependencyEdges {
  const edges: DependencyEdges = new Map();
  for (const entry of packages) {
    const dependencies = isTable(entry.dependencies) ? Object.keys(entry.dependencies).map(normalizePythonName) : [];
    const name = normalizePythonName(entry.name as string);
    edges.set(name, [...(edges.get(name) ?? []), ...dependencies]);
  }
  return edges;
}
