import type { Kysely } from 'kysely';
import { newId, nowIso } from '../ids.ts';
import type { Database, FindingEventRow, FindingRow } from '../store/schema.ts';
import { newestFirst } from '../store/pagination.ts';
import type { PageRequest } from './pagination.ts';

export const EVENT_TYPES = [
  'detected',
  'status_changed',
  'resolved_auto',
  'reopened',
  'fix_created',
  'fix_started',
  'fix_completed',
  'fix_failed',
  'fix_cancelled',
  'fix_pr_created',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface EventInput {
  finding: FindingRow;
  eventType: EventType;
  previousStatus?: string | null;
  newStatus?: string | null;
  actorKeyId?: string | null;
  scanId?: string | null;
  metadata?: Record<string, unknown>;
  at?: string;
}

/** Appends one lifecycle event; call it inside the transaction that changed the finding. */
export async function recordEvent(db: Kysely<Database>, input: EventInput): Promise<FindingEventRow> {
  const at = input.at ?? nowIso();
  const row: FindingEventRow = {
    id: newId(),
    org_id: input.finding.org_id,
    unit_id: input.finding.unit_id,
    finding_id: input.finding.id,
    scan_id: input.scanId ?? input.finding.scan_batch_id,
    scan_type: input.finding.scan_type,
    event_type: input.eventType,
    previous_status: input.previousStatus ?? null,
    new_status: input.newStatus ?? null,
    severity: input.finding.severity,
    check_id: input.finding.check_id,
    file_path: input.finding.file_path,
    actor_user_id: input.actorKeyId ?? null,
    metadata: JSON.stringify(input.metadata ?? {}),
    event_timestamp: at,
    created_at: at,
  };
  await db.insertInto('finding_events').values(row).execute();
  return row;
}

export interface EventFilters extends PageRequest {
  unitId?: string;
  findingId?: string;
  scanType?: string;
  severity?: string;
  eventType?: string;
  start?: string;
  end?: string;
}

/** The organization-wide feed, newest first. */
export async function listEvents(
  db: Kysely<Database>,
  orgId: string,
  filters: EventFilters,
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
