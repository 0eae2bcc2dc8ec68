import type { Kysely } from 'kysely';
import type { Ecosystem } from '../sbom/component.ts';
import { affectedAdvisories, hasAdvisories } from '../store/osv.ts';
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
}

export function storedAdvisories(db: Kysely<Database>): AdvisoryLookup {
  return {
    hasRecords: () => hasAdvisories(db),
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
