import type { Kysely } from 'kysely';
import { newId, nowIso } from '../ids.ts';
import { insertFindingEvent, insertFindingEvents, listFindingEvents, type FindingEventQuery } from '../store/finding-events.ts';
import { decodeJson, encodeJson } from '../store/json-columns.ts';
import type { Database, FindingEventRow, FindingRow } from '../store/schema.ts';
import { maskSecretsIn } from '../scanning/secrets/mask-text.ts';

/**
 * The published vocabulary, in its order. A person's decision writes `status_changed` (every change of a
 * status, as clients following changes expect) and, when the decision is `resolved`, `resolved_manual` too,
 * so a client following resolutions reads one kind per cause: `resolved_auto` (a scan no longer sees it),
 * `resolved_manual` (a person), `resolved_pr_merged` (its fix pull request merged), `resolved_pr_linked` (a
 * merged pull request that names it). `fix_pr_updated` says what changed on a fix pull request.
 */
export const EVENT_TYPES = [
  'detected',
  'resolved_auto',
  'resolved_manual',
  'resolved_pr_merged',
  'resolved_pr_linked',
  'reopened',
  'status_changed',
  'fix_created',
  'fix_started',
  'fix_completed',
  'fix_failed',
  'fix_cancelled',
  'fix_pr_created',
  'fix_pr_updated',
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
  /** Why a person made the change, as they wrote it. */
  comment?: string | null;
  at?: string;
}

/** The row of one lifecycle event, not yet stored. */
export function eventRow(input: EventInput): FindingEventRow {
  const at = input.at ?? nowIso();
  return {
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
    // A caller's comment or a run's note may quote a credential; the feed keeps it masked.
    metadata: maskSecretsIn(encodeJson(input.metadata ?? {})),
    comment: input.comment == null ? null : maskSecretsIn(input.comment),
    event_timestamp: at,
    created_at: at,
  };
}

/** Appends one lifecycle event; call it inside the transaction that changed the finding. */
export async function recordEvent(db: Kysely<Database>, input: EventInput): Promise<FindingEventRow> {
  const row = eventRow(input);
  await insertFindingEvent(db, row);
  return row;
}

/** Appends many lifecycle events with multi-row inserts; call it inside the transaction that changed the findings. */
export async function recordEvents(db: Kysely<Database>, inputs: EventInput[]): Promise<void> {
  await insertFindingEvents(db, inputs.map(eventRow));
}

export type EventFilters = FindingEventQuery;

/** The organization-wide feed, newest first. */
export function listEvents(db: Kysely<Database>, orgId: string, filters: EventFilters): Promise<{ items: FindingEventRow[]; total: number }> {
  return listFindingEvents(db, orgId, filters);
}

/** An event as the feed serves it and outbound webhooks send it (their `data`). */
export function eventView(e: FindingEventRow) {
  return {
    id: e.id,
    organization_id: e.org_id,
    repository_id: e.unit_id,
    finding_id: e.finding_id,
    scan_id: e.scan_id,
    scan_type: e.scan_type,
    event_type: e.event_type,
    previous_status: e.previous_status,
    new_status: e.new_status,
    severity: e.severity,
    check_id: e.check_id,
    file_path: e.file_path,
    actor_user_id: e.actor_user_id,
    metadata: decodeJson<Record<string, unknown>>(e.metadata, {}),
    comment: e.comment,
    event_timestamp: e.event_timestamp,
    created_at: e.created_at,
  };
}
