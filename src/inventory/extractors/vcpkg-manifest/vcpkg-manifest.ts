import { component, type Component } from '../../component.ts';
import { ExtractError, isJsonObject, parseJsonObject, type Extractor } from '../extractor.ts';

// vcpkg.json, a vcpkg manifest. `dependencies` are port names or objects with `name`, an optional
// minimum `version>=` and `host: true` for build tools; `overrides` pin exact versions, also of ports
// the dependencies pull in; `builtin-baseline` is the registry commit that picks every other version.
// vcpkg has no lockfile, so a version is known only where the manifest states one: an override
// exactly, a `version>=` as the lowest it may be (noted); a port left to the baseline is listed
// without a version and a note naming the baseline.

export const vcpkgManifestExtractor: Extractor = {
  id: 'vcpkg-manifest',
  ecosystem: 'vcpkg',
  docs: '`vcpkg.json` (versions from `overrides` and `version>=`)',
  fileNames: ['vcpkg.json'],
  lockfile: false,
  extract(file) {
    const manifest = parseJsonObject(file);
    const dependencies = manifest.dependencies ?? [];
    const overrides = manifest.overrides ?? [];
    if (!Array.isArray(dependencies)) throw new ExtractError(file.path, '`dependencies` is not a list');
    if (!Array.isArray(overrides)) throw new ExtractError(file.path, '`overrides` is not a list');
    const baseline = typeof manifest['builtin-baseline'] === 'string' ? manifest['builtin-baseline'] : null;

    const pinned = new Map<string, string>();
    for (const override of overrides) {
      if (!isJsonObject(override) || typeof override.name !== 'string') throw new ExtractError(file.path, 'an override has no `name`');
      const version = ['version', 'version-semver', 'version-date', 'version-string'].map((k) => override[k]).find((v) => typeof v === 'string');
      if (typeof version === 'string') pinned.set(override.name, version);
    }

    const components: Component[] = [];
    const listed = new Set<string>();
    for (const dependency of dependencies) {
      const entry = typeof dependency === 'string' ? { name: dependency } : dependency;
      if (!isJsonObject(entry) || typeof entry.name !== 'string') throw new ExtractError(file.path, 'a dependency has no `name`');
      const name = entry.name;
      listed.add(name);
      const minimum = typeof entry['version>='] === 'string' ? entry['version>='] : null;
      const version = pinned.get(name) ?? minimum ?? '';
      const note = pinned.has(name)
        ? undefined
        : minimum
          ? `version>= ${minimum}: the lowest version allowed${baseline ? `; the baseline ${baseline.slice(0, 12)} may select a newer one` : ''}`
          : `no version in the manifest: chosen by the ${baseline ? `builtin-baseline ${baseline.slice(0, 12)}` : 'registry baseline'}`;
      components.push(
        component({ name, version, ecosystem: 'vcpkg', direct: true, development: entry.host === true, sourceFile: file.path, ...(note ? { note } : {}) }),
      );
    }
    for (const [name, version] of pinned) {
      if (!listed.has(name)) components.push(component({ name, version, ecosystem: 'vcpkg', direct: false, sourceFile: file.path }));
    }
    return components;
  },
};
