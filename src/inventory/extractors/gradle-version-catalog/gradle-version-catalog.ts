import { component, type Component } from '../../component.ts';
import { ExtractError, type Extractor } from '../extractor.ts';
import { isTable, parseTomlFile, type Table } from '../python/python-project-files.ts';

// Gradle version catalogs (`gradle/libs.versions.toml` and other `*.versions.toml`). `[libraries]`
// entries are `"group:artifact:version"` strings or tables with `module = "group:artifact"` or
// `group` + `name`, and a `version` that is a string, `version.ref` into `[versions]`, or a rich
// version (`strictly`, `require`, `prefer`). A catalog declares what builds may use, so every library
// is direct. A range, or no version at all (left to a platform or BOM), gives a component without a
// version and a note. Plugins are not libraries and are left out.

const RANGE = /[[\]()+,]/;

export const gradleVersionCatalogExtractor: Extractor = {
  id: 'gradle-version-catalog',
  ecosystem: 'Maven',
  docs: 'Gradle version catalogs (`gradle/libs.versions.toml`, any `*.versions.toml`: `version.ref`, rich versions)',
  fileNames: [/\.versions\.toml$/],
  lockfile: false,
  extract(file) {
    const catalog = parseTomlFile(file);
    const versions = isTable(catalog.versions) ? catalog.versions : {};
    const libraries = catalog.libraries ?? {};
    if (!isTable(libraries)) throw new ExtractError(file.path, '`[libraries]` is not a table');

    const components: Component[] = [];
    for (const [alias, library] of Object.entries(libraries)) {
      let coordinates: string;
      let declared: unknown;
      if (typeof library === 'string') {
        const parts = library.split(':');
        if (parts.length < 2 || parts.length > 3) throw new ExtractError(file.path, `library ${alias} is not "group:artifact[:version]"`);
        coordinates = `${parts[0]}:${parts[1]}`;
        declared = parts[2];
      } else if (isTable(library)) {
        if (typeof library.module === 'string') coordinates = library.module;
        else if (typeof library.group === 'string' && typeof library.name === 'string') coordinates = `${library.group}:${library.name}`;
        else throw new ExtractError(file.path, `library ${alias} has neither \`module\` nor \`group\` and \`name\``);
        declared = library.version;
      } else {
        throw new ExtractError(file.path, `library ${alias} is neither a string nor a table`);
      }

      const { version, note } = resolveVersion(declared, versions);
      components.push(component({ name: coordinates, version, ecosystem: 'Maven', direct: true, sourceFile: file.path, ...(note ? { note } : {}) }));
    }
    return components;
  },
};

function resolveVersion(declared: unknown, versions: Table): { version: string; note?: string } {
  if (declared === undefined) return { version: '', note: 'no version in the catalog: set by a platform or BOM' };
  if (isTable(declared) && typeof declared.ref === 'string') {
    const referenced = versions[declared.ref];
    if (referenced === undefined) return { version: '', note: `version.ref "${declared.ref}" is not in [versions]` };
    return resolveVersion(referenced, versions);
  }
  let chosen: unknown = declared;
  if (isTable(declared)) chosen = [declared.prefer, declared.strictly, declared.require].find((v) => typeof v === 'string' && !RANGE.test(v));
  if (typeof chosen === 'string' && chosen && !RANGE.test(chosen)) return { version: chosen };
  const written = typeof declared === 'string' ? declared : JSON.stringify(declared);
  return { version: '', note: `unpinned (${written}): no single version to check for vulnerabilities` };
}
