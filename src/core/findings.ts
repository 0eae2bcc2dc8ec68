import type { Kysely } from 'kysely';
import { nowIso } from '../ids.ts';
import { findFinding, findingTwins, listFindings as queryFindings, writeFindingState, type FindingQuery } from '../store/findings.ts';
import type { Database, FindingRow } from '../store/schema.ts';
import { BodyValueError, notFound } from './errors.ts';
import { FINDING_STATUSES, findingStatus, stateOf, type FindingStatus } from './states/finding-state.ts';
import { recordEvent, type EventInput } from './finding-events.ts';
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
 * reopened by hand (422). A change of the status writes a `status_changed` event naming the key as actor
 * and carrying the caller's comment. The decision is carried to the finding's twins in the organization's
 * other units (carryDecision()).
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
    if (findingStatus({ ...before, triage: status }) !== status) {
      // Only scans decide whether the code is still there: a decision the verdict hides (reopening what no scan sees) is refused.
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
    await recordDecision(trx, {
      finding: updated,
      eventType: 'status_changed',
      previousStatus: finding.status,
      newStatus: updated.status,
      actorKeyId: principal.keyId,
      comment,
      at: now,
    });
    await carryDecision(trx, principal, updated, comment, now);
    return updated;
  });
}

/** A person's change of a status: `status_changed`, and `resolved_manual` beside it when they resolved it. */
async function recordDecision(trx: Kysely<Database>, event: EventInput): Promise<void> {
  await recordEvent(trx, event);
  if (event.newStatus === 'resolved') await recordEvent(trx, { ...event, eventType: 'resolved_manual' });
}

/**
 * The same decision on the same problem where another unit holds the same source repository at the same
 * commit (a repository and an application that includes it: findingTwins()), each change with its own
 * `status_changed` event whose metadata names the finding it came from. A twin no scan sees any more is
 * not reopened by it, as by hand.
 */
async function carryDecision(trx: Kysely<Database>, principal: Principal, decided: FindingRow, comment: string | null, at: string): Promise<void> {
  for (const twin of await findingTwins(trx, decided)) {
    const before = stateOf(twin);
    const to = { verdict: before.verdict, triage: decided.triage };
    if (findingStatus(to) !== decided.status) continue;
    const written = await writeFindingState(trx, { ...twin, from: before }, to, at);
    if (!written || written.status === twin.status) continue;
    await recordDecision(trx, {
      finding: { ...twin, ...written },
      eventType: 'status_changed',
      previousStatus: twin.status,
      newStatus: written.status,
      actorKeyId: principal.keyId,
      comment,
      metadata: { carried_from: { unit_id: decided.unit_id, finding_id: decided.id } },
      at,
    });
  }
}
