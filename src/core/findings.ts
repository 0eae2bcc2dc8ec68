import type { Kysely } from 'kysely';
import { nowIso } from '../ids.ts';
import { findFinding, listFindings as queryFindings, writeFindingState, type FindingQuery } from '../store/findings.ts';
import type { Database, FindingRow } from '../store/schema.ts';
import { BodyValueError, notFound } from './errors.ts';
import { FINDING_STATUSES, findingStatus, stateOf, type FindingStatus } from './states/finding-state.ts';
import { recordEvent } from './finding-events.ts';
import type { Principal } from './principal.ts';
import type { Unit } from './units.ts';

export { FINDING_STATUSES, type FindingStatus };
export { detectedByOf } from '../store/findings.ts';

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
 * A caller's triage decision: the status asked for is the decision (the five statuses are also the five
 * decisions), and the scan verdict stays as the scans left it, so a finding no scan sees any more cannot be
 * reopened by hand (422). A change of the status writes a
 * `status_changed` event naming the key as actor and carrying the caller's comment.
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
    const before = stateOf(finding);
    if (before.verdict === 'gone' && findingStatus({ verdict: 'gone', triage: status }) !== status) {
      // Only scans decide whether the code is still there: reopening by hand would show a status no scan backs.
      throw new BodyValueError(
        ['body', 'status'],
        `Value error, the latest scan no longer detects this finding, so it stays resolved until a scan sees it again; it can still be ignored or marked false_positive`,
        status,
      );
    }
    const written = await writeFindingState(trx, { ...finding, from: before }, { verdict: before.verdict, triage: status }, now);
    // Another request changed it first: what it holds now is the answer.
    if (!written) return getFinding(trx, unit, findingId);
    const updated: FindingRow = { ...finding, ...written };
    if (updated.status === finding.status) return updated;
    await recordEvent(trx, {
      finding: updated,
      eventType: 'status_changed',
      previousStatus: finding.status,
      newStatus: updated.status,
      actorKeyId: principal.keyId,
      comment,
      at: now,
    });
    return updated;
  });
}
