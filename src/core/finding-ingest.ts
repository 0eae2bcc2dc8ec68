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
import { decodeJson, encodeJson } from '../store/json-columns.ts';
import { markScanAssessed } from '../store/scan-batches.ts';
import { aliasesOfSource, saveFindingAlias } from '../store/sarif-imports.ts';
import { lockSourceScanHead, setSourceScanHead, type SourceScanHead } from '../store/source-scan-heads.ts';
import type { Database, FindingAliasRow, FindingRow, ScanBatchRow, ScanRow } from '../store/schema.ts';
import { SCAN_TYPE_NAMES, type ScanType } from '../scanning/scan-type-names.ts';
import {
  matchAcrossTools,
  matchFindings,
  occurrenceIndexes,
  renamesByMatch,
  ruleWords,
  type DetectedIdentity,
  type PlacedProblem,
  type ProblemKind,
  type StoredIdentity,
  identityOfDetection,
  identityOfFinding,
} from './finding-identity.ts';
import { recordEvents, type EventInput } from './finding-events.ts';
import { SCAN_VERDICT, afterScan, findingStatus, stateOf } from './states/finding-state.ts';


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

/**
 * Who sees findings, and how a sighting is kept. Bulwark's scans are sighters by their scan type; a SARIF
 * import by its tool (`sarif:<tool>`, core/sarif-imports.ts). A finding's `seen_by` holds, per sighter, the
 * id of its newest sighting that sees it.
 */
export interface Sighting {
  orgId: string;
  unitId: string;
  sourceRepoId: string;
  /** The key in `seen_by`: a scan type, or an import's `sarif:<tool>`. */
  sighter: string;
  /** What is kept under it: the scan's id, or the import's. */
  sightingId: string;
  /** The batch and scan written on the findings this sighting describes (null for an import). */
  batchId: string | null;
  scanId: string | null;
  commitSha: string | null;
  /** Added to every event this sighting writes. */
  eventMetadata?: Record<string, unknown>;
}

/** A detection and the contract scan type a new finding of it is filed under. */
export interface SightedFinding extends RawFinding {
  scanType: ScanType;
}

/** What a sighting did: findings created, known findings seen (reopened among them), findings resolved. */
export interface SightingCounts {
  created: number;
  seen: number;
  reopened: number;
  resolved: number;
}

const isScanSighter = (sighter: string): sighter is ScanType => (SCAN_TYPE_NAMES as readonly string[]).includes(sighter);

/** The SARIF import a finding's place and message come from (core/sarif-imports.ts writes `metadata.sarif`), if any. */
function importOf(row: Pick<FindingRow, 'metadata'>): { sighting: string } | undefined {
  if (!row.metadata.includes('"sarif"')) return undefined;
  const sarif = decodeJson<{ sarif?: { sighting?: unknown } }>(row.metadata, {}).sarif;
  return typeof sarif?.sighting === 'string' ? { sighting: sarif.sighting } : undefined;
}

/** The sighter whose report a finding's place and message are: the import that describes it, else its first scan type. */
export const describerOf = (row: Pick<FindingRow, 'metadata' | 'scan_type'>): string => importOf(row)?.sighting ?? row.scan_type;

/** A finding's sightings once `sighter` (`sightingId`) sees it as `scanType`, or null when they do not change. */
function sightedBy(row: FindingRow, scanType: ScanType, sighter: string, sightingId: string): Pick<FindingRow, 'detected_by' | 'seen_by'> | null {
  const detectedBy = detectedByOf(row);
  const seenBy = seenByOf(row);
  if (detectedBy.includes(scanType) && seenBy[sighter] === sightingId) return null;
  return {
    detected_by: JSON.stringify(detectedBy.includes(scanType) ? detectedBy : [...detectedBy, scanType]),
    seen_by: JSON.stringify({ ...seenBy, [sighter]: sightingId }),
  };
}

/**
 * Whether `sighter` seeing a finding moves its place and what it says: when it describes the finding, or
 * the sighter that does no longer sees it. Otherwise the finding stays as its describer reports it (and in
 * that type's batch results); the other sighter only adds its sighting.
 */
function describes(row: FindingRow, sighter: string): boolean {
  const describer = describerOf(row);
  return describer === sighter || !(describer in seenByOf(row));
}

