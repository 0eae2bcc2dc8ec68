import { component, type Component } from '../../component.ts';
import { LOCKFILES } from '../../lockfiles.ts';
import { ExtractError, isJsonObject, parserReason, type Extractor, type JsonObject } from '../extractor.ts';
import { stripJsonc } from '../js/jsonc.ts';
import { lockedPackagesToComponents, type LockedPackage } from '../js/locked-package.ts';
import { nodeStandings, type DeclarationKind, type ProjectRoot } from '../js/node-standings.ts';

// bun.lock, Bun's text lockfile (1.2+): JSONC with trailing commas. `workspaces` holds each project
// folder's declarations ("" is the root); `packages` maps an install key to
// `[ "name@version", registry, { dependencies, ... }, integrity ]`. A key `a/b` is the copy of `b`
// nested under `a` (scoped names keep their own slash), and a package resolves a dependency from its
// own key outwards, the way node_modules does. Workspace members appear as `name@workspace:path`.

const PRODUCTION_SECTIONS = ['dependencies', 'optionalDependencies', 'peerDependencies'] as const;
const DEPENDENCY_SECTIONS = ['dependencies', 'optionalDependencies', 'peerDependencies'] as const;

interface Entry {
  key: string;
  name: string;
  version: string;
  dependencies: string[];
}

export const bunLockExtractor: Extractor = {
  id: 'bun-lock',
  ecosystem: 'npm',
  docs: '`bun.lock`',
  fileNames: LOCKFILES['bun-lock'],
  lockfile: true,
  extract(file) {
    let lock: unknown;
    try {
      lock = JSON.parse(stripJsonc(file.text));
    } catch (error) {
      throw new ExtractError(file.path, `not valid JSON: ${parserReason(error)}`);
    }
    if (!isJsonObject(lock)) throw new ExtractError(file.path, 'not a JSON object');
    if (typeof lock.lockfileVersion !== 'number') throw new ExtractError(file.path, 'no numeric "lockfileVersion"');
    const workspaces = isJsonObject(lock.workspaces) ? lock.workspaces : {};
    const packages = isJsonObject(lock.packages) ? lock.packages : {};

    const entries = new Map<string, Entry>();
    const members: Component[] = [];
    for (const [key, value] of Object.entries(packages)) {
      if (!Array.isArray(value) || typeof value[0] !== 'string') throw new ExtractError(file.path, `packages["${key}"] is not [ "name@version", ... ]`);
      const [name, resolution] = splitAt(value[0]);
      if (resolution.startsWith('workspace:')) {
        const folder = resolution.slice('workspace:'.length);
        const declared = isJsonObject(workspaces[folder]) ? workspaces[folder] : {};
        const version = typeof declared.version === 'string' ? declared.version : '';
        members.push(component({ name, version, ecosystem: 'npm', direct: null, firstParty: true, sourceFile: file.path }));
        continue;
      }
      // github:, git+, file: and link: resolutions are not registry versions.
      if (!resolution || resolution.includes(':')) continue;
      const meta = isJsonObject(value[2]) ? value[2] : {};
      const dependencies = DEPENDENCY_SECTIONS.flatMap((section) => (isJsonObject(meta[section]) ? Object.keys(meta[section]) : []));
      entries.set(key, { key, name, version: resolution, dependencies });
    }

    const resolve = (from: string, name: string): Entry | undefined => {
      for (let scope = from; ; scope = parentKey(scope)) {
        const found = entries.get(scope ? `${scope}/${name}` : name);
        if (found || !scope) return found;
      }
    };
    const roots: ProjectRoot<Entry>[] = [];
    for (const workspace of Object.values(workspaces)) {
      if (!isJsonObject(workspace)) continue;
      for (const [name, kind] of declarations(workspace)) {
        const node = resolve('', name);
        if (node) roots.push({ node, kind });
      }
    }
    const standing = nodeStandings(roots, (entry) => entry.dependencies.map((d) => resolve(entry.key, d)).filter((e) => e !== undefined), true);
    const locked: LockedPackage[] = [...entries.values()].map((entry) => ({ name: entry.name, version: entry.version, ...standing(entry) }));
    return [...lockedPackagesToComponents(locked, file.path), ...members];
  },
};

/** `@scope/name@1.2.3` → [`@scope/name`, `1.2.3`]. */
function splitAt(spec: string): [string, string] {
  const at = spec.indexOf('@', 1);
  return at === -1 ? [spec, ''] : [spec.slice(0, at), spec.slice(at + 1)];
}

/** The key a nested copy's parent has: `a/@s/b/c` → `a/@s/b`, `a/b` → `a`, `a` → ``. */
function parentKey(key: string): string {
  const parts = key.split('/');
  const names: string[] = [];
  for (let i = 0; i < parts.length; i++) names.push(parts[i]!.startsWith('@') && i + 1 < parts.length ? `${parts[i]}/${parts[++i]}` : parts[i]!);
  return names.slice(0, -1).join('/');
}

function declarations(workspace: JsonObject): [string, DeclarationKind][] {
  const declared = new Map<string, DeclarationKind>();
  for (const section of PRODUCTION_SECTIONS) {
    for (const name of Object.keys(isJsonObject(workspace[section]) ? workspace[section] : {})) declared.set(name, 'production');
  }
  for (const name of Object.keys(isJsonObject(workspace.devDependencies) ? workspace.devDependencies : {})) {
    if (!declared.has(name)) declared.set(name, 'development');
  }
  return [...declared];
}
