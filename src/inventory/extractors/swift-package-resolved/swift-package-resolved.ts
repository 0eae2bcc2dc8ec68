import { component, type Component } from '../../component.ts';
import { LOCKFILES } from '../../lockfiles.ts';
import { ExtractError, isJsonObject, parseJsonObject, type Extractor, type JsonObject } from '../extractor.ts';

// Package.resolved, SwiftPM's lockfile. Version 1 nests `object.pins` with `package`, `repositoryURL`
// and `state`; versions 2 and 3 (3 adds `originHash`) have top-level `pins` with `identity`, `kind` and
// `location`. A package is known to OSV by its repository URL without scheme or `.git`
// (`github.com/apple/swift-nio`): the SwiftURL ecosystem. A pin on a branch has no version, so its
// revision stands in, the commit that is built. Local checkouts are the project's own code.

export const swiftPackageResolvedExtractor: Extractor = {
  id: 'swift-package-resolved',
  ecosystem: 'SwiftURL',
  docs: '`Package.resolved` (v1–v3), named by repository URL (`github.com/apple/swift-nio`)',
  fileNames: LOCKFILES['swift-package-resolved'],
  lockfile: true,
  extract(file) {
    const document = parseJsonObject(file);
    const version = document.version;
    let pins: unknown;
    if (version === 1) pins = isJsonObject(document.object) ? document.object.pins : undefined;
    else if (version === 2 || version === 3) pins = document.pins;
    else throw new ExtractError(file.path, `unknown Package.resolved version ${JSON.stringify(version)}`);
    if (!Array.isArray(pins)) throw new ExtractError(file.path, 'no `pins` list');

    const components: Component[] = [];
    pins.forEach((pin: unknown, index) => {
      if (!isJsonObject(pin)) throw new ExtractError(file.path, `pin ${index + 1} is not an object`);
      const location = version === 1 ? pin.repositoryURL : pin.location;
      if (typeof location !== 'string' || !location) throw new ExtractError(file.path, `pin ${index + 1} has no location`);
      const state: JsonObject = isJsonObject(pin.state) ? pin.state : {};
      const pinned = typeof state.version === 'string' ? state.version : typeof state.revision === 'string' ? state.revision : '';
      const local = pin.kind === 'localSourceControl' || pin.kind === 'fileSystem';
      components.push(
        component({
          name: local ? location : packageName(location),
          version: pinned,
          ecosystem: 'SwiftURL',
          direct: null,
          ...(local ? { firstParty: true } : {}),
          sourceFile: file.path,
        }),
      );
    });
    return components;
  },
};

/** `https://github.com/apple/swift-nio.git` and `git@github.com:apple/swift-nio.git` → `github.com/apple/swift-nio`. */
export function packageName(location: string): string {
  return location
    .trim()
    .replace(/^[a-z+]+:\/\/(?:[^@/]+@)?/i, '')
    .replace(/^[^@/]+@([^:/]+):/, '$1/')
    .replace(/\.git$/, '')
    .replace(/\/+$/, '');
}
