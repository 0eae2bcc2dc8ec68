import type { Kysely } from 'kysely';
import type { Ecosystem } from '../inventory/component.ts';
import { affectedAdvisories, hasAdvisories, osvEcosystems } from '../store/osv.ts';
import type { Database } from '../store/schema.ts';
import type { OsvAffected, OsvSeverity } from './record.ts';

/** An advisory as matching needs it, with only the affected entries of one package. */
export interface Advisory {
  id: string;
  aliases: string[];
  summary: string | null;
  severity: OsvSeverity[];
  databaseSeverity: string | null;
  cweIds: string[];
  references: string[];
  affected: OsvAffected[];
}

/** Where advisories come from: the database in the service, anything else in tests and benchmarks. */
export interface AdvisoryLookup {
  /** Advisories not withdrawn, by package key, for the given package keys of one ecosystem. */
  forPackages(ecosystem: Ecosystem, packageKeys: string[]): Promise<Map<string, Advisory[]>>;
  /** Whether any record has been imported at all, so a scan can say it matched against nothing. */
  hasRecords(): Promise<boolean>;
  /**
   * What a reader of a scan of these ecosystems must be told about the records: ecosystems with none,
   * and ecosystems whose records were last refreshed too long ago. Without it, only "no records at all".
   */
  warningsFor?(ecosystems: string[]): Promise<string[]>;
}

/** Hours after which an ecosystem's records count as stale (BULWARK_OSV_MAX_AGE_HOURS). */
export const DEFAULT_MAX_AGE_HOURS = 72;

/** The warning of a scan that found dependencies but had no records at all to match them against. */
export const NO_RECORDS_WARNING =
  'no vulnerability records are available, so no dependency was checked for known vulnerabilities: run "bulwark osv sync" (or "bulwark osv import") first';

export function storedAdvisories(db: Kysely<Database>, options: { maxAgeHours?: number; now?: () => number } = {}): AdvisoryLookup {
  const maxAgeHours = options.maxAgeHours ?? DEFAULT_MAX_AGE_HOURS;
  const now = options.now ?? Date.now;
  return {
    hasRecords: () => hasAdvisories(db),
    async warningsFor(ecosystems) {
      if (!ecosystems.length) return [];
      const known = await osvEcosystems(db, ecosystems);
      const missing = ecosystems.filter((e) => !known.has(e));
      const warnings: string[] = [];
      if (missing.length === ecosystems.length && !(await hasAdvisories(db))) return [NO_RECORDS_WARNING];
      if (missing.length) {
        warnings.push(
          `no vulnerability records for ${missing.join(', ')}, so those dependencies were not checked for known vulnerabilities: ` +
            `run "bulwark osv sync --ecosystems ${missing.join(',')}"`,
        );
      }
      for (const ecosystem of ecosystems) {
        const refreshed = known.get(ecosystem)?.refreshed_at;
        if (!refreshed) continue;
        const hours = (now() - Date.parse(refreshed)) / 3_600_000;
        if (maxAgeHours > 0 && hours > maxAgeHours) {
          warnings.push(
            `vulnerability records for ${ecosystem} were last refreshed ${Math.floor(hours)} hours ago (more than ${maxAgeHours}), ` +
              `so advisories published since are not matched: run "bulwark osv sync" or check the worker's OSV refresh`,
          );
        }
      }
      return warnings;
    },
    async forPackages(ecosystem, packageKeys) {
      const found = new Map<string, Map<string, Advisory>>();
      for (const row of await affectedAdvisories(db, ecosystem, packageKeys)) {
        const byId = found.get(row.packageKey) ?? new Map<string, Advisory>();
        found.set(row.packageKey, byId);
        const advisory: Advisory = byId.get(row.advisory.id) ?? {
          ...row.advisory,
          references: row.advisory.references.map((r) => r.url),
          affected: [],
        };
        advisory.affected.push(row.affected);
        byId.set(row.advisory.id, advisory);
      }
      return new Map([...found].map(([key, byId]) => [key, [...byId.values()]]));
    },
  };
}
