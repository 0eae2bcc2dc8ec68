import crypto from 'node:crypto';
import path from 'node:path';
import { NO_RECORDS_WARNING, type AdvisoryLookup } from '../../osv/advisories.ts';
import { matchComponents, type DependencyVulnerability } from '../../osv/matcher.ts';
import { packageKey } from '../../osv/package-key.ts';
import { escapeRegExp } from '../../regexp.ts';
import { WITHOUT_OSV_RECORDS, type Component } from '../../inventory/component.ts';
import { MAX_MANIFEST_BYTES } from '../../inventory/inventory.ts';
import { readTreeText } from '../../scm/work-tree.ts';
import { PARTIAL_RESULT, type EngineInput, type RawFinding, type ScanEngine } from '../engine.ts';
import { hashParts, snippetOf } from '../match-identity.ts';
import { enginePool, type WorkerPool } from '../worker-pool.ts';
import { inventoryOf } from './inventory-task.ts';

const INVENTORY_TASK = new URL('./inventory-task.ts', import.meta.url);

/**
 * `sbom_scan`: inventories every manifest and lockfile into a CycloneDX SBOM and reports each known
 * vulnerability of each dependency, matched offline against imported OSV records.
 */
export class SbomEngine implements ScanEngine {
  readonly scanType = 'sbom_scan' as const;
  readonly #advisories: AdvisoryLookup;
  readonly #pool: WorkerPool | null | undefined;
  readonly #maxManifestBytes: number | undefined;

  /**
   * `pool`: the threads that read manifests; the process's engine pool when absent, this thread when null.
   * `maxManifestBytes`: the largest manifest parsed (see buildInventory).
   */
  constructor(advisories: AdvisoryLookup, pool?: WorkerPool | null, maxManifestBytes?: number) {
    this.#advisories = advisories;
    this.#pool = pool;
    this.#maxManifestBytes = maxManifestBytes;
  }

  async scan(input: EngineInput): Promise<RawFinding[]> {
    input.onProgress?.({ phase: 'reading manifests' });
    const pool = this.#pool === undefined ? enginePool() : this.#pool;
    const subject = { name: input.subject ?? path.basename(path.resolve(input.dir)), version: input.commit };
    const { inventory, notes, bom } = pool
      ? await pool.run<Awaited<ReturnType<typeof inventoryOf>>>(INVENTORY_TASK, 'inventoryOf', [input.dir, this.#maxManifestBytes, subject], input.signal)
      : await inventoryOf(input.dir, this.#maxManifestBytes, subject);
    // A manifest skipped (too large, unreadable) leaves its dependencies out of the results: the reader is warned.
    for (const note of notes) (input.onWarning ?? input.onNote)?.(`${PARTIAL_RESULT} ${note}`);
    input.signal?.throwIfAborted();
    input.onArtifact?.({ kind: 'cyclonedx', content: bom });
    // Never a silent all-clear: missing or stale records for an ecosystem the scan found are said with its results.
    // Only components matching could check count: versioned, not the project's own, of an ecosystem OSV publishes.
    const matchable = inventory.components.filter((c) => c.version && !c.firstParty && !WITHOUT_OSV_RECORDS.includes(c.ecosystem));
    const ecosystems = [...new Set(matchable.map((c) => c.ecosystem))].sort();
    const warnings = this.#advisories.warningsFor
      ? await this.#advisories.warningsFor(ecosystems)
      : ecosystems.length && !(await this.#advisories.hasRecords())
        ? [NO_RECORDS_WARNING]
        : [];
    for (const warning of warnings) (input.onWarning ?? input.onNote)?.(warning);
    input.onProgress?.({ phase: 'matching advisories' });
    const vulnerabilities = await matchComponents(inventory.components, this.#advisories);
    const lines = new LineFinder(input.dir);
    const findings: RawFinding[] = [];
    for (const vulnerability of vulnerabilities) {
      const line = await lines.lineOf(vulnerability.component);
      findings.push(toFinding(vulnerability, line, await lines.textOf(vulnerability.component, line)));
    }
    return findings;
  }
}

function toFinding(v: DependencyVulnerability, line: number, snippet: string | null): RawFinding {
  const { component } = v;
  const advisoryOfPackage = hashParts('sbom', component.ecosystem, packageKey(component.ecosystem, component.name), v.id);
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
    // The advisory and the package: a version bump that leaves it affected, or a moved manifest, keep the finding.
    matchHash: advisoryOfPackage,
    anchor: advisoryOfPackage,
    snippet,
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
  readonly #files = new Map<string, Promise<IndexedText | null>>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  #read(component: Component): Promise<IndexedText | null> {
    let file = this.#files.get(component.sourceFile);
    if (!file) {
      file = readTreeText(this.#dir, component.sourceFile, MAX_MANIFEST_BYTES).then((text) => (text === null ? null : new IndexedText(text)), () => null);
      this.#files.set(component.sourceFile, file);
    }
    return file;
  }

  /** The (1-based) line's text, trimmed and cut short, as the finding's excerpt. */
  async textOf(component: Component, line: number): Promise<string | null> {
    const text = await this.#read(component);
    return text ? snippetOf(text.line(line - 1).trim(), 1, 1) : null;
  }

  async lineOf(component: Component): Promise<number> {
    const text = await this.#read(component);
    if (!text) return 1;
    // The pinned version itself, not a range such as `^4.17.20` in a manifest section.
    const pinned = new RegExp(`(?<![\\w.+^~<>-]|[\\^~<>]=)${escapeRegExp(component.version)}(?![\\w.+-])`);
    const lines = text.linesMentioning(component.name);
    const sameLine = lines.find((line) => pinned.test(text.line(line)));
    if (sameLine !== undefined) return sameLine + 1;
    // Most lockfiles put the version on a line of its own just below the name.
    const below = lines.find((line) => [1, 2, 3].some((offset) => pinned.test(text.line(line + offset))));
    return (below ?? lines[0] ?? 0) + 1;
  }
}

/** A file's text with its line starts, so the lines naming a package are found with native searches. */
class IndexedText {
  readonly #text: string;
  readonly #starts: number[] = [0];

  constructor(text: string) {
    this.#text = text;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.#starts.push(i + 1);
  }

  /** Zero-based numbers of the lines that contain `needle`, in order. */
  linesMentioning(needle: string): number[] {
    const lines: number[] = [];
    for (let at = this.#text.indexOf(needle); at !== -1; at = this.#text.indexOf(needle, at + needle.length)) {
      const line = this.#lineAt(at);
      if (lines.at(-1) !== line) lines.push(line);
    }
    return lines;
  }

  line(index: number): string {
    if (index >= this.#starts.length) return '';
    return this.#text.slice(this.#starts[index], (this.#starts[index + 1] ?? this.#text.length + 1) - 1);
  }

  #lineAt(offset: number): number {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.#starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}
