import type { Kysely } from 'kysely';
import type { PageRequest } from '../core/pagination.ts';
import { countFindingEvents } from './counts.ts';
import { seekNewestFirst } from './pagination.ts';
import type { Database, FindingEventRow } from './schema.ts';

// All SQL on `finding_events`, an append-only log: rows are inserted and read, never changed.

export async function insertFindingEvent(db: Kysely<Database>, row: FindingEventRow): Promise<void> {
  await db.insertInto('finding_events').values(row).execute();
}

/** Rows per multi-row INSERT, well under SQLite's limit of bound values per statement. */
const EVENTS_PER_INSERT = 1000;

/** Appends many events with one multi-row INSERT per thousand rows. */
export async function insertFindingEvents(db: Kysely<Database>, rows: readonly FindingEventRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += EVENTS_PER_INSERT) {
    await db.insertInto('finding_events').values(rows.slice(i, i + EVENTS_PER_INSERT)).execute();
  }
}

export interface FindingEventQuery extends PageRequest {
  unitId?: string;
  findingId?: string;
  scanType?: string;
  severity?: string;
  eventType?: string;
  start?: string;
  end?: string;
}

/** An organization's events, newest first. */
export async function listFindingEvents(
  db: Kysely<Database>,
  orgId: string,
  filters: FindingEventQuery,
): Promise<{ items: FindingEventRow[]; total: number }> {
  const counted = {
    unitId: filters.unitId || undefined,
    scanType: filters.scanType || undefined,
    severity: filters.severity?.toLowerCase() || undefined,
    eventType: filters.eventType || undefined,
  };
  let query = db.selectFrom('finding_events').where('org_id', '=', orgId);
  if (counted.unitId) query = query.where('unit_id', '=', counted.unitId);
  if (filters.findingId) query = query.where('finding_id', '=', filters.findingId);
  if (counted.scanType) query = query.where('scan_type', '=', counted.scanType);
  if (counted.severity) query = query.where('severity', '=', counted.severity);
  if (counted.eventType) query = query.where('event_type', '=', counted.eventType);
  if (filters.start) query = query.where('event_timestamp', '>=', filters.start);
  if (filters.end) query = query.where('event_timestamp', '<=', filters.end);
  // The counters know every filter but a finding and a time range; those (one finding's few events, or
  // a window of time read from its index) are counted row by row.
  const uncounted = Boolean(filters.findingId || filters.start || filters.end);
  const [counters, direct] = await Promise.all([
    countFindingEvents(db, orgId, counted),
    uncounted ? query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow() : undefined,
  ]);
  const total = direct ? Number(direct.n) : counters.total;
  const key = `events|${orgId}|${JSON.stringify([counted, filters.findingId, filters.start, filters.end])}`;
  const items = total > filters.skip ? await seekNewestFirst(db, 'finding_events', query, filters, 'event_timestamp', { key, version: counters.version }) : [];
  return { items, total };
}
