import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { RawFinding } from '../scanning/engine.ts';
import { scanTypeNamed } from '../scanning/scan-types/index.ts';
import { newId, nowIso } from '../ids.ts';
import {
  decidedTwinFindings,
  detectedByOf,
  findingsNotSeenBy,
  findingsOfSource,
  insertFindings,
  seenByOf,
  takenKeys,
  twinKey,
  updateFindingDetection,
  updateFindingSightings,
  writeFindingState,
  type FindingDetection,
  type NewFinding,
} from '../store/findings.ts';
import { foldFindingCounts, foldFindingEventCounts, foldFindingEventOrgCounts } from '../store/counts.ts';
import { encodeJson } from '../store/json-columns.ts';
import { markScanAssessed } from '../store/scan-batches.ts';
import { lockSourceScanHead, setSourceScanHead, type SourceScanHead } from '../store/source-scan-heads.ts';
import type { Database, FindingRow, ScanBatchRow, ScanRow } from '../store/schema.ts';
import type { ScanType } from '../scanning/scan-type-names.ts';
import { matchFindings, occurrenceIndexes, type DetectedIdentity, type StoredIdentity } from './finding-identity.ts';
import { recordEvents, type EventInput } from './finding-events.ts';
import { SCAN_VERDICT, afterScan, findingStatus, stateOf } from './states/finding-state.ts';

const detectedIdentity = (raw: RawFinding): DetectedIdentity => ({
  checkId: raw.checkId,
  filePath: raw.filePath,
  matchHash: raw.matchHash ?? raw.fingerprint,
  fingerprint: raw.fingerprint,
  anchor: raw.anchor ?? null,
  startLine: raw.startLine,
  snippet: raw.snippet ?? null,
});

const storedIdentity = (row: FindingRow): StoredIdentity => ({
  id: row.id,
  checkId: row.check_id,
  filePath: row.file_path,
  matchHash: row.match_hash,
  fingerprint: row.fingerprint,
  anchor: row.anchor,
  startLine: row.start_line,
  snippet: row.snippet,
});

/**
 * Scans of one source repository and scan type are ordered by when they started (then by id): a scan
 * restarted after a crash keeps its place. `started_at` is set when a scan is first cloned; a scan row
 * not started yet (only when called outside the batch runner) counts from its creation.
 */
function orderOf(scan: ScanRow): { scanId: string; scanStartedAt: string } {
  return { scanId: scan.id, scanStartedAt: scan.started_at ?? scan.created_at };
}

/** Whether the head (the newest scan ingested) started after `scan`: then `scan` is out of date. */
function headIsNewer(head: SourceScanHead, scan: ScanRow): boolean {
  if (head.scanId === null || head.scanId === scan.id) return false;
  const mine = orderOf(scan);
  const theirs = head.scanStartedAt ?? '';
  return theirs > mine.scanStartedAt || (theirs === mine.scanStartedAt && head.scanId > mine.scanId);
}

/**
 * The head row that stands for a source repository's findings of every scan type: ingest and resolution
 * lock it before their own type's head, so scans of two types that find the same problem in one source
 * take turns, and the second finds the first's finding instead of storing the problem twice.
 */
const ANY_SCAN_TYPE = '*';

async function lockSource(trx: Kysely<Database>, sourceRepoId: string, scanType: string, at: string): Promise<SourceScanHead> {
  await lockSourceScanHead(trx, sourceRepoId, ANY_SCAN_TYPE, at);
  return lockSourceScanHead(trx, sourceRepoId, scanType, at);
}

/** A finding's sightings once a scan of `scanType` (`scanId`) sees it, or null when they do not change. */
function sightedBy(row: FindingRow, scanType: ScanType, scanId: string): Pick<FindingRow, 'detected_by' | 'seen_by'> | null {
  const detectedBy = detectedByOf(row);
  const seenBy = seenByOf(row);
  if (detectedBy.includes(scanType) && seenBy[scanType] === scanId) return null;
  return {
    detected_by: JSON.stringify(detectedBy.includes(scanType) ? detectedBy : [...detectedBy, scanType]),
    seen_by: JSON.stringify({ ...seenBy, [scanType]: scanId }),
  };
}

/**
 * Whether a scan of `scanType` seeing a finding moves its place and what it says: when that type found it
 * first, or the type that did no longer sees it. Otherwise the finding stays as its first type reports it
 * (and in that type's batch results); the other type only adds its sighting.
 */
const describes = (row: FindingRow, scanType: ScanType): boolean => row.scan_type === scanType || !(row.scan_type in seenByOf(row));

