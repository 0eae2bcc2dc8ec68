import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from './schema.ts';

// The counter tables of migration 012: exact list totals without counting rows. Triggers write them;
// this module reads them, and on PostgreSQL folds the delta rows its triggers append.

const isPostgres = (db: Kysely<Database>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** A scope holding more counter rows than this gets its PostgreSQL deltas folded after a read. */
const FOLD_ABOVE_ROWS = 2000;

export interface Counted {
  /** How many rows the filters match. */
  total: number;
  /** Moves whenever any row of the scope is added, removed or changes a counted column. */
  version: number;
}

function matching(filters: [column: string, value: string | undefined][]): RawBuilder<boolean> {
  const present = filters.filter(([, value]) => value !== undefined && value !== '');
  if (!present.length) return sql<boolean>`1 = 1`;
  return sql<boolean>`${sql.join(present.map(([column, value]) => sql`${sql.ref(column)} = ${value}`), sql` and `)}`;
}

async function sumCounters(
  db: Kysely<Database>,
  table: 'finding_counts' | 'finding_event_counts',
  scope: [column: string, value: string],
  filters: [column: string, value: string | undefined][],
  fold: () => Promise<void>,
): Promise<Counted> {
  const { rows } = await sql<{ total: number | null; version: number | null; counters: number }>`
    select sum(case when ${matching(filters)} then n else 0 end) as total, sum(v) as version, count(*) as counters
    from ${sql.table(table)} where ${sql.ref(scope[0])} = ${scope[1]}`.execute(db);
  const row = rows[0];
  if (Number(row?.counters ?? 0) > FOLD_ABOVE_ROWS && isPostgres(db)) void fold().catch(() => {});
  return { total: Number(row?.total ?? 0), version: Number(row?.version ?? 0) };
}

/** How many of a unit's findings match the filters, from its counters. */
export function countFindings(
  db: Kysely<Database>,
  unitId: string,
  filters: { scanBatchId?: string; scanType?: string; severity?: string; status?: string },
): Promise<Counted> {
  return sumCounters(
    db,
    'finding_counts',
    ['unit_id', unitId],
    [['scan_batch_id', filters.scanBatchId], ['scan_type', filters.scanType], ['severity', filters.severity], ['status', filters.status]],
    () => foldFindingCounts(db, unitId),
  );
}

/** How many of an organization's events match the filters, from its counters. */
export function countFindingEvents(
  db: Kysely<Database>,
  orgId: string,
  filters: { unitId?: string; scanType?: string; severity?: string; eventType?: string },
): Promise<Counted> {
  return sumCounters(
    db,
    'finding_event_counts',
    ['org_id', orgId],
    [['unit_id', filters.unitId], ['scan_type', filters.scanType], ['severity', filters.severity], ['event_type', filters.eventType]],
    () => foldFindingEventCounts(db, orgId),
  );
}

/**
 * Folds a unit's PostgreSQL delta rows into one row per key, in one statement: a concurrent reader sees
 * the rows before or after it, with the same sums. SQLite keeps one row per key already.
 */
export async function foldFindingCounts(db: Kysely<Database>, unitId: string): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`with folded as (delete from finding_counts where unit_id = ${unitId} returning *)
    insert into finding_counts (unit_id, scan_batch_id, scan_type, severity, status, n, v)
    select unit_id, scan_batch_id, scan_type, severity, status, sum(n), sum(v) from folded
    group by unit_id, scan_batch_id, scan_type, severity, status`.execute(db);
}

/** The same for an organization's event counters. */
export async function foldFindingEventCounts(db: Kysely<Database>, orgId: string): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`with folded as (delete from finding_event_counts where org_id = ${orgId} returning *)
    insert into finding_event_counts (org_id, unit_id, scan_type, severity, event_type, n, v)
    select org_id, unit_id, scan_type, severity, event_type, sum(n), sum(v) from folded
    group by org_id, unit_id, scan_type, severity, event_type`.execute(db);
}