/**
 * A new finding's identity key (stored as `fingerprint`, unique per unit and the scan type that first found it): its source
 * repository, the engine's fingerprint and which copy of that match in the file it is. Fixed for the
 * finding's life, wherever the code later moves. `salt` separates it from a key an older finding already
 * holds (one whose code has since changed into this match).
 */
function identityKey(sourceRepoId: string, fingerprint: string, occurrence: number, salt = ''): string {
  return crypto.createHash('sha256').update(`${sourceRepoId}\0${fingerprint}\0${occurrence}\0${salt}`).digest('hex');
}

const aliasIdentity = (alias: FindingAliasRow): StoredIdentity => ({
  id: alias.finding_id,
  checkId: alias.check_id,
  filePath: alias.file_path,
  matchHash: alias.match_hash,
  fingerprint: alias.fingerprint,
  anchor: alias.anchor,
  startLine: alias.start_line,
  snippet: alias.snippet,
});

const KIND_OF_SCAN_TYPE: Record<ScanType, ProblemKind> = { semgrep_scan: 'code', deep_ai_scan: 'code', secrets_scan: 'secrets', sbom_scan: 'dependencies' };

const cweNumbers = (cwes: readonly string[]) => cwes.flatMap((c) => /CWE-0*(\d+)/i.exec(c)?.[1] ?? []);
const ADVISORY_ID = /^(CVE-\d{4}-\d+|GHSA(-[0-9a-z]{4}){3}|[A-Z]+-\d{4}-[\w-]+)$/i;
const advisoryIds = (ids: unknown[]) => ids.filter((id): id is string => typeof id === 'string' && ADVISORY_ID.test(id)).map((id) => id.toUpperCase());

/** A stored finding as matchAcrossTools() compares it. */
function storedProblem(row: FindingRow): PlacedProblem & { id: string } {
  const imported = importOf(row);
  const toolWords = imported ? ruleWords(imported.sighting) : [];
  return {
    id: row.id,
    kind: KIND_OF_SCAN_TYPE[row.scan_type],
    filePath: row.file_path,
    startLine: row.start_line,
    endLine: row.end_line,
    cwes: cweNumbers(decodeJson<string[]>(row.cwe, [])),
    ruleWords: ruleWords(row.check_id, toolWords),
    advisories: row.scan_type === 'sbom_scan' ? advisoryIds([row.check_id, ...decodeJson<{ aliases?: unknown[] }>(row.metadata, {}).aliases ?? []]) : [],
  };
}

/** A detection as matchAcrossTools() compares it. */
function detectedProblem(raw: SightedFinding, sighter: string): PlacedProblem {
  return {
    kind: KIND_OF_SCAN_TYPE[raw.scanType],
    filePath: raw.filePath,
    startLine: raw.startLine,
    endLine: raw.endLine,
    cwes: cweNumbers(raw.cwe),
    ruleWords: ruleWords(raw.checkId, isScanSighter(sighter) ? [] : ruleWords(sighter)),
    advisories: raw.scanType === 'sbom_scan' ? advisoryIds([raw.checkId.split('/').at(-1), ...(Array.isArray(raw.metadata.aliases) ? raw.metadata.aliases : [])]) : [],
  };
}

/**
 * The stored findings of one source repository a sighting is matched against, and how. A scan matches
 * every finding of the source by its rule and file (a deep scan finds the SAST scan's findings so), and
 * any finding it knows under an alias; an import only those it describes or knows under an alias, as
 * another tool's rules never name its own. What is left is then matched across tools (matchAcrossTools()):
 * an import against Bulwark's findings, a scan against imported ones, each by place.
 */
function candidatesFor(sighter: string, stored: FindingRow[], aliases: FindingAliasRow[]) {
  const scan = isScanSighter(sighter);
  const own = scan ? stored : stored.filter((row) => describerOf(row) === sighter);
  const identities = [...own.map(identityOfFinding), ...aliases.map(aliasIdentity)];
  const acrossTools = stored.filter((row) => row.scan_verdict === 'present' && (scan ? importOf(row) !== undefined : isScanSighter(describerOf(row))));
  return { identities, acrossTools };
}

