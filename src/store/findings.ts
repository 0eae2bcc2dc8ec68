import { sql, type Kysely } from 'kysely';
import type { PageRequest } from '../core/pagination.ts';
import { countFindings, detectedByMatches } from './counts.ts';
import { isPostgres } from './dialect.ts';
import { bulkRead, placeText } from './read-lanes.ts';
import { seekNewestFirst, type MergedRanges } from './pagination.ts';
import { SEVERITIES, type Severity } from '../core/severity.ts';
import { SCAN_VERDICT, TRIAGE, findingStatus, stateOf, type FindingState, type FindingStatus, type ScanVerdict } from '../core/states/finding-state.ts';
import type { ScanType } from '../scanning/scan-type-names.ts';
import type { StatusMachine } from '../core/states/machine.ts';
import type { Database, FindingRow } from './schema.ts';

// All SQL on `findings`. Which findings change and how is decided in core; this module only reads and writes.

export interface FindingQuery extends PageRequest {
  scanBatchId?: string;
  severity?: string;
  status?: string;
  scanType?: string;
  /** `newest` (the default) or `severity`: critical first, newest first within a severity. */
  sort?: 'newest' | 'severity';
}

/** Critical first; severities this server does not know last. */
const severityRank = sql<number>`case severity ${sql.join(
  SEVERITIES.map((severity, rank) => sql`when ${sql.lit(severity)} then ${sql.lit(rank)}`),
  sql` `,
)} else ${sql.lit(SEVERITIES.length)} end`;

export async function listFindings(db: Kysely<Database>, unitId: string, filters: FindingQuery): Promise<{ items: FindingRow[]; total: number }> {
  const counted = {
    scanBatchId: filters.scanBatchId || undefined,
    severity: filters.severity?.toLowerCase() || undefined,
    status: filters.status?.toLowerCase() || undefined,
    scanType: filters.scanType || undefined,
  };
  // A filter is what the caller typed: a value no finding holds matches none.
  let query = db.selectFrom('findings').where('unit_id', '=', unitId);
  if (counted.scanBatchId) query = query.where('scan_batch_id', '=', counted.scanBatchId);
  if (counted.severity) query = query.where('severity', '=', counted.severity as Severity);
  if (counted.status) query = query.where('status', '=', counted.status as FindingStatus);
  const { total, version, detectionLists } = await countFindings(db, unitId, counted);
  const key = `findings|${unitId}|${counted.scanBatchId ?? ''}|${counted.severity ?? ''}|${counted.status ?? ''}|${counted.scanType ?? ''}`;
  if (total <= filters.skip) return { items: [], total };
  // A scan type matches every finding it detected, including those another type found first: the
  // findings holding one of the lists of types that name it, each list a range of an index (migration 024).
  const ranges: MergedRanges | undefined = counted.scanType ? { column: 'detected_by', values: detectionLists } : undefined;
  if (ranges && !ranges.values.length) return { items: [], total };
  // Sorted by severity, pages are read by offset: a console's pages, not a million-row walk, which the
  // default order serves by seeking from remembered page starts.
  const items =
    filters.sort === 'severity'
      ? await (ranges ? query.where('detected_by', 'in', [...ranges.values]) : query)
          .selectAll()
          .orderBy(severityRank)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(filters.limit)
          .offset(filters.skip)
          .execute()
      : await seekNewestFirst(db, 'findings', query, filters, 'created_at', { key, version }, ranges);
  return { items, total };
}

export function findFinding(db: Kysely<Database>, unitId: string, findingId: string): Promise<FindingRow | undefined> {
  return db.selectFrom('findings').selectAll().where('id', '=', findingId).where('unit_id', '=', unitId).executeTakeFirst();
}

/** The findings with these ids, in no particular order; ids of other units (when `unitId` is given) or unknown ids are left out. */
export function findingsByIds(db: Kysely<Database>, ids: string[], unitId?: string): Promise<FindingRow[]> {
  if (!ids.length) return Promise.resolve([]);
  let query = db.selectFrom('findings').selectAll().where('id', 'in', ids);
  if (unitId !== undefined) query = query.where('unit_id', '=', unitId);
  return query.execute();
}

