import { component, type Component } from '../../component.ts';
import { LOCKFILES } from '../../lockfiles.ts';
import { ExtractError, isJsonObject, parseJsonObject, type Extractor, type JsonObject } from '../extractor.ts';

// deno.lock. Version 3 keeps `packages.{specifiers,jsr,npm}`, a specifier resolving to `npm:name@version`;
// version 4 moves them to the top level and resolves a specifier to the bare version. `npm` keys are
// `name@version`, with `_peer@version` suffixes for peer-dependency variants; `jsr` keys are
// `@scope/name@version` and become JSR components. `workspace.dependencies` (and each package.json's)
// are the specifiers the project declares; `remote` URL imports name no package and are skipped.

export const denoLockExtractor: Extractor = {
  id: 'deno-lock',
  ecosystem: 'npm',
  docs: '`deno.lock` (v3–v5; its `jsr:` packages as JSR)',
  fileNames: LOCKFILES['deno-lock'],
  lockfile: true,
  extract(file) {
    const lock = parseJsonObject(file);
    const version = lock.version;
    if (version !== '3' && version !== '4' && version !== '5') throw new ExtractError(file.path, `unsupported deno.lock version ${JSON.stringify(version)}`);
    const sections: JsonObject = version === '3' ? (isJsonObject(lock.packages) ? lock.packages : {}) : lock;
    const specifiers = isJsonObject(sections.specifiers) ? sections.specifiers : {};

    const declared = declaredSpecifiers(lock);
    const direct = new Set<string>();
    for (const specifier of declared) {
      const resolved = specifiers[specifier];
      if (typeof resolved !== 'string') continue;
      const [kind, name] = splitSpecifier(specifier);
      // v3: `npm:chalk@5.3.0`; v4: `5.3.0` (npm versions may carry a `_peer` suffix there too).
      direct.add(resolved.includes(':') ? resolved.replace(/_.*$/, '') : `${kind}:${name}@${resolved.replace(/_.*$/, '')}`);
    }
    const known = declared.length > 0;

    const components: Component[] = [];
    for (const [kind, ecosystem] of [['npm', 'npm'], ['jsr', 'JSR']] as const) {
      const packages = sections[kind];
      if (packages === undefined) continue;
      if (!isJsonObject(packages)) throw new ExtractError(file.path, `\`${kind}\` is not an object`);
      const seen = new Set<string>();
      for (const key of Object.keys(packages)) {
        const nameVersion = key.replace(/_.*$/, '');
        const at = nameVersion.lastIndexOf('@');
        if (at <= 0 || seen.has(nameVersion)) continue;
        seen.add(nameVersion);
        components.push(
          component({
            name: nameVersion.slice(0, at),
            version: nameVersion.slice(at + 1),
            ecosystem,
            direct: known ? direct.has(`${kind}:${nameVersion}`) : null,
            sourceFile: file.path,
          }),
        );
      }
    }
    return components;
  },
};

function declaredSpecifiers(lock: JsonObject): string[] {
  const workspace = isJsonObject(lock.workspace) ? lock.workspace : {};
  const lists: unknown[] = [workspace.dependencies];
  if (isJsonObject(workspace.packageJson)) lists.push(workspace.packageJson.dependencies);
  for (const member of Object.values(isJsonObject(workspace.members) ? workspace.members : {})) {
    if (!isJsonObject(member)) continue;
    lists.push(member.dependencies);
    if (isJsonObject(member.packageJson)) lists.push(member.packageJson.dependencies);
  }
  return lists.flatMap((list) => (Array.isArray(list) ? list.filter((s): s is string => typeof s === 'string') : []));
}

/** `npm:@types/node@^22` → [`npm`, `@types/node`]. */
function splitSpecifier(specifier: string): [string, string] {
  const colon = specifier.indexOf(':');
  const rest = specifier.slice(colon + 1);
  const at = rest.indexOf('@', 1);
  return [specifier.slice(0, colon), at === -1 ? rest : rest.slice(0, at)];
}