/**
 * Applies one sighting of a source repository's findings, inside the caller's transaction (which holds
 * the source's lock, lockSource()): each detection is matched to a finding of the same source repository
 * (candidatesFor(); `renames` follows files git saw renamed since the sighter's previous sighting), so a
 * problem two scan types or tools find is one finding: a known one gets this sighting (`detected_by`,
 * `seen_by`), `last_detected_at` and the verdict `present` (afterScan() in states/finding-state.ts), and its
 * new place when describes() says so; one that was resolved reopens (`reopened`) while every other decision
 * stands; an unknown one becomes an open finding (`detected`) of its scan type, which takes the decision a
 * person made on the same code in another unit of the organization (decidedTwinFindings(): a
 * `status_changed` event says where it came from). Where a sighter knows a finding another one describes
 * under a rule of its own, that is kept as an alias for its next sighting. Idempotent.
 */
export async function applySighting(
  trx: Kysely<Database>,
  sighting: Sighting,
  found: SightedFinding[],
  options: { renames?: ReadonlyMap<string, string>; now: string },
): Promise<SightingCounts> {
  const { now } = options;
  const counts: SightingCounts = { created: 0, seen: 0, reopened: 0, resolved: 0 };
  const detected = found.map(identityOfDetection);
  const occurrences = occurrenceIndexes(detected);
  const stored = await findingsOfSource(trx, sighting.unitId, sighting.sourceRepoId);
  const known = new Map(stored.map((row) => [row.id, row]));
  const aliases = await aliasesOfSource(trx, sighting);
  const { identities, acrossTools } = candidatesFor(sighting.sighter, stored, aliases);
  const renames = options.renames ?? (isScanSighter(sighting.sighter) ? new Map<string, string>() : renamesByMatch(identities, detected));
  const matches = matchFindings(identities, detected, renames);
  if (acrossTools.length) {
    const taken = new Set(matches.filter((id): id is string => id !== undefined));
    const across = matchAcrossTools(
      acrossTools.filter((row) => !taken.has(row.id)).map(storedProblem),
      found.map((raw, i) => (matches[i] ? null : detectedProblem(raw, sighting.sighter))),
      renames,
    );
    across.forEach((id, i) => (matches[i] ??= id));
  }
  const newKeys = found.map((raw, i) => (matches[i] ? null : identityKey(sighting.sourceRepoId, raw.fingerprint, occurrences[i])));
  const taken = new Map<ScanType, Set<string>>();
  for (const [scanType, keys] of Map.groupBy(
    found.flatMap((raw, i) => (newKeys[i] ? [{ scanType: raw.scanType, key: newKeys[i] }] : [])),
    (k) => k.scanType,
  )) {
    taken.set(scanType, await takenKeys(trx, sighting.unitId, scanType, keys.map((k) => k.key)));
  }
  const decided = newKeys.some((k) => k !== null)
    ? new Map((await decidedTwinFindings(trx, { orgId: sighting.orgId, unitId: sighting.unitId, sourceRepoId: sighting.sourceRepoId })).map((f) => [twinKey(f), f]))
    : new Map<string, FindingRow>();
  // New findings and their events are written together at the end, a few hundred rows a statement.
  const created: NewFinding[] = [];
  const events: EventInput[] = [];
  const metadata = sighting.eventMetadata;

  for (const [i, raw] of found.entries()) {
    const detection: FindingDetection = {
      source_repo_id: sighting.sourceRepoId,
      scan_batch_id: sighting.batchId,
      scan_id: sighting.scanId,
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
      commit_sha: raw.commitSha ?? sighting.commitSha,
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
      const keys = taken.get(raw.scanType)!;
      let key = newKeys[i]!;
      if (keys.has(key)) key = identityKey(sighting.sourceRepoId, raw.fingerprint, occurrences[i], id);
      keys.add(key);
      const row: NewFinding & Pick<FindingRow, 'detected_by' | 'seen_by'> = {
        id,
        org_id: sighting.orgId,
        unit_id: sighting.unitId,
        scan_type: raw.scanType,
        fingerprint: key,
        detected_by: JSON.stringify([raw.scanType]),
        seen_by: JSON.stringify({ [sighting.sighter]: sighting.sightingId }),
        scan_verdict: 'present',
        triage: 'open',
        first_detected_at: now,
        resolved_at: null,
        created_at: now,
        ...detection,
      };
      created.push(row);
      counts.created++;
      const twin = row.match_hash && row.commit_sha ? decided.get(twinKey(row)) : undefined;
      const opened = findingStatus(stateOf(row));
      events.push({ finding: { ...row, status: opened }, eventType: 'detected', newStatus: opened, scanId: sighting.batchId, metadata, at: now });
      // A decision a person made on the same code in another unit holds here too (a hand resolution excepted: this scan sees it).
      if (twin && twin.triage !== 'resolved') {
        row.triage = twin.triage;
        const status = findingStatus(stateOf(row));
        events.push({
          finding: { ...row, status },
          eventType: 'status_changed',
          previousStatus: opened,
          newStatus: status,
          scanId: sighting.batchId,
          metadata: { ...metadata, carried_from: { unit_id: twin.unit_id, finding_id: twin.id } },
          at: now,
        });
      }
      continue;
    }
    counts.seen++;
    const describing = describes(previous, sighting.sighter);
    const describer = describerOf(previous);
    if (describing && describer !== sighting.sighter && previous.check_id !== raw.checkId) {
      // Taking over the description: the sighter that gave it keeps knowing the finding by what it reported.
      await saveFindingAlias(trx, { ...aliasOf(identityOfFinding(previous), previous), sighter: describer, updated_at: now });
    } else if (!describing && previous.check_id !== raw.checkId) {
      await saveFindingAlias(trx, { ...aliasOf(detected[i], previous, raw.endLine), sighter: sighting.sighter, updated_at: now });
    }
    const seen = describing ? detection : { last_detected_at: now, updated_at: now };
    const sightings = sightedBy(previous, raw.scanType, sighting.sighter, sighting.sightingId);
    await updateFindingDetection(trx, previous.id, { ...seen, ...sightings });
    const before = stateOf(previous);
    const written = await writeFindingState(trx, { ...previous, ...seen, from: before }, afterScan(before, true), now);
    if (!written || written.status === previous.status) continue;
    counts.reopened++;
    events.push({
      finding: { ...previous, ...seen, ...sightings, ...written },
      eventType: 'reopened',
      previousStatus: previous.status,
      newStatus: written.status,
      scanId: sighting.batchId,
      metadata,
      at: now,
    });
  }
  await insertFindings(trx, created);
  await recordEvents(trx, events);
  return counts;
}

