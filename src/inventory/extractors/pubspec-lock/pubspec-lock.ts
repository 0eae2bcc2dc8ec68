import { component, type Component } from '../../component.ts';
import { ExtractError, isJsonObject, parseYamlDocument, type Extractor, type ManifestFile } from '../extractor.ts';
import { LOCKFILES } from '../../lockfiles.ts';

/** Sources that are not packages from a package repository: the Flutter SDK and local directories. */
const SKIPPED_SOURCES = new Set(['sdk', 'path']);

/** Only direct dependencies say which list of pubspec.yaml they come from; overrides and transitive ones do not. */
const DEVELOPMENT_BY_KIND = new Map([
  ['direct main', false],
  ['direct dev', true],
]);

// A hosted package's `description` carries, in lockfiles of recent Dart SDKs, the `sha256` of its archive
// as the repository serves it (pub checks each download against it): the component's SHA-256. Git entries
// and those of older lockfiles have none.

export const pubspecLockExtractor: Extractor = {
  id: 'pubspec-lock',
  ecosystem: 'Pub',
  docs: '`pubspec.lock`',
  fileNames: LOCKFILES['pubspec-lock'],
  lockfile: true,
  extract(file) {
    const components: Component[] = [];
    for (const [name, entry] of Object.entries(lockedPackages(file))) {
      if (!isJsonObject(entry) || typeof entry.version !== 'string') {
        throw new ExtractError(file.path, `package ${name} lacks a version`);
      }
      if (SKIPPED_SOURCES.has(String(entry.source))) continue;
      // "direct main", "direct dev", "direct overridden" or "transitive"
      const dependency = String(entry.dependency ?? '');
      const development = DEVELOPMENT_BY_KIND.get(dependency);
      const found = component({
        name,
        version: entry.version,
        ecosystem: 'Pub',
        direct: dependency.startsWith('direct'),
        ...(development === undefined ? {} : { development }),
        sourceFile: file.path,
      });
      const sha256 = isJsonObject(entry.description) ? entry.description.sha256 : undefined;
      if (typeof sha256 === 'string' && /^[0-9a-fA-F]{64}$/.test(sha256)) found.hashes = [{ algorithm: 'SHA-256', content: sha256.toLowerCase() }];
      components.push(found);
    }
    return components;
  },
};

function lockedPackages(file: ManifestFile): Record<string, unknown> {
  const document = parseYamlDocument(file, { failsafe: true });
  if (!isJsonObject(document)) throw new ExtractError(file.path, 'not a YAML mapping');
  if (!isJsonObject(document.packages)) throw new ExtractError(file.path, 'no "packages" mapping');
  return document.packages;
}

