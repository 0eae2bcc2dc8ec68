import { component } from '../../component.ts';
import type { Component, ComponentHash } from '../../component.ts';
import { ExtractError, parseJsonObject } from '../extractor.ts';
import type { Extractor } from '../extractor.ts';
import { normalizePythonName, uniquePythonComponents } from '../python/python-names.ts';
import { isTable, readSiblingToml } from '../python/python-project-files.ts';
import type { Table } from '../python/python-project-files.ts';
import { LOCKFILES } from '../../lockfiles.ts';
import { lockedHash } from '../python/lock-details.ts';

// Pipfile.lock (pipenv): JSON with a `default` section for runtime packages and a `develop` one for
// development packages, each mapping a name to `{ "version": "==x.y.z", ... }`. Entries without a
// version are VCS checkouts or local paths. Which packages are direct comes from the Pipfile beside it.
// An entry's `hashes` are those of every file of the release (wheels and sdist) with no file names, so
// which is the sdist cannot be told: a hash is recorded only when the release has one file, the rule
// poetry.lock, uv.lock and pdm.lock follow (the sdist's hash, else the only file's).

/** Runtime first, so a package locked in both sections is kept as a runtime one. */
const SECTIONS = [
  { key: 'default', development: false },
  { key: 'develop', development: true },
] as const;

export const pipfileLockExtractor: Extractor = {
  id: 'pipfile-lock',
  ecosystem: 'PyPI',
  docs: '`Pipfile.lock`',
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
        const found = component({
          name,
          version,
          ecosystem: 'PyPI',
          direct: declared ? declared.has(normalizePythonName(name)) : null,
          development,
          sourceFile: file.path,
        });
        const hashes = onlyFileHash(entry.hashes);
        if (hashes.length) found.hashes = hashes;
        components.push(found);
      }
    }
    return uniquePythonComponents(components);
  },
};

/** The hash of the release's only file; none when it has several (or none). */
function onlyFileHash(hashes: unknown): ComponentHash[] {
  const listed = Array.isArray(hashes) ? [...new Set(hashes)] : [];
  const hash = listed.length === 1 ? lockedHash(listed[0]) : null;
  return hash ? [hash] : [];
}

/** Normalized names the Pipfile lists under `[packages]` or `[dev-packages]`. */
function pipfileDeclaredNames(pipfile: Table): Set<string> {
  const names = new Set<string>();
  for (const key of ['packages', 'dev-packages']) {
    const section = pipfile[key];
    if (isTable(section)) for (const name of Object.keys(section)) names.add(normalizePythonName(name));
  }
  return names;
}
