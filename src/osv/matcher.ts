import type { Component, Ecosystem } from '../inventory/component.ts';
import { affectedMatch, nearestFixedVersion } from './affected.ts';
import type { Advisory, AdvisoryLookup } from './advisories.ts';
import { scoreCvss, severityFromDatabase, type CvssScore } from './cvss.ts';
import { packageKey } from './package-key.ts';
import type { Severity } from '../core/severity.ts';

/** An advisory with neither a CVSS vector nor a database severity. */
const UNRATED_SEVERITY: Severity = 'medium';

/** One vulnerability of one component: advisories that alias each other are collapsed into it. */
export interface DependencyVulnerability {
  component: Component;
  /** The id findings carry: GHSA first, then CVE, then the others. */
  id: string;
  /** Every id and alias of the collapsed advisories, sorted. */
  ids: string[];
  summary: string | null;
  /** The lowest fixed version above the installed one, if any advisory names one. */
  fixedVersion: string | null;
  cvss: CvssScore | null;
  severity: Severity;
  cweIds: string[];
  references: string[];
}

/** Every known vulnerability of the components, from advisories the lookup returns. */
export async function matchComponents(components: readonly Component[], lookup: AdvisoryLookup): Promise<DependencyVulnerability[]> {
  const byEcosystem = new Map<Ecosystem, Component[]>();
  for (const c of components) {
    if (!c.version || c.firstParty) continue; // nothing to compare, or the project's own code
    const members = byEcosystem.get(c.ecosystem);
    if (members) members.push(c);
    else byEcosystem.set(c.ecosystem, [c]);
  }
  const results: DependencyVulnerability[] = [];
  for (const [ecosystem, members] of byEcosystem) {
    const keys = [...new Set(members.map((c) => packageKey(ecosystem, c.name)))];
    const advisories = await lookup.forPackages(ecosystem, keys);
    for (const component of members) {
      const candidates = advisories.get(packageKey(ecosystem, component.name)) ?? [];
      results.push(...vulnerabilitiesOf(component, candidates));
    }
  }
  return results;
}

export function vulnerabilitiesOf(component: Component, advisories: readonly Advisory[]): DependencyVulnerability[] {
  const hits: { advisory: Advisory; fixed: string[] }[] = [];
  for (const advisory of advisories) {
    let affected = false;
    const fixed: string[] = [];
    for (const entry of advisory.affected) {
      const match = affectedMatch(entry, component.ecosystem, component.version);
      if (!match.affected) continue;
      affected = true;
      fixed.push(...match.fixedVersions);
    }
    if (affected) hits.push({ advisory, fixed });
  }
  return collapseAliases(hits).map((group) => describe(component, group));
}

/** Advisories that share an id or alias describe one vulnerability (GHSA, CVE and PYSEC records of one flaw). */
function collapseAliases<T extends { advisory: Advisory }>(hits: T[]): T[][] {
  const parent = hits.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
  const owner = new Map<string, number>();
  hits.forEach((hit, i) => {
    for (const id of [hit.advisory.id, ...hit.advisory.aliases]) {
      const seen = owner.get(id);
      if (seen === undefined) owner.set(id, i);
      else parent[root(i)] = root(seen);
    }
  });
  const groups = new Map<number, T[]>();
  hits.forEach((hit, i) => groups.set(root(i), [...(groups.get(root(i)) ?? []), hit]));
  return [...groups.values()];
}

/** OSV writes Go versions without the `v` every go.mod carries; say the fix the way the user will type it. */
function asWritten(component: Component, version: string): string {
  return component.ecosystem === 'Go' && component.version.startsWith('v') && !version.startsWith('v') ? `v${version}` : version;
}

const ID_PREFERENCE = [/^GHSA-/, /^CVE-/];

function idRank(id: string): number {
  const rank = ID_PREFERENCE.findIndex((pattern) => pattern.test(id));
  return rank === -1 ? ID_PREFERENCE.length : rank;
}

function preferredId(ids: string[]): string {
  return [...ids].sort((a, b) => idRank(a) - idRank(b) || a.localeCompare(b))[0]!;
}

function describe(component: Component, group: { advisory: Advisory; fixed: string[] }[]): DependencyVulnerability {
  const ids = [...new Set(group.flatMap((h) => [h.advisory.id, ...h.advisory.aliases]))].sort();
  const id = preferredId(ids);
  // The advisory whose id the finding carries speaks first; the others fill in what it leaves out.
  const records = group.map((h) => h.advisory).sort((a, b) => idRank(a.id) - idRank(b.id) || a.id.localeCompare(b.id));
  const fixed = nearestFixedVersion(component.ecosystem, group.flatMap((h) => h.fixed));
  const cvss = records.map((r) => scoreCvss(r.severity)).find((score) => score !== null) ?? null;
  const databaseSeverity = records.map((r) => severityFromDatabase(r.databaseSeverity ?? undefined)).find((s) => s !== null) ?? null;
  return {
    component,
    id,
    ids,
    summary: records.find((r) => r.summary)?.summary ?? null,
    fixedVersion: fixed === null ? null : asWritten(component, fixed),
    cvss,
    severity: cvss && cvss.severity !== 'none' ? cvss.severity : (databaseSeverity ?? UNRATED_SEVERITY),
    cweIds: [...new Set(records.flatMap((r) => r.cweIds))].sort(),
    references: [...new Set(records.flatMap((r) => r.references))],
  };
}
