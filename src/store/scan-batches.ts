import type { Kysely } from 'kysely';
import { BATCH_STATUS, type BatchStatus } from '../core/states/batch-status.ts';
import { SCAN_STATUS, type ScanStatus } from '../core/states/scan-status.ts';
import { nowIso } from '../ids.ts';
import type { Database, FindingRow, NewScan, ScanBatchRow, ScanRow } from './schema.ts';
import type { PageRequest } from '../core/pagination.ts';
import { newestFirst } from './pagination.ts';

// The scan_batches and scans tables. Every status write is a guarded transition: it applies only when
// the row is in one of the statuses its machine allows the move from, and says whether it applied.

export async function insertBatch(db: Kysely<Database>, row: ScanBatchRow): Promise<void> {
  await db.insertInto('scan_batches').values(row).execute();
}

export async function batchById(db: Kysely<Database>, batchId: string): Promise<ScanBatchRow | undefined> {
  return db.selectFrom('scan_batches').selectAll().where('id', '=', batchId).executeTakeFirst();
}

export async function scanById(db: Kysely<Database>, scanId: string): Promise<ScanRow | undefined> {
  return db.selectFrom('scans').selectAll().where('id', '=', scanId).executeTakeFirst();
}

export async function batchOfUnit(db: Kysely<Database>, unitId: string, batchId: string): Promise<ScanBatchRow | undefined> {
  return db.selectFrom('scan_batches').selectAll().where('id', '=', batchId).where('unit_id', '=', unitId).executeTakeFirst();
}

export async function pageOfBatches(
  db: Kysely<Database>,
  unitId: string,
  filters: PageRequest & { scanType?: string; status?: string },
): Promise<{ rows: ScanBatchRow[]; total: number }> {
  let query = db.selectFrom('scan_batches').where('unit_id', '=', unitId);
  if (filters.scanType) query = query.where('scan_type', '=', filters.scanType);
  if (filters.status) query = query.where('status', '=', filters.status.toLowerCase() as BatchStatus);
  return newestFirst(query, filters);
}

/**
 * Moves a batch to `to` (with `changes`) if its status allows that move; false when it does not (it
 * finished, or another run moved it on). `updated_at` is set with it.
 */
