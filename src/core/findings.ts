import type { Kysely } from 'kysely';
import { nowIso } from '../ids.ts';
import { findFinding, listFindings as queryFindings, writeFindingStatus, type FindingQuery } from '../store/findings.ts';
import type { Database, FindingRow } from '../store/schema.ts';
import { notFound } from './errors.ts';
import { FINDING_STATUS, type FindingStatus } from './states/finding-status.ts';
import { recordEvent } from './finding-events.ts';
import type { Principal } from './principal.ts';
import type { Unit } from './units.ts';

export const FINDING_STATUSES = FINDING_STATUS.statuses;
export type { FindingStatus };

/** Longest reason a caller may give with a triage decision. */
export const TRIAGE_COMMENT_MAX_LENGTH = 2000;

export type FindingFilters = FindingQuery;

export function listFindings(db: Kysely<Database>, unit: Unit, filters: FindingFilters): Promise<{ items: FindingRow[]; total: number }> {
  return queryFindings(db, unit.id, filters);
}

export async function getFinding(db: Kysely<Database>, unit: Unit, findingId: string): Promise<FindingRow> {
  const finding = await findFinding(db, unit.id, findingId);
  if (!finding) throw notFound('Finding');
  return finding;
}

/**
 * A caller's triage decision. A real change writes a `status_changed` event naming the key as actor and
 * carrying the caller's comment.
 */
export async function setFindingStatus(
  db: Kysely<Database>,
  principal: Principal,
  unit: Unit,
  findingId: string,
  status: FindingStatus,
  comment: string | null = null,
): Promise<FindingRow> {
  return db.transaction().execute(async (trx) => {
    const finding = await getFinding(trx, unit, findingId);
    if (finding.status === status) return finding;
    const now = nowIso();
    const resolvedAt = status === 'resolved' ? now : status === 'open' ? null : finding.resolved_at;
    const changed = await writeFindingStatus(trx, finding.id, { from: finding.status, to: status, resolvedAt, at: now });
    // Another request changed it first: what it holds now is the answer.
    if (!changed) return getFinding(trx, unit, findingId);
    const updated: FindingRow = { ...finding, status, resolved_at: resolvedAt, updated_at: now };
    await recordEvent(trx, {
      finding: updated,
      eventType: 'status_changed',
      previousStatus: finding.status,
      newStatus: status,
      actorKeyId: principal.keyId,
      comment,
      at: now,
    });
    return updated;
  });
}
