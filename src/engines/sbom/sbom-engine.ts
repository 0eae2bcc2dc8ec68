import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AdvisoryLookup } from '../../osv/advisories.ts';
import { matchComponents, type DependencyVulnerability } from '../../osv/matcher.ts';
import { packageKey } from '../../osv/package-key.ts';
import type { Component } from '../../sbom/component.ts';
import { cyclonedxJson } from '../../sbom/cyclonedx.ts';
import { buildInventory } from '../../sbom/inventory.ts';
import type { EngineInput, RawFinding, ScanEngine } from '../engine.ts';

/**
 * `sbom_scan`: inventories every manifest and lockfile into a CycloneDX SBOM and reports each known
 * vulnerability of each dependency, matched offline against imported OSV records.
 */
export class SbomEngine implements ScanEngine {
  readonly scanType = 'sbom_scan' as const;
  readonly #advisories: AdvisoryLookup;

  constructor(advisories: AdvisoryLookup) {
    this.#advisories = advisories;
  }

  async scan(input: EngineInput): Promise<RawFinding[]> {
    const inventory = await buildInventory(input.dir, { signal: input.signal, onNote: input.onNote });
    input.onArtifact?.({
      kind: 'cyclonedx',
      content: cyclonedxJson({ name: input.subject ?? path.basename(path.resolve(input.dir)), version: input.commit }, inventory.components),
    });
    const vulnerabilities = await matchComponents(inventory.components, this.#advisories);
    const lines = new LineFinder(input.dir);
    const findings: RawFinding[] = [];
    for (const vulnerability of vulnerabilities) {
      findings.push(toFinding(vulnerability, await lines.lineOf(vulnerability.component)));
    }
    return findings;
  }
}

function toFinding(v: DependencyVulnerability, line: number): RawFinding {
  const { component } = v;
  const upgrade = v.fixedVersion ? `Upgrade to ${v.fixedVersion} or later.` : 'No fixed version is published yet.';
  return {
    checkId: v.id,
    severity: v.severity,
    category: 'dependency',
    title: v.summary ?? `${v.id} in ${component.name}`,
    message: `${component.name} ${component.version} (${component.ecosystem}) is affected by ${v.id}${v.summary ? `: ${v.summary}` : ''}. ${upgrade}`,
    filePath: component.sourceFile,
    startLine: line,
    endLine: line,
    cwe: v.cweIds,
    owasp: ['A06:2021 - Vulnerable and Outdated Components'],
    references: v.references,
    fingerprint: crypto
      .createHash('sha256')
      .update(`sbom\0${component.ecosystem}\0${packageKey(component.ecosystem, component.name)}\0${v.id}\0${component.sourceFile}`)
      .digest('hex'),
    commitSha: null,
    metadata: {
      package: component.name,
      ecosystem: component.ecosystem,
      installed_version: component.version,
      fixed_version: v.fixedVersion,
      purl: component.purl,
      direct: component.direct,
      aliases: v.ids.filter((id) => id !== v.id),
    },
    sourceUrl: advisoryUrl(v.id),
    cvss: v.cvss ? { baseScore: v.cvss.baseScore, vector: v.cvss.vector, severity: v.cvss.severity } : null,
  };
}

function advisoryUrl(id: string): string {
  return id.startsWith('GHSA-') ? `https://github.com/advisories/${id}` : `https://osv.dev/vulnerability/${encodeURIComponent(id)}`;
}

/** Points a finding at the line of the lockfile that pins the package, so a reader lands on it. */
class LineFinder {
  readonly #dir: string;
  readonly #files = new Map<string, Promise<string[]>>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  async lineOf(component: Component): Promise<number> {
    let lines = this.#files.get(component.sourceFile);
    if (!lines) {
      lines = fs.readFile(path.join(this.#dir, component.sourceFile), 'utf8').then((t) => t.split('\n'), () => []);
      this.#files.set(component.sourceFile, lines);
    }
    const all = await lines;
    // The pinned version itself, not a range such as `^4.17.20` in a manifest section.
    const pinned = new RegExp(`(?<![\\w.+^~<>-]|[\\^~<>]=)${component.version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w.+-])`);
    const mentions = (i: number) => all[i]!.includes(component.name);
    for (let i = 0; i < all.length; i++) if (mentions(i) && pinned.test(all[i]!)) return i + 1;
    // Most lockfiles put the version on a line of its own just below the name.
    for (let i = 0; i < all.length; i++) if (mentions(i) && all.slice(i + 1, i + 4).some((l) => pinned.test(l))) return i + 1;
    const first = all.findIndex((_, i) => mentions(i));
    return first === -1 ? 1 : first + 1;
  }
}
