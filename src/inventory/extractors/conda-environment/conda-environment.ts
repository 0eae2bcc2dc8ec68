import { valid as validPep440Version } from '@renovatebot/pep440';
import { component, type Component } from '../../component.ts';
import { ExtractError, isJsonObject, parseYamlDocument, type Extractor } from '../extractor.ts';

// Conda environment files (`conda env export` and hand-written ones). `dependencies` lists conda
// packages as match specs, `[channel::]name[=version[=build]]` (or `==`, `>=`...), and may hold a `pip:`
// list of pip requirements, which are PyPI packages. `name=1.26.4=py311h…` and `name==1.26.4` name one
// version; `name=3.11` names a series, taken as its version as conda lists it; anything else (a range,
// no version) is listed without a version and a note. Everything listed is something the environment
// asked for, so all of it is direct.

const MATCH_SPEC = /^(?:[\w.-]+::)?([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*(.*)$/;
const PIP_REQUIREMENT = /^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*([^;#]*)/;

export const condaEnvironmentExtractor: Extractor = {
  id: 'conda-environment',
  ecosystem: 'conda',
  docs: '`environment.yml`, `environment.yaml` (its `pip:` list as PyPI)',
  fileNames: ['environment.yml', 'environment.yaml'],
  lockfile: false,
  extract(file) {
    const document = parseYamlDocument(file);
    if (!isJsonObject(document)) throw new ExtractError(file.path, 'not a YAML mapping');
    const dependencies = document.dependencies ?? [];
    if (!Array.isArray(dependencies)) throw new ExtractError(file.path, '`dependencies` is not a list');

    const components: Component[] = [];
    const add = (ecosystem: 'conda' | 'PyPI', name: string, version: string, allowed: string) =>
      components.push(
        component({
          name,
          version,
          ecosystem,
          direct: true,
          sourceFile: file.path,
          ...(version ? {} : { note: `unpinned (${allowed || 'no version'}): no single version to check for vulnerabilities` }),
        }),
      );
    for (const entry of dependencies) {
      if (typeof entry === 'string') {
        const match = MATCH_SPEC.exec(entry.trim());
        if (!match) continue;
        const [, name, rest] = match;
        add('conda', name!, condaVersion(rest!.trim()), rest!.trim());
      } else if (isJsonObject(entry) && Array.isArray(entry.pip)) {
        for (const requirement of entry.pip) {
          if (typeof requirement !== 'string' || requirement.startsWith('-') || /^[a-z+]+:\/\//i.test(requirement)) continue;
          const match = PIP_REQUIREMENT.exec(requirement.trim());
          if (!match || /^\s*@/.test(requirement.slice(match[1]!.length))) continue;
          const specifier = match[2]!.trim();
          const pinned = /^===?\s*([^\s,]+)$/.exec(specifier);
          add('PyPI', match[1]!, pinned && validPep440Version(pinned[1]!) !== null ? pinned[1]! : '', specifier);
        }
      }
    }
    return components;
  },
};

/** The version a match spec's rest names: `=1.2=build`, `==1.2`, `1.2` (space-separated); '' for a range. */
function condaVersion(rest: string): string {
  const exact = /^(?:==?|\s*)([0-9][^=<>!,|*\s]*)(?:[=\s][^\s]*)?$/.exec(rest);
  return exact ? exact[1]! : '';
}
