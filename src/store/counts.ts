import { sql, type Kysely, type RawBuilder } from 'kysely';
import { isPostgres } from './dialect.ts';
import type { Database } from './schema.ts';

// The counter tables of migrations 012 and 013: exact list totals without counting rows. Triggers write
// them; this module reads them, and on PostgreSQL folds the delta rows its triggers append.

/** A scope holding more counter rows than this gets its PostgreSQL deltas folded after a read. */
const FOLD_ABOVE_ROWS = 2000;

export interface Counted {
  /** How many rows the filters match. */
  total: number;
  /** Moves whenever any row of the scope is added, removed or changes a counted column. */
  version: number;
}

/**
 * Whether a JSON list or object of scan types in `column` (a finding's `detected_by` or `seen_by`, which the
 * findings counters are kept per) names `scanType`.
 */
export function detectedByMatches(column: string, scanType: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} like ${`%"${scanType.replace(/[\\%_]/g, '\\$&')}"%`} escape '\\'`;
}

/** A filter: the column equals the value, or with `byDetection` names it (detectedByMatches()). */
type Filter = [column: string, value: string | undefined, byDetection?: boolean];

function matching(filters: Filter[]): RawBuilder<boolean> {
  const present = filters.filter(([, value]) => value !== undefined && value !== '');
  if (!present.length) return sql<boolean>`1 = 1`;
  return sql<boolean>`${sql.join(
    present.map(([column, value, byDetection]) => (byDetection ? detectedByMatches(column, value!) : sql`${sql.ref(column)} = ${value}`)),
    sql` and `,
  )}`;
}

async function sumCounters(
  db: Kysely<Database>,
  table: 'finding_counts' | 'finding_event_counts' | 'finding_event_org_counts',
  scope: [column: string, value: string][],
  filters: Filter[],
  fold: () => Promise<void>,
  keysOf?: string,
): Promise<Counted & { keys: string[] }> {
  // With `keysOf`: also the values of that key column among the counters that count rows the filters match.
  const present = sql`${matching(filters)} and n <> 0`;
  const keys = !keysOf
    ? sql`null`
    : isPostgres(db)
      ? sql`(json_agg(distinct ${sql.ref(keysOf)}) filter (where ${present}))::text`
      : sql`json_group_array(distinct ${sql.ref(keysOf)}) filter (where ${present})`;
  const { rows } = await sql<{ total: number | null; version: number | null; counters: number; keys: string | null }>`
    select sum(case when ${matching(filters)} then n else 0 end) as total, sum(v) as version, count(*) as counters, ${keys} as keys
    from ${sql.table(table)} where ${matching(scope)}`.execute(db);
  const row = rows[0];
  if (Number(row?.counters ?? 0) > FOLD_ABOVE_ROWS && isPostgres(db)) void fold().catch(() => {});
  return { total: Number(row?.total ?? 0), version: Number(row?.version ?? 0), keys: JSON.parse(row?.keys ?? '[]') as string[] };
}

/**
 * How many of a unit's findings match the filters, from its counters (kept per `detected_by`, migration 023,
 * in the column `scan_type`). With a scan type, also `detectionLists`: the lists of scan types (`detected_by`
 * texts) naming it that findings matching the filters hold, in no particular order (on PostgreSQL one
 * whose findings just went may still be among them).
 */
export async function countFindings(
  db: Kysely<Database>,
  unitId: string,
  filters: { scanBatchId?: string; scanType?: string; severity?: string; status?: string },
): Promise<Counted & { detectionLists: string[] }> {
  const { keys, ...counted } = await sumCounters(
    db,
    'finding_counts',
    [['unit_id', unitId]],
    [['scan_batch_id', filters.scanBatchId], ['scan_type', filters.scanType, true], ['severity', filters.severity], ['status', filters.status]],
    () => foldFindingCounts(db, unitId),
    filters.scanType ? 'scan_type' : undefined,
  );
  const detectionLists = keys.filter((list) => (JSON.parse(list) as string[]).includes(filters.scanType!));
  return { ...counted, detectionLists };
}

/**
 * How many of an organization's events match the filters, from its counters: with a unit, that unit's
 * rows of the per-unit counters; without, the counters that leave the unit out (a few dozen rows where
 * the per-unit ones are thousands). The version then moves with the unit's events, or the organization's.
 */
export function countFindingEvents(
  db: Kysely<Database>,
  orgId: string,
  filters: { unitId?: string; scanType?: string; severity?: string; eventType?: string },
): Promise<Counted> {
  const kind: Filter[] = [['scan_type', filters.scanType], ['severity', filters.severity], ['event_type', filters.eventType]];
  if (filters.unitId) {
    return sumCounters(db, 'finding_event_counts', [['org_id', orgId], ['unit_id', filters.unitId]], kind, () => foldFindingEventCounts(db, orgId));
  }
  return sumCounters(db, 'finding_event_org_counts', [['org_id', orgId]], kind, () => foldFindingEventOrgCounts(db, orgId));
}

/**
 * One fold per scope at a time: readers that find many delta rows all ask for a fold, and folds of one
 * scope running side by side would only wait on each other's row locks. In this process a fold already
 * under way is joined; across processes a transaction-scoped advisory lock lets one through and the
 * others skip (the rows they saw are folded by that one, or by the next reader).
 */
const folding = new Map<string, Promise<void>>();

function foldOnce(db: Kysely<Database>, scope: string, statement: RawBuilder<unknown>): Promise<void> {
  if (!isPostgres(db)) return Promise.resolve();
  let running = folding.get(scope);
  if (!running) {
    running = db
      .transaction()
      .execute(async (trx) => {
        const { rows } = await sql<{ got: boolean }>`select pg_try_advisory_xact_lock(hashtext(${scope})) as got`.execute(trx);
        if (rows[0]?.got) await statement.execute(trx);
      })
      .finally(() => folding.delete(scope));
    folding.set(scope, running);
  }
  return running;
}

/**
 * Folds a unit's PostgreSQL delta rows into one row per key, in one statement: a concurrent reader sees
 * the rows before or after it, with the same sums. SQLite keeps one row per key already.
 */
export function foldFindingCounts(db: Kysely<Database>, unitId: string): Promise<void> {
  return foldOnce(db, `finding_counts:${unitId}`, sql`with folded as (delete from finding_counts where unit_id = ${unitId} returning *)
    insert into finding_counts (unit_id, scan_batch_id, scan_type, severity, status, n, v)
    select unit_id, scan_batch_id, scan_type, severity, status, sum(n), sum(v) from folded
    group by unit_id, scan_batch_id, scan_type, severity, status`);
}

/** The same for an organization's event counters. */
export function foldFindingEventCounts(db: Kysely<Database>, orgId: string): Promise<void> {
  return foldOnce(db, `finding_event_counts:${orgId}`, sql`with folded as (delete from finding_event_counts where org_id = ${orgId} returning *)
    insert into finding_event_counts (org_id, unit_id, scan_type, severity, event_type, n, v)
    select org_id, unit_id, scan_type, severity, event_type, sum(n), sum(v) from folded
    group by org_id, unit_id, scan_type, severity, event_type`);
}

/** The same for an organization's event counters without the unit. */
export function foldFindingEventOrgCounts(db: Kysely<Database>, orgId: string): Promise<void> {
  return foldOnce(db, `finding_event_org_counts:${orgId}`, sql`with folded as (delete from finding_event_org_counts where org_id = ${orgId} returning *)
    insert into finding_event_org_counts (org_id, scan_type, severity, event_type, n, v)
    select org_id, scan_type, severity, event_type, sum(n), sum(v) from folded
    group by org_id, scan_type, severity, event_type`);
}
