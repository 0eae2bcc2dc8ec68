import type { Kysely } from 'kysely';
import { nowIso } from '../ids.ts';
import type { Database, FindingRow } from '../store/schema.ts';
import { notFound } from './errors.ts';
import { recordEvent } from './finding-events.ts';
import { newestFirst } from '../store/pagination.ts';
import type { PageRequest } from './pagination.ts';
import type { Principal } from './principal.ts';
import type { Unit } from './units.ts';

export const FINDING_STATUSES = ['open', 'resolved', 'ignored', 'false_positive', 'needs_manual_review'] as const;
export type FindingStatus = (typeof FINDING_STATUSES)[number];

export interface FindingFilters extends PageRequest {
  scanBatchId?: string;
  severity?: string;
  status?: string;
  scanType?: string;
}

export async function listFindings(
  db: Kysely<Database>,
  unit: Unit,
  filters: FindingFilters,
): Promise<{ items: FindingRow[]; total: number }> {
  let query = db.selectFrom('findings').where('unit_id', '=', unit.id);
  if (filters.scanBatchId) query = query.where('scan_batch_id', '=', filters.scanBatchId);
  if (filters.severity) query = query.where('severity', '=', filters.severity.toLowerCase());
  if (filters.status) query = query.where('status', '=', filters.status.toLowerCase());
  if (filters.scanType) query = query.where('scan_type', '=', filters.scanType);
  const { rows, total } = await newestFirst(query, filters);
  return { items: rows, total };
}

export async function getFinding(db: Kysely<Database>, unit: Unit, findingId: string): Promise<FindingRow> {
  const finding = await db
    .selectFrom('findings')
    .selectAll()
    .where('id', '=', findingId)
    .where('unit_id', '=', unit.id)
    .executeTakeFirst();
  if (!finding) throw notFound('Finding');
  return finding;
}

/** A caller's triage decision. A real change writes a `status_changed` event naming the key as actor. */
export async function setFindingStatus(
  db: Kysely<Database>,
  principal: Principal,
  unit: Unit,
  findingId: string,
  status: FindingStatus,
): Promise<FindingRow> {
  return db.transaction().execute(async (trx) => {
    const finding = await getFinding(trx, unit, findingId);
    if (finding.status === status) return finding;
    const now = nowIso();
    const resolvedAt = status === 'resolved' ? now : status === 'open' ? null : finding.resolved_at;
    await trx
      .updateTable('findings')
      .set({ status, resolved_at: resolvedAt, updated_at: now })
      .where('id', '=', finding.id)
      .execute();
    const updated: FindingRow = { ...finding, status, resolved_at: resolvedAt, updated_at: now };
    await recordEvent(trx, {
      finding: updated,
      eventType: 'status_changed',
      previousStatus: finding.status,
      newStatus: status,
      actorKeyId: principal.keyId,
      at: now,
    });
    return updated;
  });
}