export async function moveBatch(
  db: Kysely<Database>,
  batchId: string,
  to: BatchStatus,
  changes: Partial<Omit<ScanBatchRow, 'id' | 'status'>> = {},
): Promise<boolean> {
  const sources = BATCH_STATUS.sourcesOf(to);
  if (!sources.length) return false; // the first status: nothing moves into it
  const result = await db
    .updateTable('scan_batches')
    .set({ ...changes, status: to, updated_at: nowIso() })
    .where('id', '=', batchId)
    .where('status', 'in', sources)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Marks the batch's credit as given back; true only for the one call that marked it. */
export async function markBatchCreditRefunded(db: Kysely<Database>, batchId: string): Promise<boolean> {
  const result = await db
    .updateTable('scan_batches')
    .set({ credit_refunded_at: nowIso() })
    .where('id', '=', batchId)
    .where('credit_refunded_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function insertScansOnce(db: Kysely<Database>, rows: NewScan[]): Promise<void> {
  for (const row of rows) {
    await db
      .insertInto('scans')
      .values(row)
      .onConflict((oc) => oc.columns(['batch_id', 'source_repo_id']).doNothing())
      .execute();
  }
}

/** The scans of the given batches in the order they were created. */
export async function scansOfBatches(db: Kysely<Database>, batchIds: string[]): Promise<ScanRow[]> {
  if (!batchIds.length) return [];
  return db.selectFrom('scans').selectAll().where('batch_id', 'in', batchIds).orderBy('created_at').orderBy('id').execute();
}

/** Records how far the engine got through a scan (0–1); a lower value than the stored one changes nothing. */
export async function recordAnalysisProgress(db: Kysely<Database>, scanId: string, fraction: number): Promise<void> {
  const value = Math.min(1, Math.max(0, fraction));
  await db.updateTable('scans').set({ analysis_progress: value }).where('id', '=', scanId).where('analysis_progress', '<', value).execute();
}

/** Moves a scan to `to` if its status allows that move; false when it does not. */
export async function moveScan(
  db: Kysely<Database>,
  scanId: string,
  to: ScanStatus,
  changes: Partial<Omit<ScanRow, 'id' | 'status'>> = {},
): Promise<boolean> {
  const sources = SCAN_STATUS.sourcesOf(to);
  if (!sources.length) return false; // the first status: nothing moves into it
  const result = await db
    .updateTable('scans')
    .set({ ...changes, status: to })
    .where('id', '=', scanId)
    .where('status', 'in', sources)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Fails every unfinished scan of a batch with one reason. */
export async function failUnfinishedScans(db: Kysely<Database>, batchId: string, reason: string): Promise<void> {
  await db
    .updateTable('scans')
    .set({ status: 'failed', status_reason: reason, completed_at: nowIso() })
    .where('batch_id', '=', batchId)
    .where('status', 'in', SCAN_STATUS.sourcesOf('failed'))
    .execute();
}

export async function artifactOfScan(db: Kysely<Database>, scanId: string, kind: string): Promise<string | undefined> {
  const row = await db.selectFrom('scan_artifacts').select('content').where('scan_id', '=', scanId).where('kind', '=', kind).executeTakeFirst();
  return row?.content;
}

/** The findings a batch detected, by file and line. */
/** Keeps what a scan produced besides findings; a scan run again replaces its earlier documents. */
export async function storeArtifacts(db: Kysely<Database>, scanId: string, artifacts: { kind: string; content: string }[]): Promise<void> {
  for (const artifact of artifacts) {
    await db
      .insertInto('scan_artifacts')
      .values({ scan_id: scanId, kind: artifact.kind, content: artifact.content, created_at: nowIso() })
      .onConflict((oc) => oc.columns(['scan_id', 'kind']).doUpdateSet({ content: artifact.content, created_at: nowIso() }))
      .execute();
  }
}

/** A unit's source repositories in their order (what its scans and fixes check out). */
export async function sourceReposOfUnit(db: Kysely<Database>, unitId: string) {
  return db.selectFrom('source_repos').selectAll().where('unit_id', '=', unitId).orderBy('position').execute();
}

/** Marks a scan whose findings were assessed (unseen ones resolved), in the same transaction as that assessment. */
export async function markScanAssessed(db: Kysely<Database>, scanId: string): Promise<void> {
  await db.updateTable('scans').set({ assessed: 1 }).where('id', '=', scanId).execute();
}

/** The commit of the newest completed scan of a source repository and scan type before `scanId`, if any. */
export async function previousScannedCommit(
  db: Kysely<Database>,
  scope: { sourceRepoId: string; scanType: string; scanId: string },
): Promise<string | null> {
  const row = await db
    .selectFrom('scans')
    .innerJoin('scan_batches', 'scan_batches.id', 'scans.batch_id')
    .select('scans.commit_sha')
    .where('scans.source_repo_id', '=', scope.sourceRepoId)
    .where('scan_batches.scan_type', '=', scope.scanType)
    .where('scans.status', '=', 'completed')
    .where('scans.id', '!=', scope.scanId)
    .where('scans.commit_sha', 'is not', null)
    .orderBy('scans.completed_at', 'desc')
    .orderBy('scans.id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.commit_sha ?? null;
}

/** How many batches there are of each scan type and status. */
export async function countBatchesByOutcome(db: Kysely<Database>): Promise<{ scanType: string; status: string; count: number }[]> {
  const rows = await db
    .selectFrom('scan_batches')
    .select(['scan_type', 'status', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy(['scan_type', 'status'])
    .execute();
  return rows.map((r) => ({ scanType: r.scan_type, status: r.status, count: Number(r.count) }));
}
