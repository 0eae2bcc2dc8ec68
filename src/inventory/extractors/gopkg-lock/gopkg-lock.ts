import { component, type Component } from '../../component.ts';
import { LOCKFILES } from '../../lockfiles.ts';
import { ExtractError, type Extractor } from '../extractor.ts';
import { isTable, parseTomlFile } from '../python/python-project-files.ts';

// Gopkg.lock, the lockfile of dep, Go's dependency tool before modules: `[[projects]]` with the
// project's import path (`name`), the `version` tag when one was chosen, else the pinned `revision`.
// `[solve-meta].input-imports` lists the packages the project imports itself, so a project any of them
// lies in is direct.

export const gopkgLockExtractor: Extractor = {
  id: 'gopkg-lock',
  ecosystem: 'Go',
  docs: '`Gopkg.lock` (dep)',
  fileNames: LOCKFILES['gopkg-lock'],
  lockfile: true,
  extract(file) {
    const lock = parseTomlFile(file);
    const projects = lock.projects ?? [];
    if (!Array.isArray(projects) || !projects.every(isTable)) throw new ExtractError(file.path, '`projects` is not an array of tables');
    const meta = isTable(lock['solve-meta']) ? lock['solve-meta'] : {};
    const imports = Array.isArray(meta['input-imports']) ? meta['input-imports'].filter((i): i is string => typeof i === 'string') : null;

    const components: Component[] = [];
    projects.forEach((project, index) => {
      const name = project.name;
      const version = typeof project.version === 'string' ? project.version : project.revision;
      if (typeof name !== 'string' || typeof version !== 'string') throw new ExtractError(file.path, `project ${index + 1} has no name, version or revision`);
      const direct = imports ? imports.some((i) => i === name || i.startsWith(`${name}/`)) : null;
      components.push(component({ name, version, ecosystem: 'Go', direct, sourceFile: file.path }));
    });
    return components;
  },
};
