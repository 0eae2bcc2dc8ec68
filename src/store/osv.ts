import type { Kysely, Selectable } from 'kysely';
import type { OsvRange, OsvReference, OsvSeverity } from '../osv/record.ts';
import { decodeJson, encodeJson } from './json-columns.ts';
import type { Database, OsvEcosystemsTable } from './schema.ts';

/** An imported advisory with the affected entries of the packages Bulwark matches. */
export interface StoredAdvisory {
  id: string;
  modified: string;
  published: string | null;
  withdrawn: string | null;
  summary: string | null;
  aliases: string[];
  severity: OsvSeverity[];
  databaseSeverity: string | null;
  cweIds: string[];
  references: OsvReference[];
  affected: StoredAffected[];
}

export interface StoredAffected {
  ecosystem: string;
  packageKey: string;
  packageName: string;
  ranges: OsvRange[];
  versions: string[];
}

/** One package's affected entry joined with its advisory, as matching reads it. */
export interface AffectedAdvisoryRow {
  packageKey: string;
  advisory: Omit<StoredAdvisory, 'modified' | 'published' | 'withdrawn' | 'affected'>;
  affected: { ranges: OsvRange[]; versions: string[] };
}

const KEYS_PER_QUERY = 500;

function* chunks<T>(items: T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

export async function hasAdvisories(db: Kysely<Database>): Promise<boolean> {
  return (await db.selectFrom('osv_affected').select('advisory_id').limit(1).executeTakeFirst()) !== undefined;
}

/** The stored `modified` time of each of these advisories that is stored at all. */
export async function advisoryModifiedTimes(db: Kysely<Database>, ids: string[]): Promise<Map<string, string>> {
  const rows = await db.selectFrom('osv_advisories').select(['id', 'modified']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.modified]));
}

/** Replaces these advisories and their affected entries whole; call inside a transaction. */
export async function replaceAdvisories(db: Kysely<Database>, advisories: StoredAdvisory[], importedAt: string): Promise<void> {
  if (!advisories.length) return;
  const ids = advisories.map((a) => a.id);
  await db.deleteFrom('osv_affected').where('advisory_id', 'in', ids).execute();
  await db.deleteFrom('osv_advisories').where('id', 'in', ids).execute();
  const rows = advisories.map((a) => ({
    id: a.id,
    modified: a.modified,
    published: a.published,
    withdrawn: a.withdrawn,
    summary: a.summary,
    aliases: encodeJson(a.aliases),
    severity: encodeJson(a.severity),
    database_severity: a.databaseSeverity,
    cwe_ids: encodeJson(a.cweIds),
    references: encodeJson(a.references),
    imported_at: importedAt,
  }));
  const affected = advisories.flatMap((a) =>
    a.affected.map((entry, position) => ({
      advisory_id: a.id,
      position,
      ecosystem: entry.ecosystem,
      package_key: entry.packageKey,
      package_name: entry.packageName,
      ranges: encodeJson(entry.ranges),
      versions: encodeJson(entry.versions),
    })),
  );
  for (const chunk of chunks(rows, 100)) await db.insertInto('osv_advisories').values(chunk).execute();
  for (const chunk of chunks(affected, 300)) await db.insertInto('osv_affected').values(chunk).execute();
}

/** Affected entries of advisories not withdrawn, for these package keys of one ecosystem, in a stable order. */
export async function affectedAdvisories(db: Kysely<Database>, ecosystem: string, packageKeys: string[]): Promise<AffectedAdvisoryRow[]> {
  const found: AffectedAdvisoryRow[] = [];
  for (const keys of chunks(packageKeys, KEYS_PER_QUERY)) {
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
      .where('osv_affected.package_key', 'in', keys)
      .where('osv_advisories.withdrawn', 'is', null)
      .orderBy('osv_advisories.id')
      .orderBy('osv_affected.position')
      .execute();
    for (const row of rows) {
      found.push({
        packageKey: row.package_key,
        advisory: {
          id: row.id,
          aliases: decodeJson<string[]>(row.aliases, []),
          summary: row.summary,
          severity: decodeJson<OsvSeverity[]>(row.severity, []),
          databaseSeverity: row.database_severity,
          cweIds: decodeJson<string[]>(row.cwe_ids, []),
          references: decodeJson<OsvReference[]>(row.references, []),
        },
        affected: { ranges: decodeJson<OsvRange[]>(row.ranges, []), versions: decodeJson<string[]>(row.versions, []) },
      });
    }
  }
  return found;
}

export type OsvEcosystemRow = Selectable<OsvEcosystemsTable>;

/** What is known of each of these ecosystems' records (none: never imported nor synced). */
export async function osvEcosystems(db: Kysely<Database>, ecosystems?: string[]): Promise<Map<string, OsvEcosystemRow>> {
  if (ecosystems && !ecosystems.length) return new Map();
  let query = db.selectFrom('osv_ecosystems').selectAll();
  if (ecosystems) query = query.where('ecosystem', 'in', ecosystems);
  return new Map((await query.execute()).map((row) => [row.ecosystem, row]));
}

/** Records an ecosystem's records as current now, with whatever the source answered; unnamed fields keep their value. */
export async function markEcosystemRefreshed(
  db: Kysely<Database>,
  ecosystem: string,
  refreshedAt: string,
  changes: Partial<Omit<OsvEcosystemRow, 'ecosystem' | 'refreshed_at'>> = {},
): Promise<void> {
  await db
    .insertInto('osv_ecosystems')
    .values({
      ecosystem,
      refreshed_at: refreshedAt,
      export_etag: null,
      export_last_modified: null,
      index_etag: null,
      index_last_modified: null,
      newest_modified: null,
      ...changes,
    })
    .onConflict((oc) => oc.column('ecosystem').doUpdateSet({ refreshed_at: refreshedAt, ...changes }))
    .execute();
}

/** The newest `modified` time among stored records affecting a package of this ecosystem. */
export async function newestModifiedOf(db: Kysely<Database>, ecosystem: string): Promise<string | null> {
  const row = await db
    .selectFrom('osv_advisories')
    .innerJoin('osv_affected', 'osv_affected.advisory_id', 'osv_advisories.id')
    .where('osv_affected.ecosystem', '=', ecosystem)
    .select((eb) => eb.fn.max('osv_advisories.modified').as('newest'))
    .executeTakeFirst();
  return (row?.newest as string | null | undefined) ?? null;
}

/** The distinct ecosystems of the affected packages of these advisories. */
export async function ecosystemsOfAdvisories(db: Kysely<Database>, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const chunk of chunks(ids, KEYS_PER_QUERY)) {
    const rows = await db.selectFrom('osv_affected').select('ecosystem').distinct().where('advisory_id', 'in', chunk).execute();
    for (const row of rows) found.add(row.ecosystem);
  }
  return found;
}