/** Where a page of a batch's findings ended; the next page starts right after it. */
export interface BatchFindingCursor {
  filePath: string;
  /** The start line, -1 for a finding without one. */
  line: number;
  id: string;
}

/**
 * The wire form of one entry of a scan's results (PublicScanResultsResponse.findings[]), rendered as JSON
 * text by the database itself: a results read of hundreds of thousands of findings then costs the server's
 * event loop only the concatenation of these texts, not the decoding, building and encoding of an object
 * per finding, which starved every other request while large reads ran.
 */
function resultEntryJson(db: Kysely<Database>) {
  // row_to_json keeps the column order and writes compact JSON; json_build_object would pad every colon.
  if (isPostgres(db)) {
    return sql<string>`(select row_to_json(e)::text from (select f.check_id, f.file_path, f.severity, f.message,
      f.cwe::json as cwe, f.owasp::json as owasp, f.fingerprint, s.full_name as source_repo, f.start_line,
      f.end_line, f.commit_sha, f.snippet) e)`;
  }
  return sql<string>`json_object('check_id', f.check_id, 'file_path', f.file_path, 'severity', f.severity,
    'message', f.message, 'cwe', json(f.cwe), 'owasp', json(f.owasp), 'fingerprint', f.fingerprint,
    'source_repo', s.full_name, 'start_line', f.start_line, 'end_line', f.end_line, 'commit_sha', f.commit_sha,
    'snippet', f.snippet)`;
}

/** A page of a batch's results: its entries' JSON text joined by commas, and where the next page starts. */
export interface BatchResultsPage {
  /**
   * The entries, comma-joined, led by a comma on every page but the first, so pages simply follow one
   * another; empty when the page is. UTF-8 bytes in `into` where they fit, else a string.
   */
  entries: Buffer | string;
  /** How many findings the page holds. */
  rows: number;
  next: BatchFindingCursor | null;
}

/**
 * One page of the findings a batch last detected, in file and line order, starting after `after`, as
 * result entries' JSON text: a keyset cursor over the index `findings_batch_order` (which indexes the same
 * `coalesce(start_line, -1)`), so each page costs the same however deep it is. `next` is null on the last
 * page. The database also joins the page into one text and reports its last row, so the page crosses to
 * the event loop as one value rather than as hundreds of rows: UTF-8 bytes in `into` (a bulk read, see
 * read-lanes.ts), ready for the socket.
 */
export function pageOfBatchResults(
  db: Kysely<Database>,
  scope: { unitId: string; batchId: string },
  after: BatchFindingCursor | null,
  limit: number,
  into: SharedArrayBuffer,
): Promise<BatchResultsPage> {
  return bulkRead(() => readPageOfBatchResults(db, scope, after, limit), { into: { buffer: into, column: 'body' } });
}

