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
 * component (its purl is its bom-ref) listing every file as a `bulwark:source_file` property, with the
 * hashes and declared licenses its files record. The `dependencies` section holds the graph the
 * lockfiles record (each component's dependencies by bom-ref) and the repository's direct dependencies
 * under its own bom-ref.
 */
export function cyclonedxJson(subject: SbomSubject, components: readonly Component[], now = new Date()): string {
  const bom = new CDX.Models.Bom();
  bom.serialNumber = `urn:uuid:${randomUUID()}`;
  bom.metadata.timestamp = now;
  bom.metadata.tools.components.add(new CDX.Models.Component(CDX.Enums.ComponentType.Application, 'bulwark', { version: VERSION }));
  const root = new CDX.Models.Component(CDX.Enums.ComponentType.Application, subject.name, {
    version: subject.version ?? undefined,
    bomRef: `bulwark:subject:${subject.name}`,
  });
  bom.metadata.component = root;

  const byPurl = new Map<string, Component[]>();
  for (const c of components) byPurl.set(c.purl, [...(byPurl.get(c.purl) ?? []), c]);
  const models = new Map<string, CDX.Models.Component>();
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
    if (found.some((c) => c.firstParty)) model.properties.add(new CDX.Models.Property('bulwark:first_party', 'true'));
    for (const note of new Set(found.flatMap((c) => (c.note ? [c.note] : [])))) model.properties.add(new CDX.Models.Property('bulwark:note', note));
    for (const file of new Set(found.map((c) => c.sourceFile))) model.properties.add(new CDX.Models.Property('bulwark:source_file', file));
    for (const { algorithm, content } of found.flatMap((c) => c.hashes ?? [])) {
      // One digest per algorithm: the first file's (lockfiles of one package version agree).
      const known = CDX.Enums.HashAlgorithm[algorithm];
      if (known && /^[0-9a-f]+$/.test(content) && !model.hashes.has(known)) model.hashes.set(known, content);
    }
    for (const license of declaredLicenses(found.flatMap((c) => c.licenses ?? []))) model.licenses.add(license);
    bom.components.add(model);
    models.set(purl, model);
  }

  for (const [purl, found] of byPurl) {
    const model = models.get(purl)!;
    for (const target of new Set(found.flatMap((c) => c.dependsOn ?? []))) {
      const dependency = models.get(target);
      if (dependency && dependency !== model) model.dependencies.add(dependency.bomRef);
    }
    if (found.some((c) => c.direct === true)) root.dependencies.add(model.bomRef);
  }
  return serializer.serialize(bom, { sortLists: true, space: 2 });
}

/**
 * CycloneDX licenses of what files declare: an SPDX id as an id, a valid SPDX expression as the one
 * expression the schema allows (several declarations become their disjunction), anything else by name.
 */
function declaredLicenses(declared: readonly string[]): CDX.Models.License[] {
  const unique = [...new Set(declared.map((d) => d.trim()).filter((d) => d !== ''))];
  if (unique.length === 0) return [];
  if (unique.every((d) => isSpdxExpression(d)) && unique.some((d) => !CDX.SPDX.isSupportedSpdxId(d))) {
    const expression = unique.length === 1 ? unique[0]! : unique.map((d) => (CDX.SPDX.isSupportedSpdxId(d) ? d : `(${d})`)).join(' OR ');
    return [new CDX.Models.LicenseExpression(expression)];
  }
  return unique.map((d) => (CDX.SPDX.isSupportedSpdxId(d) ? new CDX.Models.SpdxLicense(d) : new CDX.Models.NamedLicense(d)));
}

/** An SPDX license expression of known ids (or LicenseRef-s) joined by AND, OR and WITH, with parentheses. */
function isSpdxExpression(value: string): boolean {
  const tokens = value.replace(/[()]/g, ' ').split(/\s+/).filter(Boolean);
  let expect: 'license' | 'exception' | 'operator' = 'license';
  for (const token of tokens) {
    if (expect === 'operator') {
      if (!['AND', 'OR', 'WITH'].includes(token)) return false;
      expect = token === 'WITH' ? 'exception' : 'license';
    } else if (expect === 'exception') {
      if (!/^[\w.-]+$/.test(token)) return false;
      expect = 'operator';
    } else {
      const id = token.endsWith('+') ? token.slice(0, -1) : token;
      if (!CDX.SPDX.isSupportedSpdxId(id) && !/^(?:DocumentRef-[\w.-]+:)?LicenseRef-[\w.-]+$/.test(token)) return false;
      expect = 'operator';
    }
  }
  return expect === 'operator';
}