/** An alias row's identity columns from a stored or detected identity. */
function aliasOf(
  identity: Pick<StoredIdentity, 'checkId' | 'filePath' | 'matchHash' | 'fingerprint' | 'anchor' | 'snippet'> & { startLine: number | null },
  finding: FindingRow,
  endLine: number | null = finding.end_line,
): Omit<FindingAliasRow, 'sighter' | 'updated_at'> {
  return {
    finding_id: finding.id,
    check_id: identity.checkId,
    file_path: identity.filePath,
    start_line: identity.startLine,
    end_line: endLine,
    match_hash: identity.matchHash,
    fingerprint: identity.fingerprint,
    anchor: identity.anchor,
    snippet: identity.snippet,
  };
}

/**
 * Stores what one per-repo scan found (applySighting()). Ingests of one source repository run one at a
 * time whatever their scan type (lockSource()), and those of one scan type in scan order: a scan that
 * started before the newest one of its type already ingested changes no finding, since what it saw is older
 * than what is stored (the count of what it found is still returned).
 */
export async function ingestScanFindings(
  db: Kysely<Database>,
  batch: ScanBatchRow,
  scan: ScanRow,
  found: RawFinding[],
  renames: ReadonlyMap<string, string> = new Map(),
): Promise<number> {
  const scanType = scanTypeNamed(batch.scan_type).name;
  await db.transaction().execute(async (trx) => {
    const now = nowIso();
    const head = await lockSource(trx, scan.source_repo_id, batch.scan_type, now);
    if (headIsNewer(head, scan)) return;
    await setSourceScanHead(trx, scan.source_repo_id, batch.scan_type, orderOf(scan), now);
    await applySighting(trx, scanSighting(batch, scan), found.map((raw) => ({ ...raw, scanType })), { renames, now });
  });
  await foldCounters(db, batch.unit_id, batch.org_id);
  return found.length;
}

