import { ExtractError } from '../extractor.ts';
import type { Extractor } from '../extractor.ts';
import { developmentByReach } from '../python/dependency-reach.ts';
import type { DependencyEdges } from '../python/dependency-reach.ts';
import { normalizePythonName, requirementName, uniquePythonComponents } from '../python/python-names.ts';
import { packageTables, parseTomlFile, readSiblingToml } from '../python/python-project-files.ts';
import type { Table } from '../python/python-project-files.ts';
import { optionalDependencyGroups, pyprojectDependencies, lockedPythonComponent } from '../python/pyproject-dependencies.ts';
import { LOCKFILES } from '../../lockfiles.ts';
import { listedFiles, releaseHashes } from '../python/lock-details.ts';

// pdm.lock: `[[package]]` entries with name, version and PEP 508 `dependencies` strings. A package
// locked with extras appears once more with `extras = [...]`.
// Locks written with the `inherit_metadata` strategy give each package the `groups` that need it;
// `default` and the project's extras are runtime groups, every other one is a development group.
// Without groups, development-only packages follow from the dependency edges. Direct ones come from
// the pyproject.toml beside the lock.
// Editable installs and path dependencies on directories are source trees in the repository: listed as
// first-party. The project at the lock's own folder (`path = "."`), when a lock names it, is what the
// SBOM describes, not one of its components.
// `files = [{ file = "...", hash = "sha256:..." }]` (or `url =` for locks written with static URLs) lists
// the release's files: the hash recorded is the sdist's, else the only file's, as for poetry.lock and uv.lock.

const ARCHIVE = /\.(?:whl|zip|tar|tgz|tar\.gz|tar\.bz2|tar\.xz)$/i;

export const pdmLockExtractor: Extractor = {
  id: 'pdm-lock',
  ecosystem: 'PyPI',
  docs: '`pdm.lock`',
  fileNames: LOCKFILES['pdm-lock'],
  lockfile: true,
  async extract(file, context) {
    const packages = packageTables(file, parseTomlFile(file));
    packages.forEach((entry, index) => {
      if (typeof entry.name !== 'string') throw new ExtractError(file.path, `package ${index + 1} has no name`);
    });

    const pyproject = await readSiblingToml(file, 'pyproject.toml', context);
    const declared = pyproject && pyprojectDependencies(pyproject);
    const runtimeGroups = new Set(['default', ...(pyproject ? optionalDependencyGroups(pyproject) : [])]);
    const developmentFromEdges = declared && developmentByReach(dependencyEdges(packages), declared);

    const components = packages
      .filter((entry) => typeof entry.version === 'string' && !isLockFolder(entry))
      .map((entry) => {
        const name = packageName(entry);
        const development = Array.isArray(entry.groups)
          ? !entry.groups.some((group) => runtimeGroups.has(group))
          : developmentFromEdges?.(normalizePythonName(name));
        const locked = lockedPythonComponent({ name, version: entry.version as string, sourceFile: file.path }, declared, development);
        const hashes = releaseHashes(listedFiles(entry));
        if (hashes.length) locked.hashes = hashes;
        return isLocalDirectory(entry) ? { ...locked, firstParty: true } : locked;
      });
    return uniquePythonComponents(components);
  },
};

/** The distribution name, without an `[extras]` suffix should a lock put one there. */
function packageName(entry: Table): string {
  return (entry.name as string).replace(/\[.*\]$/, '').trim();
}

/** Editable installs and path or `file:` dependencies on a directory: source trees in the repository. */
function isLocalDirectory(entry: Table): boolean {
  if (entry.editable === true) return true;
  const location = localLocation(entry);
  return location !== null && !ARCHIVE.test(location);
}

/** The lock's own project: a path of `.`, or a `file:` URL of `${PROJECT_ROOT}` itself. */
function isLockFolder(entry: Table): boolean {
  const location = localLocation(entry);
  return location !== null && /^(?:\.|file:\/\/\/?\$\{PROJECT_ROOT\})\/?$/.test(location);
}

function localLocation(entry: Table): string | null {
  if (typeof entry.path === 'string') return entry.path;
  return typeof entry.url === 'string' && entry.url.startsWith('file:') ? entry.url : null;
}

function dependencyEdges(packages: Table[]): DependencyEdges {
  const edges: DependencyEdges = new Map();
  for (const entry of packages) {
    const name = normalizePythonName(packageName(entry));
    const dependencies = Array.isArray(entry.dependencies) ? entry.dependencies : [];
    const names = dependencies.flatMap((requirement) => {
      const dependency = typeof requirement === 'string' ? requirementName(requirement) : null;
      return dependency ? [normalizePythonName(dependency)] : [];
    });
    edges.set(name, [...(edges.get(name) ?? []), ...names]);
  }
  return edges;
}