async function readPageOfBatchResults(
  db: Kysely<Database>,
  scope: { unitId: string; batchId: string },
  after: BatchFindingCursor | null,
  limit: number,
): Promise<BatchResultsPage> {
  let query = db
    .selectFrom('findings as f')
    .leftJoin('source_repos as s', 's.id', 'f.source_repo_id')
    .select([resultEntryJson(db).as('entry'), 'f.file_path', sql<number>`coalesce(f.start_line, -1)`.as('line'), 'f.id'])
    .where('f.unit_id', '=', scope.unitId)
    .where('f.scan_batch_id', '=', scope.batchId);
  if (after) query = query.where(sql<boolean>`(f.file_path, coalesce(f.start_line, -1), f.id) > (${after.filePath}, ${after.line}, ${after.id})`);
  const page = query.orderBy('f.file_path').orderBy(sql`coalesce(f.start_line, -1)`).orderBy('f.id').limit(limit);
  const numbered = db
    .selectFrom(page.as('p'))
    .select(['p.entry', 'p.file_path', 'p.line', 'p.id', sql<number>`row_number() over (order by p.file_path, p.line, p.id)`.as('n')])
    .as('q');
  const lead = after ? ',' : '';
  const row = isPostgres(db)
    ? await db
        .selectFrom(numbered)
        .select([
          sql<string | null>`${lead}::text || string_agg(q.entry, ',' order by q.n)`.as('body'),
          sql<number | string>`count(*)`.as('rows'),
          sql<string>`(array_agg(q.file_path order by q.n desc))[1]`.as('file_path'),
          sql<number>`(array_agg(q.line order by q.n desc))[1]`.as('line'),
          sql<string>`(array_agg(q.id order by q.n desc))[1]`.as('id'),
        ])
        .executeTakeFirstOrThrow()
    : // SQLite gives the bare columns of an aggregate with a single max() the values of the row holding the max.
      await db
        .selectFrom(numbered)
        .select([sql<string | Buffer | null>`${lead} || group_concat(q.entry, ',' order by q.n)`.as('body'), sql<number | null>`max(q.n)`.as('rows'), 'q.file_path', 'q.line', 'q.id'])
        .executeTakeFirstOrThrow();
  const body = row.body ?? '';
  // The driver's result object is old by now (it lived through the query), and a young string it points
  // to survives every young collection until the next full one. Dropped here, the page text dies young.
  row.body = null;
  const rows = Number(row.rows ?? 0);
  return {
    entries: typeof body === 'string' ? placeText(body) : body,
    rows,
    next: rows === limit ? { filePath: row.file_path, line: Number(row.line), id: row.id } : null,
  };
}

export async function countBatchFindings(db: Kysely<Database>, scope: { unitId: string; batchId: string }): Promise<number> {
  return (await countFindings(db, scope.unitId, { scanBatchId: scope.batchId })).total;
}

/** Every finding, in any status and of any scan type, stored for one source repository of a unit. */
export function findingsOfSource(db: Kysely<Database>, unitId: string, sourceRepoId: string): Promise<FindingRow[]> {
  return db.selectFrom('findings').selectAll().where('unit_id', '=', unitId).where('source_repo_id', '=', sourceRepoId).execute();
}

/**
 * The same finding in the organization's other units: a finding of another unit's source repo that is
 * the same repository (provider and name), seen at the same commit, of the same rule, file, line and
 * match. Empty for a finding without a commit or a match hash, which cannot be told apart safely.
 */
export async function findingTwins(db: Kysely<Database>, finding: FindingRow): Promise<FindingRow[]> {
  if (!finding.source_repo_id || !finding.commit_sha || !finding.match_hash) return [];
  const sources = await twinSources(db, { orgId: finding.org_id, unitId: finding.unit_id, sourceRepoId: finding.source_repo_id });
  const twins: FindingRow[] = [];
  for (const source of sources) {
    let query = db
      .selectFrom('findings')
      .selectAll()
      .where('unit_id', '=', source.unit_id)
      .where('source_repo_id', '=', source.id)
      .where('commit_sha', '=', finding.commit_sha)
      .where('check_id', '=', finding.check_id)
      .where('file_path', '=', finding.file_path)
      .where('match_hash', '=', finding.match_hash);
    query = finding.start_line === null ? query.where('start_line', 'is', null) : query.where('start_line', '=', finding.start_line);
    twins.push(...(await query.execute()));
  }
  return twins;
}

/** The source repos of the organization's other units that are the same repository (provider and name) as `sourceRepoId`. */
function twinSources(db: Kysely<Database>, scope: { orgId: string; unitId: string; sourceRepoId: string }) {
  return db
    .selectFrom('source_repos as mine')
    .innerJoin('source_repos as other', (join) => join.onRef('other.provider', '=', 'mine.provider').onRef('other.full_name', '=', 'mine.full_name'))
    .innerJoin('units', 'units.id', 'other.unit_id')
    .select(['other.id', 'other.unit_id'])
    .where('mine.id', '=', scope.sourceRepoId)
    .where('other.unit_id', '!=', scope.unitId)
    .where('units.org_id', '=', scope.orgId)
    .execute();
}

