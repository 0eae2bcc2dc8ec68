import { component } from '../../component.ts';
import type { Component } from '../../component.ts';
import { ExtractError, parseJsonObject } from '../extractor.ts';
import type { Extractor } from '../extractor.ts';
import { normalizePythonName, uniquePythonComponents } from '../python/python-names.ts';
import { isTable, readSiblingToml } from '../python/python-project-files.ts';
import type { Table } from '../python/python-project-files.ts';
import { LOCKFILES } from '../../lockfiles.ts';

// Pipfile.lock (pipenv): JSON with a `default` section for runtime packages and a `develop` one for
// development packages, each mapping a name to `{ "version": "==x.y.z", ... }`. Entries without a
// version are VCS checkouts or local paths. Which packages are direct comes from the Pipfile beside it.

/** Runtime first, so a package locked in both sections is kept as a runtime one. */
const SECTIONS = [
  { key: 'default', development: false },
  { key: 'develop', development: true },
] as const;

export const pipfileLockExtractor: Extractor = {
  id: 'pipfile-lock',
  ecosystem: 'PyPI',
  fileNames: LOCKFILES['pipfile-lock'],
  lockfile: true,
  async extract(file, context) {
    const lock = parseJsonObject(file);
    const pipfile = await readSiblingToml(file, 'Pipfile', context);
    const declared = pipfile && pipfileDeclaredNames(pipfile);

    const components: Component[] = [];
    for (const { key, development } of SECTIONS) {
      const section = lock[key] ?? {};
      if (!isTable(section)) throw new ExtractError(file.path, `"${key}" is not an object`);
      for (const [name, entry] of Object.entries(section)) {
        if (!isTable(entry)) throw new ExtractError(file.path, `"${key}.${name}" is not an object`);
        const version = typeof entry.version === 'string' ? entry.version.replace(/^===?/, '') : '';
        if (version === '') continue;
        components.push(
          component({
            name,
            version,
            ecosystem: 'PyPI',
            direct: declared ? declared.has(normalizePythonName(name)) : null,
            development,
            sourceFile: file.path,
          }),
        );
      }
    }
    return uniquePythonComponents(components);
  },
};


/** Normalized names the Pipfile lists under `[packages]` or `[dev-packages]`. */
function pipfileDeclaredNames(pipfile: Table): Set<string> {
  const names = new Set<string>();
  for (const key of ['packages', 'dev-packages']) {
    const section = pipfile[key];
    if (isTable(section)) for (const name of Object.keys(section)) names.add(normalizePythonName(name));
  }
  return names;
}
