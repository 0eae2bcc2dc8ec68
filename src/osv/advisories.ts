import type { Kysely } from 'kysely';
import type { Ecosystem } from '../sbom/component.ts';
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

const KEYS_PER_QUERY = 500;

export function storedAdvisories(db: Kysely<Database>): AdvisoryLookup {
  return {
    async hasRecords() {
      return (await db.selectFrom('osv_affected').select('advisory_id').limit(1).executeTakeFirst()) !== undefined;
    },
    async forPackages(ecosystem, packageKeys) {
      const found = new Map<string, Map<string, Advisory>>();
      for (let i = 0; i < packageKeys.length; i += KEYS_PER_QUERY) {
        const rows = await db
          .selectFrom('osv_affected')
          .innerJoin('osv_advisories', 'osv_advisories.id', 'osv_affected.advisory_id')
          .select([
            'osv_affected.package_key',
            'osv_affected.ranges',
            'osv_affected.versions',
            'osv_advisories.id',
            'osv_advisories.aliases',
            'osv_advisories.summary',
            'osv_advisories.severity',
            'osv_advisories.database_severity',
            'osv_advisories.cwe_ids',
            'osv_advisories.references',
          ])
          .where('osv_affected.ecosystem', '=', ecosystem)
          .where('osv_affected.package_key', 'in', packageKeys.slice(i, i + KEYS_PER_QUERY))
          .where('osv_advisories.withdrawn', 'is', null)
          .orderBy('osv_advisories.id')
          .orderBy('osv_affected.position')
          .execute();
        for (const row of rows) {
          const byId = found.get(row.package_key) ?? new Map<string, Advisory>();
          found.set(row.package_key, byId);
          const advisory: Advisory = byId.get(row.id) ?? {
            id: row.id,
            aliases: JSON.parse(row.aliases),
            summary: row.summary,
            severity: JSON.parse(row.severity),
            databaseSeverity: row.database_severity,
            cweIds: JSON.parse(row.cwe_ids),
            references: (JSON.parse(row.references) as { url: string }[]).map((r) => r.url),
            affected: [],
          };
          advisory.affected.push({ ranges: JSON.parse(row.ranges), versions: JSON.parse(row.versions) });
          byId.set(row.id, advisory);
        }
      }
      return new Map([...found].map(([key, byId]) => [key, [...byId.values()]]));
    },
  };
}
