import { component, type Component } from '../../component.ts';
import { LOCKFILES } from '../../lockfiles.ts';
import { ExtractError, isJsonObject, parseJsonObject, type Extractor } from '../extractor.ts';

// renv.lock, R's renv lockfile: `Packages` maps each package to its `Package`, `Version` and `Source`.
// Packages from a repository (CRAN or a CRAN mirror such as Posit Package Manager) are CRAN
// components; Bioconductor, GitHub and local sources are other ecosystems or no registry at all and
// are skipped. The lock does not say which packages the project loads itself.

export const renvLockExtractor: Extractor = {
  id: 'renv-lock',
  ecosystem: 'CRAN',
  docs: '`renv.lock`',
  fileNames: LOCKFILES['renv-lock'],
  lockfile: true,
  extract(file) {
    const lock = parseJsonObject(file);
    if (!isJsonObject(lock.Packages)) throw new ExtractError(file.path, 'no `Packages` object');
    const components: Component[] = [];
    for (const [key, entry] of Object.entries(lock.Packages)) {
      if (!isJsonObject(entry) || typeof entry.Version !== 'string') throw new ExtractError(file.path, `package ${key} has no Version`);
      if (entry.Source !== 'Repository' || entry.Repository === 'Bioconductor') continue;
      const name = typeof entry.Package === 'string' ? entry.Package : key;
      components.push(component({ name, version: entry.Version, ecosystem: 'CRAN', direct: null, sourceFile: file.path }));
    }
    return components;
  },
};