/**
 * A new finding's identity key (stored as `fingerprint`, unique per unit and the scan type that first found it): its source
 * repository, the engine's fingerprint and which copy of that match in the file it is. Fixed for the
 * finding's life, wherever the code later moves. `salt` separates it from a key an older finding already
 * holds (one whose code has since changed into this match).
 */
function identityKey(sourceRepoId: string, fingerprint: string, occurrence: number, salt = ''): string {
  return crypto.createHash('sha256').update(`${sourceRepoId}\0${fingerprint}\0${occurrence}\0${salt}`).digest('hex');
}

/**
 * Stores what one per-repo scan found. Each detection is matched to a finding of the same source repo,
 * whichever scan type found it (src/core/finding-identity.ts; `renames` follows files git saw renamed
 * since that source's previous scan), so a problem two scan types find is one finding: a known one gets
 * this scan's sighting (`detected_by`, `seen_by`), `last_detected_at` and the verdict `present`
 * (afterScan() in states/finding-state.ts), and its new place when describes() says so; one that was
 * resolved reopens (`reopened`) while every other decision stands; an unknown one becomes an open finding
 * (`detected`) of this scan type, which takes the decision a person made on the same code in another unit
 * of the organization (decidedTwinFindings(): a `status_changed` event says where it came from).
 * Idempotent: running it twice for a scan changes nothing more.
 *
 * Ingests of one source repository run one at a time whatever their scan type (lockSource()), and those
 * of one scan type in scan order: a scan that started before the newest one of its type already ingested
 * changes no finding, since what it saw is older than what is stored (the count of what it found is still
 * returned).
 */
export async function ingestScanFindings(
  db: Kysely<Database>,
  batch: ScanBatchRow,
  scan: ScanRow,
  found: RawFinding[],
  renames: ReadonlyMap<string, string> = new Map(),
): Promise<number> {
  const scanType = scanTypeNamed(batch.scan_type).name;
  const detected = found.map(detectedIdentity);
  const occurrences = occurrenceIndexes(detected);
  await db.transaction().execute(async (trx) => {
    const now = nowIso();
    const head = await lockSource(trx, scan.source_repo_id, batch.scan_type, now);
    if (headIsNewer(head, scan)) return;
    await setSourceScanHead(trx, scan.source_repo_id, batch.scan_type, orderOf(scan), now);
    const stored = await findingsOfSource(trx, batch.unit_id, scan.source_repo_id);
    const known = new Map(stored.map((row) => [row.id, row]));
    const matches = matchFindings(stored.map(storedIdentity), detected, renames);
    const newKeys = found.map((raw, i) => (matches[i] ? null : identityKey(scan.source_repo_id, raw.fingerprint, occurrences[i])));
    const taken = await takenKeys(trx, batch.unit_id, scanType, newKeys.filter((k): k is string => k !== null));
    const decided = newKeys.some((k) => k !== null)
      ? new Map((await decidedTwinFindings(trx, { orgId: batch.org_id, unitId: batch.unit_id, sourceRepoId: scan.source_repo_id })).map((f) => [twinKey(f), f]))
      : new Map<string, FindingRow>();
    // New findings and their events are written together at the end, a few hundred rows a statement.
    const created: NewFinding[] = [];
    const events: EventInput[] = [];

    for (const [i, raw] of found.entries()) {
      const detection: FindingDetection = {
        source_repo_id: scan.source_repo_id,
        scan_batch_id: batch.id,
        scan_id: scan.id,
        check_id: raw.checkId,
        severity: raw.severity,
        category: raw.category,
        title: raw.title,
        message: raw.message,
        file_path: raw.filePath,
        start_line: raw.startLine,
        end_line: raw.endLine,
        cwe: encodeJson(raw.cwe),
        owasp: encodeJson(raw.owasp),
        references: encodeJson(raw.references),
        commit_sha: raw.commitSha ?? scan.commit_sha,
        metadata: encodeJson(raw.metadata),
        source_url: raw.sourceUrl ?? null,
        cvss_base_score: raw.cvss?.baseScore ?? null,
        cvss_severity: raw.cvss?.severity ?? null,
        cvss_vector: raw.cvss?.vector ?? null,
        match_hash: detected[i].matchHash,
        anchor: detected[i].anchor,
        snippet: detected[i].snippet,
        last_detected_at: now,
        updated_at: now,
      };
      const previous = matches[i] ? known.get(matches[i]!) : undefined;
      if (!previous) {
        const id = newId();
        let key = newKeys[i]!;
        if (taken.has(key)) key = identityKey(scan.source_repo_id, raw.fingerprint, occurrences[i], id);
        taken.add(key);
        const row: NewFinding & Pick<FindingRow, 'detected_by' | 'seen_by'> = {
          id,
          org_id: batch.org_id,
          unit_id: batch.unit_id,
          scan_type: scanType,
          fingerprint: key,
          detected_by: JSON.stringify([scanType]),
          seen_by: JSON.stringify({ [scanType]: scan.id }),
          scan_verdict: 'present',
          triage: 'open',
          first_detected_at: now,
          resolved_at: null,
          created_at: now,
          ...detection,
        };
        created.push(row);
        const twin = row.match_hash && row.commit_sha ? decided.get(twinKey(row)) : undefined;
        const opened = findingStatus(stateOf(row));
        events.push({ finding: { ...row, status: opened }, eventType: 'detected', newStatus: opened, scanId: batch.id, at: now });
        // A decision a person made on the same code in another unit holds here too (a hand resolution excepted: this scan sees it).
        if (twin && twin.triage !== 'resolved') {
          row.triage = twin.triage;
          const status = findingStatus(stateOf(row));
          events.push({
            finding: { ...row, status },
            eventType: 'status_changed',
            previousStatus: opened,
            newStatus: status,
            scanId: batch.id,
            metadata: { carried_from: { unit_id: twin.unit_id, finding_id: twin.id } },
            at: now,
          });
        }
        continue;
      }
      const seen = describes(previous, scanType) ? detection : { last_detected_at: now, updated_at: now };
      const sightings = sightedBy(previous, scanType, scan.id);
      await updateFindingDetection(trx, previous.id, { ...seen, ...sightings });
      const before = stateOf(previous);
      const written = await writeFindingState(trx, { ...previous, ...seen, from: before }, afterScan(before, true), now);
      if (!written || written.status === previous.status) continue;
      events.push({
        finding: { ...previous, ...seen, ...sightings, ...written },
        eventType: 'reopened',
        previousStatus: previous.status,
        newStatus: written.status,
        scanId: batch.id,
        at: now,
      });
    }
    await insertFindings(trx, created);
    await recordEvents(trx, events);
  });
  await foldCounters(db, batch);
  return found.length;
}

