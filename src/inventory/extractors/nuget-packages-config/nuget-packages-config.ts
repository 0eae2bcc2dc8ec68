import { XMLParser } from 'fast-xml-parser';
import { component, type Component } from '../../component.ts';
import { ExtractError, isJsonObject, type Extractor } from '../extractor.ts';
import { parseXmlManifest } from '../xml.ts';

// packages.config, the NuGet package list of .NET Framework projects before PackageReference: one
// `<package id version targetFramework [developmentDependency]/>` per installed package, transitive
// ones included, with nothing telling them apart.

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'package' });

export const nugetPackagesConfigExtractor: Extractor = {
  id: 'nuget-packages-config',
  ecosystem: 'NuGet',
  docs: '`packages.config`',
  fileNames: ['packages.config'],
  lockfile: false,
  extract(file) {
    const document = parseXmlManifest(file, parser);
    const root = isJsonObject(document) ? document.packages : undefined;
    if (root === undefined) throw new ExtractError(file.path, 'no <packages> element');
    const packages = isJsonObject(root) && Array.isArray(root.package) ? root.package : [];
    const components: Component[] = [];
    packages.forEach((entry: unknown, index: number) => {
      if (!isJsonObject(entry) || typeof entry.id !== 'string' || typeof entry.version !== 'string') {
        throw new ExtractError(file.path, `package ${index + 1} has no id or version`);
      }
      components.push(
        component({
          name: entry.id,
          version: entry.version,
          ecosystem: 'NuGet',
          direct: null,
          development: entry.developmentDependency === 'true',
          sourceFile: file.path,
        }),
      );
    });
    return components;
  },
};
