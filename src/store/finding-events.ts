import type { Kysely } from 'kysely';
import type { PageRequest } from '../core/pagination.ts';
import { newestFirst } from './pagination.ts';
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
  let query = db.selectFrom('finding_events').where('org_id', '=', orgId);
  if (filters.unitId) query = query.where('unit_id', '=', filters.unitId);
  if (filters.findingId) query = query.where('finding_id', '=', filters.findingId);
  if (filters.scanType) query = query.where('scan_type', '=', filters.scanType);
  if (filters.severity) query = query.where('severity', '=', filters.severity.toLowerCase());
  if (filters.eventType) query = query.where('event_type', '=', filters.eventType);
  if (filters.start) query = query.where('event_timestamp', '>=', filters.start);
  if (filters.end) query = query.where('event_timestamp', '<=', filters.end);
  const { rows, total } = await newestFirst(query, filters, 'event_timestamp');
  return { items: rows, total };
}
