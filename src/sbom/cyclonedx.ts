import { randomUUID } from 'node:crypto';
import * as CDX from '@cyclonedx/cyclonedx-library';
import { VERSION } from '../version.ts';
import { splitNamespace, type Component } from './component.ts';

export interface SbomSubject {
  /** The repository, e.g. `acme/web`. */
  name: string;
  /** The scanned commit, when there is one. */
  version?: string | null;
}

const serializer = new CDX.Serialize.JsonSerializer(new CDX.Serialize.JSON.Normalize.Factory(CDX.Spec.Spec1dot6));

/**
 * A CycloneDX 1.6 JSON document of the components found. A package found in several files is one
 * component (its purl is its bom-ref) listing every file as a `bulwark:source_file` property.
 */
export function cyclonedxJson(subject: SbomSubject, components: readonly Component[], now = new Date()): string {
  const bom = new CDX.Models.Bom();
  bom.serialNumber = `urn:uuid:${randomUUID()}`;
  bom.metadata.timestamp = now;
  bom.metadata.tools.components.add(new CDX.Models.Component(CDX.Enums.ComponentType.Application, 'bulwark', { version: VERSION }));
  bom.metadata.component = new CDX.Models.Component(CDX.Enums.ComponentType.Application, subject.name, {
    version: subject.version ?? undefined,
    bomRef: `bulwark:subject:${subject.name}`,
  });

  const byPurl = new Map<string, Component[]>();
  for (const c of components) byPurl.set(c.purl, [...(byPurl.get(c.purl) ?? []), c]);
  for (const [purl, found] of byPurl) {
    const first = found[0]!;
    const [group, name] = splitNamespace(first.ecosystem, first.name);
    const model = new CDX.Models.Component(CDX.Enums.ComponentType.Library, name, {
      group,
      version: first.version || undefined,
      purl,
      bomRef: purl,
      scope: found.every((c) => c.development) ? CDX.Enums.ComponentScope.Optional : CDX.Enums.ComponentScope.Required,
    });
    model.properties.add(new CDX.Models.Property('bulwark:ecosystem', first.ecosystem));
    const direct = found.some((c) => c.direct === true) ? 'true' : found.every((c) => c.direct === false) ? 'false' : null;
    if (direct) model.properties.add(new CDX.Models.Property('bulwark:direct', direct));
    for (const file of new Set(found.map((c) => c.sourceFile))) model.properties.add(new CDX.Models.Property('bulwark:source_file', file));
    bom.components.add(model);
  }
  return serializer.serialize(bom, { sortLists: true, space: 2 });
}
