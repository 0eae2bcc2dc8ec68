import { component, type Component } from '../../component.ts';
import { LOCKFILES } from '../../lockfiles.ts';
import { ExtractError, isJsonObject, parseYamlDocument, type Extractor } from '../extractor.ts';

// Podfile.lock, CocoaPods' lockfile (YAML). `PODS` lists every installed pod as `Name (version)`, with
// its own dependencies beneath; `DEPENDENCIES` what the Podfile asks for; `EXTERNAL SOURCES` pods taken
// from a path or a repository instead of a spec repo. A subspec (`Firebase/CoreOnly`) is part of its
// pod, so it counts as the pod. A pod from a `:path` is the project's own code.

const POD = /^(\S+) \(([^)]+)\)$/;

export const podfileLockExtractor: Extractor = {
  id: 'podfile-lock',
  ecosystem: 'CocoaPods',
  docs: '`Podfile.lock`',
  fileNames: LOCKFILES['podfile-lock'],
  lockfile: true,
  extract(file) {
    const document = parseYamlDocument(file);
    if (!isJsonObject(document) || !Array.isArray(document.PODS)) throw new ExtractError(file.path, 'no `PODS` list');

    const declared = new Set(
      (Array.isArray(document.DEPENDENCIES) ? document.DEPENDENCIES : []).filter((d) => typeof d === 'string').map((d: string) => rootPod(d.split(' ')[0]!)),
    );
    const external = isJsonObject(document['EXTERNAL SOURCES']) ? document['EXTERNAL SOURCES'] : {};
    const components = new Map<string, Component>();
    for (const [index, entry] of document.PODS.entries()) {
      const spec = typeof entry === 'string' ? entry : isJsonObject(entry) ? Object.keys(entry)[0] : undefined;
      const match = spec ? POD.exec(spec) : null;
      if (!match) throw new ExtractError(file.path, `PODS entry ${index + 1} is not \`Name (version)\``);
      const name = rootPod(match[1]!);
      const source = external[name];
      const local = isJsonObject(source) && typeof source[':path'] === 'string';
      components.set(
        `${name}@${match[2]}`,
        component({ name, version: match[2]!, ecosystem: 'CocoaPods', direct: declared.has(name), ...(local ? { firstParty: true } : {}), sourceFile: file.path }),
      );
    }
    return [...components.values()];
  },
};

function rootPod(name: string): string {
  return name.split('/')[0]!;
}
