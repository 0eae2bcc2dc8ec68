import { component, type Component } from '../../component.ts';
import { ExtractError, isJsonObject, parseJsonObject, type Extractor, type ManifestFile } from '../extractor.ts';
import { LOCKFILES } from '../../lockfiles.ts';

// NuGet's packages.lock.json: `dependencies` maps each target framework (and framework/runtime pair)
// to the packages resolved for it, each with a `type` of Direct, Transitive, CentralTransitive
// (pinned by central package management) or Project (a project reference, not a package).
// Components carry no hashes. An entry's `contentHash` is NuGet's content hash (.nupkg.metadata): for a
// signed package, which every package nuget.org serves is (repository signatures), the SHA-512 of the
// package with its signature file taken out, a byte stream no download is; only for an unsigned package
// is it the SHA-512 of the .nupkg. The lock does not say which, so recording it as the artifact's SHA-512
// would give a digest that a check of the downloaded .nupkg fails (as Yarn Berry's `checksum`, of Yarn's
// cache zip, is left out).

interface LockedPackage {
  name: string;
  version: string;
  direct: boolean;
}

export const nugetLockExtractor: Extractor = {
  id: 'nuget-lock',
  ecosystem: 'NuGet',
  docs: '`packages.lock.json`',
  fileNames: LOCKFILES['nuget-lock'],
  lockfile: true,
  extract(file) {
    const byKey = new Map<string, Component>();
    for (const locked of lockedPackages(file)) {
      // NuGet package ids are case-insensitive, and each framework repeats the shared ones.
      const key = `${locked.name.toLowerCase()}@${locked.version}`;
      const seen = byKey.get(key);
      if (seen) {
        seen.direct = seen.direct || locked.direct;
      } else {
        byKey.set(key, component({ ...locked, ecosystem: 'NuGet', sourceFile: file.path }));
      }
    }
    return [...byKey.values()];
  },
};

function lockedPackages(file: ManifestFile): LockedPackage[] {
  const frameworks = parseJsonObject(file).dependencies;
  if (!isJsonObject(frameworks)) throw new ExtractError(file.path, 'no "dependencies" object');

  const packages: LockedPackage[] = [];
  for (const [framework, entries] of Object.entries(frameworks)) {
    if (!isJsonObject(entries)) throw new ExtractError(file.path, `dependencies of ${framework} are not an object`);
    for (const [name, entry] of Object.entries(entries)) {
      if (!isJsonObject(entry)) throw new ExtractError(file.path, `${framework}: ${name} is not an object`);
      if (entry.type === 'Project') continue;
      if (typeof entry.resolved !== 'string') throw new ExtractError(file.path, `${framework}: ${name} has no resolved version`);
      packages.push({ name, version: entry.resolved, direct: entry.type === 'Direct' });
    }
  }
  return packages;
}