const scanSighting = (batch: ScanBatchRow, scan: ScanRow): Sighting => ({
  orgId: batch.org_id,
  unitId: batch.unit_id,
  sourceRepoId: scan.source_repo_id,
  sighter: scanTypeNamed(batch.scan_type).name,
  sightingId: scan.id,
  batchId: batch.id,
  scanId: scan.id,
  commitSha: scan.commit_sha,
});

/**
 * After a sighting that saw the whole source repository, what it no longer sees loses this sighter's
 * sighting: only findings an older sighting by it saw qualify. A finding nothing sees any more is fixed: it
 * gets the verdict `gone`, and one whose status that turns to resolved gets a `resolved_auto` event; one
 * that another scan type or tool still sees stays present. Runs in the caller's transaction, under the
 * source's lock. Returns how many findings it resolved.
 */
export async function withdrawUnseen(trx: Kysely<Database>, sighting: Sighting, now: string): Promise<number> {
  const unseen = await findingsNotSeenBy(
    trx,
    { unitId: sighting.unitId, scanType: sighting.sighter, sourceRepoId: sighting.sourceRepoId, scanId: sighting.sightingId },
    SCAN_VERDICT.sourcesOf('gone'),
  );
  let resolved = 0;
  const events: EventInput[] = [];
  for (const finding of unseen) {
    const { [sighting.sighter]: _mine, ...stillSeen } = seenByOf(finding);
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
      scanId: sighting.batchId,
      metadata: { ...sighting.eventMetadata, reason: isScanSighter(sighting.sighter) ? 'not detected by a later completed scan' : 'not reported by a later import of the same tool' },
      at: now,
    });
  }
  await recordEvents(trx, events);
  return resolved;
}

/**
 * After a completed scan, what it no longer sees in that source repo loses this scan type's sighting
 * (withdrawUnseen()). This runs only while this scan is the newest one ingested for its source repo and
 * type (under the same locks as ingest), so every finding it compares with was seen by an older scan; a
 * scan overtaken by a newer one resolves nothing and leaves that to the newer scan.
 */
export async function resolveUnseenFindings(db: Kysely<Database>, batch: ScanBatchRow, scan: ScanRow): Promise<number> {
  const resolved = await db.transaction().execute(async (trx) => {
    const head = await lockSource(trx, scan.source_repo_id, batch.scan_type, nowIso());
    if (head.scanId !== null && head.scanId !== scan.id) {
      await markScanAssessed(trx, scan.id);
      return 0;
    }
    const resolved = await withdrawUnseen(trx, scanSighting(batch, scan), nowIso());
    await markScanAssessed(trx, scan.id);
    return resolved;
  });
  await foldCounters(db, batch.unit_id, batch.org_id);
  return resolved;
}

/**
 * One sighting by a sighter outside the scan pipeline (a SARIF import): under the source's lock it becomes
 * the sighter's newest, is applied (applySighting()) and, when `complete`, withdraws what it no longer sees
 * (withdrawUnseen()); `record` writes the caller's own rows in the same transaction, with the counts.
 */
export async function ingestSighting<T>(
  db: Kysely<Database>,
  sighting: Sighting,
  found: SightedFinding[],
  options: { complete: boolean; record: (trx: Kysely<Database>, counts: SightingCounts, now: string) => Promise<T> },
): Promise<T> {
  const recorded = await db.transaction().execute(async (trx) => {
    const now = nowIso();
    await lockSource(trx, sighting.sourceRepoId, sighting.sighter, now);
    await setSourceScanHead(trx, sighting.sourceRepoId, sighting.sighter, { scanId: sighting.sightingId, scanStartedAt: now }, now);
    const counts = await applySighting(trx, sighting, found, { now });
    if (options.complete) counts.resolved = await withdrawUnseen(trx, sighting, now);
    return options.record(trx, counts, now);
  });
  await foldCounters(db, sighting.unitId, sighting.orgId);
  return recorded;
}

/** After an ingest's writes: PostgreSQL's counter deltas folded, so list totals stay a read of few rows. */
async function foldCounters(db: Kysely<Database>, unitId: string, orgId: string): Promise<void> {
  await foldFindingCounts(db, unitId);
  await foldFindingEventCounts(db, orgId);
  await foldFindingEventOrgCounts(db, orgId);
}
