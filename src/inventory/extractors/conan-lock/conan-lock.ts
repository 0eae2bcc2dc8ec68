import { component, type Component } from '../../component.ts';
import { LOCKFILES } from '../../lockfiles.ts';
import { ExtractError, isJsonObject, parseJsonObject, type Extractor } from '../extractor.ts';

// conan.lock. Conan 2 writes lockfile version 0.5: `requires`, `build_requires` and `python_requires`
// lists of references `name/version[@user/channel][#revision[%timestamp]]`; what the conanfile asks for
// directly is not recorded. Conan 1 (0.2–0.4) writes `graph_lock.nodes`, node "0" being the consumer
// whose `requires` are the direct dependencies and `build_requires` the build tools; each other node
// has a `ref` (`pref` before 0.4). Build requirements are tools, so they count as development.

export const conanLockExtractor: Extractor = {
  id: 'conan-lock',
  ecosystem: 'ConanCenter',
  docs: "`conan.lock` (Conan 2's lockfile 0.5, Conan 1's graph locks)",
  fileNames: LOCKFILES['conan-lock'],
  lockfile: true,
  extract(file) {
    const lock = parseJsonObject(file);
    const found: { reference: string; direct: boolean | null; development: boolean }[] = [];
    if (isJsonObject(lock.graph_lock)) {
      const nodes = isJsonObject(lock.graph_lock.nodes) ? lock.graph_lock.nodes : {};
      const root = isJsonObject(nodes['0']) ? nodes['0'] : {};
      const ids = (list: unknown) => new Set(Array.isArray(list) ? list.map(String) : []);
      const direct = ids(root.requires);
      const build = ids(root.build_requires);
      for (const [id, node] of Object.entries(nodes)) {
        if (id === '0' || !isJsonObject(node)) continue;
        const reference = typeof node.ref === 'string' ? node.ref : typeof node.pref === 'string' ? node.pref : null;
        if (reference) found.push({ reference, direct: direct.has(id) || build.has(id), development: build.has(id) || node.context === 'build' });
      }
    } else if (typeof lock.version === 'string') {
      for (const [section, development] of [['requires', false], ['build_requires', true], ['python_requires', true]] as const) {
        const list = lock[section] ?? [];
        if (!Array.isArray(list)) throw new ExtractError(file.path, `\`${section}\` is not a list`);
        for (const reference of list) if (typeof reference === 'string') found.push({ reference, direct: null, development });
      }
    } else {
      throw new ExtractError(file.path, 'neither a Conan 2 lockfile (`version`, `requires`) nor a Conan 1 one (`graph_lock`)');
    }

    const components = new Map<string, Component>();
    for (const { reference, direct, development } of found) {
      const match = /^([^/@#\s]+)\/([^@#:\s]+)/.exec(reference);
      if (!match) throw new ExtractError(file.path, `not a Conan reference: ${reference.slice(0, 80)}`);
      const key = `${match[1]}/${match[2]}`;
      const known = components.get(key);
      // A package both required and built with keeps the stronger claims.
      if (known && !known.development) continue;
      components.set(key, component({ name: match[1]!, version: match[2]!, ecosystem: 'ConanCenter', direct, development, sourceFile: file.path }));
    }
    return [...components.values()];
  },
};