/** The findings a person decided on (triage other than open) in the twin sources of a unit's source repo (see findingTwins()). */
export async function decidedTwinFindings(db: Kysely<Database>, scope: { orgId: string; unitId: string; sourceRepoId: string }): Promise<FindingRow[]> {
  const decided: FindingRow[] = [];
  for (const source of await twinSources(db, scope)) {
    decided.push(
      ...(await db
        .selectFrom('findings')
        .selectAll()
        .where('unit_id', '=', source.unit_id)
        .where('source_repo_id', '=', source.id)
        .where('triage', '!=', 'open')
        .where('match_hash', 'is not', null)
        .where('commit_sha', 'is not', null)
        .execute()),
    );
  }
  return decided;
}

/** What makes two findings of twin sources the same (findingTwins()): commit, rule, file, line and match. */
export const twinKey = (f: Pick<FindingRow, 'commit_sha' | 'check_id' | 'file_path' | 'start_line' | 'match_hash'>): string =>
  [f.commit_sha, f.check_id, f.file_path, f.start_line ?? '', f.match_hash].join('\0');

/** Which scan types have detected a finding (`detected_by`), first-seen order. */
export const detectedByOf = (row: Pick<FindingRow, 'detected_by' | 'scan_type'>): ScanType[] => {
  const types = JSON.parse(row.detected_by || '[]') as ScanType[];
  return types.length ? types : [row.scan_type];
};

/** Which scan types' newest scans see a finding (`seen_by`), each with that scan's id. */
export const seenByOf = (row: Pick<FindingRow, 'seen_by'>): Record<string, string> => JSON.parse(row.seen_by || '{}') as Record<string, string>;

/** Records who detects and sees a finding now. */
export async function updateFindingSightings(db: Kysely<Database>, findingId: string, sightings: Pick<FindingRow, 'detected_by' | 'seen_by'>): Promise<void> {
  await db.updateTable('findings').set(sightings).where('id', '=', findingId).execute();
}

/** The identity keys already taken in a unit for a scan type, among `keys`. */
export async function takenKeys(db: Kysely<Database>, unitId: string, scanType: ScanType, keys: string[]): Promise<Set<string>> {
  const taken = new Set<string>();
  for (let i = 0; i < keys.length; i += 500) {
    const rows = await db
      .selectFrom('findings')
      .select('fingerprint')
      .where('unit_id', '=', unitId)
      .where('scan_type', '=', scanType)
      .where('fingerprint', 'in', keys.slice(i, i + 500))
      .execute();
    for (const row of rows) taken.add(row.fingerprint);
  }
  return taken;
}

/**
 * Findings of a source repository whose scan verdict is one of `verdicts` and that the scan type's newest
 * scan seeing them is not `scanId`: what that type saw before and this scan of it no longer does. A SARIF
 * import's tool (`sarif:<tool>`) stands in the place of a scan type the same way.
 */
export async function findingsNotSeenBy(
  db: Kysely<Database>,
  scope: { unitId: string; scanType: string; sourceRepoId: string; scanId: string },
  verdicts: readonly ScanVerdict[],
): Promise<FindingRow[]> {
  const rows = await db
    .selectFrom('findings')
    .selectAll()
    .where('unit_id', '=', scope.unitId)
    .where('source_repo_id', '=', scope.sourceRepoId)
    .where('scan_verdict', 'in', [...verdicts])
    .where(detectedByMatches('seen_by', scope.scanType))
    .execute();
  return rows.filter((row) => {
    const seenBy = seenByOf(row);
    return scope.scanType in seenBy && seenBy[scope.scanType] !== scope.scanId;
  });
}

/** Rows per multi-row INSERT: a finding has 37 columns and SQLite binds at most 32,766 values a statement. */
const FINDINGS_PER_INSERT = 500;

/**
 * A new finding: every column but `status`, which is derived from its state. Without `detected_by` and
 * `seen_by` it was detected by its scan type alone, which sees it while its verdict is present.
 */
