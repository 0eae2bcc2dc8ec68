import { posix } from 'node:path';
import { isJsonObject, type ExtractContext } from '../extractor.ts';

export interface DeclaredDependency {
  name: string;
  /** The range as written, e.g. `^4.17.21` or `npm:string-width@^4.2.0`. */
  range: string;
  kind: 'production' | 'development';
}

/** What a lockfile needs from a package.json: the dependencies it declares and its workspace patterns. */
export interface PackageManifest {
  dependencies: DeclaredDependency[];
  workspaces: string[];
}

// A name in `dependencies` as well as `devDependencies` is installed in production, so it counts once as such.
const PRODUCTION_SECTIONS = ['dependencies', 'optionalDependencies', 'peerDependencies'] as const;

/** Reads `<dir>/package.json`; null when it is missing or not a JSON object, since it is not the file being extracted. */
export async function readPackageManifest(dir: string, context: ExtractContext): Promise<PackageManifest | null> {
  const text = await context.readFile(posix.join(dir, 'package.json'));
  if (text === null) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isJsonObject(json)) return null;

  const declared = new Map<string, DeclaredDependency>();
  for (const section of PRODUCTION_SECTIONS) {
    for (const [name, range] of stringEntries(json[section])) {
      if (!declared.has(name)) declared.set(name, { name, range, kind: 'production' });
    }
  }
  for (const [name, range] of stringEntries(json.devDependencies)) {
    if (!declared.has(name)) declared.set(name, { name, range, kind: 'development' });
  }
  return { dependencies: [...declared.values()], workspaces: workspacePatterns(json.workspaces) };
}

/** `workspaces` is either a list of patterns or, in Yarn's form, `{ packages: [...] }`. */
function workspacePatterns(value: unknown): string[] {
  const list = isJsonObject(value) ? value.packages : value;
  return Array.isArray(list) ? list.filter((p): p is string => typeof p === 'string') : [];
}

function stringEntries(value: unknown): [string, string][] {
  if (!isJsonObject(value)) return [];
  return Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string');
}

