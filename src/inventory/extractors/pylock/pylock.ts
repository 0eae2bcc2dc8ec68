import { component, type Component } from '../../component.ts';
import { LOCKFILES } from '../../lockfiles.ts';
import { ExtractError, type Extractor } from '../extractor.ts';
import { uniquePythonComponents } from '../python/python-names.ts';
import { isTable, parseTomlFile, readSiblingToml } from '../python/python-project-files.ts';
import { lockedPythonComponent, pyprojectDependencies } from '../python/pyproject-dependencies.ts';

// pylock.toml, the standard Python lockfile (PEP 751): `[[packages]]` with a name and, for index
// packages, a version. A `directory` package is a project of the same repository (first-party); a
// `vcs` or `archive` one without a version names nothing OSV could look up. Which packages are direct
// comes from the pyproject.toml beside it, as for the other Python lockfiles.

export const pylockExtractor: Extractor = {
  id: 'pylock',
  ecosystem: 'PyPI',
  docs: '`pylock.toml` (PEP 751)',
  fileNames: [...LOCKFILES.pylock, /^pylock\.[^.]+\.toml$/],
  lockfile: true,
  async extract(file, context) {
    const document = parseTomlFile(file);
    if (typeof document['lock-version'] !== 'string') throw new ExtractError(file.path, 'no `lock-version`');
    const packages = document.packages ?? [];
    if (!Array.isArray(packages) || !packages.every(isTable)) throw new ExtractError(file.path, '`packages` is not an array of tables');

    const pyproject = await readSiblingToml(file, 'pyproject.toml', context);
    const declared = pyproject && pyprojectDependencies(pyproject);
    const components: Component[] = [];
    packages.forEach((entry, index) => {
      if (typeof entry.name !== 'string') throw new ExtractError(file.path, `package ${index + 1} has no name`);
      const version = typeof entry.version === 'string' ? entry.version : '';
      if (isTable(entry.directory)) {
        components.push(component({ name: entry.name, version, ecosystem: 'PyPI', direct: null, firstParty: true, sourceFile: file.path }));
      } else if (version) {
        components.push(lockedPythonComponent({ name: entry.name, version, sourceFile: file.path }, declared, undefined));
      }
    });
    return uniquePythonComponents(components);
  },
};