export type NewFinding = Omit<FindingRow, 'status' | 'detected_by' | 'seen_by'> & Partial<Pick<FindingRow, 'detected_by' | 'seen_by'>>;

/** Stores many new findings with one multi-row INSERT per few hundred rows. */
export async function insertFindings(db: Kysely<Database>, rows: readonly NewFinding[]): Promise<void> {
  for (let i = 0; i < rows.length; i += FINDINGS_PER_INSERT) {
    const values = rows.slice(i, i + FINDINGS_PER_INSERT).map((row) => ({
      ...row,
      detected_by: row.detected_by ?? JSON.stringify([row.scan_type]),
      seen_by: row.seen_by ?? JSON.stringify(row.scan_verdict === 'present' ? { [row.scan_type]: row.scan_id ?? '' } : {}),
      status: findingStatus(stateOf(row)),
    }));
    await db.insertInto('findings').values(values).execute();
  }
}

/** What a new detection changes about a finding: where it is and what the engine says; never its identity or state. */
export type FindingDetection = Omit<
  FindingRow,
  | 'id'
  | 'org_id'
  | 'unit_id'
  | 'scan_type'
  | 'detected_by'
  | 'seen_by'
  | 'fingerprint'
  | 'scan_verdict'
  | 'triage'
  | 'status'
  | 'resolved_at'
  | 'first_detected_at'
  | 'created_at'
>;

/** A rescan's write to a finding it sees: its detection, and the scan types' sightings when they change, in one statement. */
export async function updateFindingDetection(
  db: Kysely<Database>,
  findingId: string,
  detection: Partial<FindingDetection> & Partial<Pick<FindingRow, 'detected_by' | 'seen_by'>>,
): Promise<void> {
  await db.updateTable('findings').set(detection).where('id', '=', findingId).execute();
}

/** The columns a state change writes, beside the two it changes. */
export type FindingStateColumns = Pick<FindingRow, 'scan_verdict' | 'triage' | 'status' | 'resolved_at' | 'updated_at'>;

/** Where a record in `to` may come from: itself (no move) or a source the machine allows. */
const sourcesOrSelf = <S extends string>(machine: StatusMachine<S>, to: S): S[] => [to, ...machine.sourcesOf(to)];

/**
 * The one write of a finding's state, and so of its `status`, which it derives with findingStatus().
 * Guarded by the state the caller read (`from`), so two writers cannot both act on the same old state,
 * and by the two machines, so a move their tables do not allow changes nothing. `resolved_at` is set
 * when the status becomes resolved and cleared when it becomes open; `updated_at` moves unless only the
 * verdict changed behind a status that stayed. Returns the columns written, or null when nothing changed.
 */
export async function writeFindingState(
  db: Kysely<Database>,
  finding: Pick<FindingRow, 'id' | 'resolved_at' | 'updated_at'> & { from: FindingState },
  to: FindingState,
  at: string,
): Promise<FindingStateColumns | null> {
  const { from } = finding;
  if (from.verdict === to.verdict && from.triage === to.triage) return null;
  const moves = (from.verdict === to.verdict || SCAN_VERDICT.canMove(from.verdict, to.verdict)) && (from.triage === to.triage || TRIAGE.canMove(from.triage, to.triage));
  if (!moves) return null;
  const before = findingStatus(from);
  const status = findingStatus(to);
  const columns: FindingStateColumns = {
    scan_verdict: to.verdict,
    triage: to.triage,
    status,
    resolved_at: status === before ? finding.resolved_at : status === 'resolved' ? at : status === 'open' ? null : finding.resolved_at,
    updated_at: status === before && from.triage === to.triage ? finding.updated_at : at,
  };
  const result = await db
    .updateTable('findings')
    .set(columns)
    .where('id', '=', finding.id)
    .where('scan_verdict', 'in', sourcesOrSelf(SCAN_VERDICT, to.verdict))
    .where('triage', 'in', sourcesOrSelf(TRIAGE, to.triage))
    .where('scan_verdict', '=', from.verdict)
    .where('triage', '=', from.triage)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0 ? columns : null;
}
