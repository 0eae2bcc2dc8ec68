import { posix } from 'node:path';
import { component, type Component } from '../../component.ts';
import { ExtractError, parseJsonObject, type ExtractContext, type Extractor, type ManifestFile } from '../extractor.ts';
import { LOCKFILES } from '../../lockfiles.ts';

interface LockedPackage {
  name: string;
  version: string;
  /** The `license` list (SPDX ids, any of which applies). */
  license: string[];
  /** The package names of `require`. */
  requires: string[];
}

export const composerLockExtractor: Extractor = {
  id: 'composer-lock',
  ecosystem: 'Packagist',
  docs: '`composer.lock`',
  fileNames: LOCKFILES['composer-lock'],
  lockfile: true,
  async extract(file, context) {
    const lock = parseJsonObject(file);
    const packages = lockedPackages(file, lock, 'packages');
    const devPackages = lockedPackages(file, lock, 'packages-dev');
    const required = await requiredPackages(file, context);
    // Composer package names are case-insensitive.
    const direct = (name: string): boolean | null => (required ? required.has(name.toLowerCase()) : null);
    const toComponent = (p: LockedPackage, development: boolean): Component =>
      component({ ...p, ecosystem: 'Packagist', direct: direct(p.name), development, sourceFile: file.path });
    const components = [...packages.map((p) => toComponent(p, false)), ...devPackages.map((p) => toComponent(p, true))];
    // Declared licenses, and the graph: a lock holds one version of each package, so `require` names lead to it.
    const locked = [...packages, ...devPackages];
    const byName = new Map(components.map((c) => [c.name.toLowerCase(), c]));
    components.forEach((c, index) => {
      const { license, requires } = locked[index]!;
      if (license.length) c.licenses = license;
      const dependsOn = requires.flatMap((name) => byName.get(name.toLowerCase())?.purl ?? []);
      if (dependsOn.length) c.dependsOn = [...new Set(dependsOn)].sort();
    });
    return components;
  },
};


function lockedPackages(file: ManifestFile, lock: Record<string, unknown>, key: 'packages' | 'packages-dev'): LockedPackage[] {
  const entries = lock[key] ?? [];
  if (!Array.isArray(entries)) throw new ExtractError(file.path, `"${key}" is not an array`);
  return entries.map((entry: unknown, index): LockedPackage => {
    const { name, version, license, require } = (entry ?? {}) as Record<string, unknown>;
    if (typeof name !== 'string' || typeof version !== 'string') {
      throw new ExtractError(file.path, `${key}[${index}] lacks a name or version`);
    }
    const licenses = (Array.isArray(license) ? license : [license]).filter((l): l is string => typeof l === 'string' && l !== '');
    const requires = typeof require === 'object' && require !== null && !Array.isArray(require) ? Object.keys(require) : [];
    return { name, version, license: licenses, requires };
  });
}

/**
 * The lowercased package names the sibling composer.json requires, leaving out the platform
 * requirements `php` and `ext-*`; null when there is no readable composer.json.
 */
async function requiredPackages(file: ManifestFile, context: ExtractContext): Promise<Set<string> | null> {
  const manifestPath = posix.join(posix.dirname(file.path), 'composer.json');
  const text = await context.readFile(manifestPath);
  if (text === null) return null;
  let manifest: Record<string, unknown>;
  try {
    manifest = parseJsonObject({ path: manifestPath, text });
  } catch {
    return null; // the lock is still good; only the direct flags are unknown
  }
  const names = [manifest.require, manifest['require-dev']].flatMap((section) =>
    typeof section === 'object' && section !== null ? Object.keys(section) : [],
  );
  return new Set(names.map((name) => name.toLowerCase()).filter((name) => name !== 'php' && !name.startsWith('ext-')));
}