/**
 * After a completed scan, what it no longer sees in that source repo loses this scan type's sighting: only
 * findings an older scan of the type saw qualify. A finding no scan type sees any more is fixed: it gets
 * the verdict `gone`, and one whose status that turns to resolved gets a `resolved_auto` event; one that
 * another type still sees stays present. This runs only while this scan is the newest one ingested for
 * its source repo and type (under the same locks as ingest), so every finding it compares with was seen
 * by an older scan; a scan overtaken by a newer one resolves nothing and leaves that to the newer scan.
 */
export async function resolveUnseenFindings(db: Kysely<Database>, batch: ScanBatchRow, scan: ScanRow): Promise<number> {
  const resolved = await db.transaction().execute(async (trx) => {
    const head = await lockSource(trx, scan.source_repo_id, batch.scan_type, nowIso());
    if (head.scanId !== null && head.scanId !== scan.id) {
      await markScanAssessed(trx, scan.id);
      return 0;
    }
    const scanType = scanTypeNamed(batch.scan_type).name;
    const unseen = await findingsNotSeenBy(
      trx,
      { unitId: batch.unit_id, scanType, sourceRepoId: scan.source_repo_id, scanId: scan.id },
      SCAN_VERDICT.sourcesOf('gone'),
    );
    const now = nowIso();
    let resolved = 0;
    const events: EventInput[] = [];
    for (const finding of unseen) {
      const { [scanType]: _mine, ...stillSeen } = seenByOf(finding);
      await updateFindingSightings(trx, finding.id, { detected_by: finding.detected_by, seen_by: JSON.stringify(stillSeen) });
      if (Object.keys(stillSeen).length) continue;
      const before = stateOf(finding);
      const written = await writeFindingState(trx, { ...finding, from: before }, afterScan(before, false), now);
      if (!written || written.status === finding.status) continue;
      resolved++;
      events.push({
        finding: { ...finding, ...written },
        eventType: 'resolved_auto',
        previousStatus: finding.status,
        newStatus: written.status,
        scanId: batch.id,
        metadata: { reason: 'not detected by a later completed scan' },
        at: now,
      });
    }
    await recordEvents(trx, events);
    await markScanAssessed(trx, scan.id);
    return resolved;
  });
  await foldCounters(db, batch);
  return resolved;
}

/** After an ingest's writes: PostgreSQL's counter deltas folded, so list totals stay a read of few rows. */
async function foldCounters(db: Kysely<Database>, batch: ScanBatchRow): Promise<void> {
  await foldFindingCounts(db, batch.unit_id);
  await foldFindingEventCounts(db, batch.org_id);
  await foldFindingEventOrgCounts(db, batch.org_id);
}
