import type { Kysely } from 'kysely';
import { newId, nowIso } from '../ids.ts';
import { isPostgres } from '../store/dialect.ts';
import { countBatchFindings, pageOfBatchResults, type BatchFindingCursor } from '../store/findings.ts';
import type { Database, ScanBatchRow } from '../store/schema.ts';
import { artifactOfScan, batchOfUnit, insertBatch, pageOfBatches, scansOfBatches } from '../store/scan-batches.ts';
import { quotaTypeForScan } from '../scanning/scan-types/index.ts';
import { invalidState, notFound } from './errors.ts';
import type { OnCommit } from './idempotency.ts';
import type { PageRequest } from './pagination.ts';
import { consumeCredit } from './quotas.ts';
import { countScans, percentComplete, progressEntries, type BatchCounters, type ProgressEntry } from './scan-progress.ts';
import type { ScanType } from '../scanning/scan-type-names.ts';
import { BATCH_STATUS } from './states/batch-status.ts';
import type { Unit } from './units.ts';

export interface BatchView extends BatchCounters {
  batch: ScanBatchRow;
}

export interface ProgressView extends BatchView {
  percent_complete: number;
  repositories: ProgressEntry[];
}

/** Hands a stored batch to whatever runs scans, inside the transaction that stores it. */
export type BatchDispatcher = (trx: Kysely<Database>, batch: ScanBatchRow) => Promise<void>;

export async function createScanBatch(
  db: Kysely<Database>,
  orgId: string,
  unit: Unit,
  scanType: ScanType,
  dispatch: BatchDispatcher,
  onCommit?: OnCommit<BatchView>,
): Promise<BatchView> {
  const quotaType = quotaTypeForScan(scanType);
  return db.transaction().execute(async (trx) => {
    const period = await consumeCredit(trx, orgId, quotaType);
    const now = nowIso();
    const row: ScanBatchRow = {
      id: newId(),
      org_id: orgId,
      unit_id: unit.id,
      scan_type: scanType,
      status: 'queued',
      total_repositories: unit.sources.length,
      error_message: null,
      quota_type: quotaType,
      quota_period_start: period.start,
      credit_refunded_at: null,
      created_at: now,
      started_at: null,
      completed_at: null,
      updated_at: now,
    };
    await insertBatch(trx, row);
    await dispatch(trx, row);
    const view = { batch: row, ...countScans(row, []) };
    await onCommit?.(trx, view);
    return view;
  });
}

export async function listScanBatches(
  db: Kysely<Database>,
  unit: Unit,
  filters: PageRequest & { scanType?: string; status?: string },
): Promise<{ items: BatchView[]; total: number }> {
  const { rows, total } = await pageOfBatches(db, unit.id, filters);
  const scans = await scansOfBatches(db, rows.map((r) => r.id));
  return {
    items: rows.map((batch) => ({ batch, ...countScans(batch, scans.filter((s) => s.batch_id === batch.id)) })),
    total,
  };
}

async function findBatch(db: Kysely<Database>, unit: Unit, batchId: string): Promise<ScanBatchRow> {
  const batch = await batchOfUnit(db, unit.id, batchId);
  if (!batch) throw notFound('Scan');
  return batch;
}

export async function getScanBatch(db: Kysely<Database>, unit: Unit, batchId: string): Promise<BatchView> {
  const batch = await findBatch(db, unit, batchId);
  return { batch, ...countScans(batch, await scansOfBatches(db, [batch.id])) };
}

export async function getScanProgress(db: Kysely<Database>, unit: Unit, batchId: string): Promise<ProgressView> {
  const batch = await findBatch(db, unit, batchId);
  const scans = await scansOfBatches(db, [batch.id]);
  const stillPlanning = batch.status === 'queued' || batch.status === 'creating_scans';
  return {
    batch,
    ...countScans(batch, scans),
    percent_complete: percentComplete(batch, scans),
    repositories: progressEntries(stillPlanning ? unit.sources : [], scans),
  };
}

/** Findings a results read takes from the database at a time: what one response holds in memory at most. */
export const RESULTS_PAGE_SIZE = 500;

/** Bytes a results page is read into; a larger page is copied as usual. */
const PAGE_BUFFER_BYTES = 512 * 1024;

/**
 * Page buffers that finished results reads gave back, for the next ones: most batches fit one page, and a
 * fresh buffer per read is memory outside the heap that only a full collection returns.
 */
const idlePageBuffers: SharedArrayBuffer[] = [];
const IDLE_PAGE_BUFFERS_KEPT = 16;

/**
 * The text a results page aims at on PostgreSQL, whose driver hands it over as one string: V8 allocates a
 * string over 128 KB straight in the old generation, which only a full collection frees.
 */
const POSTGRES_PAGE_TEXT = 96 * 1024;

export interface ScanResults {
  batch: ScanBatchRow;
  /** How many findings the batch holds as the read starts. */
  count: number;
  /**
   * The result entries' JSON text in file and line order, a page at a time, read as consumed; each page
   * after the first starts with its comma. A page's bytes may be reused for the page after next: write
   * each out before asking for that one.
   */
  pages: AsyncIterable<Buffer | string>;
  /** Gives the pages' buffers to later reads. Call it only once every page has been written out. */
  release(): void;
}

async function* batchFindingPages(db: Kysely<Database>, scope: { unitId: string; batchId: string }, pageSize: number, buffers: SharedArrayBuffer[]) {
  const postgres = isPostgres(db);
  let after: BatchFindingCursor | null = null;
  let limit = pageSize;
  let n = 0;
  do {
    // Two buffers taken in turn (the second from the second page on): one page is read while the one
    // before it is still being written out.
    const into = (buffers[n++ % 2] ??= idlePageBuffers.pop() ?? new SharedArrayBuffer(PAGE_BUFFER_BYTES));
    const page = await pageOfBatchResults(db, scope, after, limit, into);
    if (page.entries.length) yield page.entries;
    after = page.next;
    if (postgres && page.rows) limit = Math.max(1, Math.min(pageSize, Math.floor((POSTGRES_PAGE_TEXT * page.rows) / page.entries.length)));
  } while (after);
}

/**
 * Every finding a batch last detected, read lazily in pages so a batch of any size is answered in bounded
 * memory. The count is read first; a scan still writing to the batch (or a newer batch taking its findings
 * over) while the pages are read can make the two differ, as any read of a running batch is a moving picture.
 */
export async function getScanResults(
  db: Kysely<Database>,
  unit: Unit,
  batchId: string,
  pageSize = RESULTS_PAGE_SIZE,
): Promise<ScanResults> {
  const batch = await findBatch(db, unit, batchId);
  const scope = { unitId: unit.id, batchId: batch.id };
  const buffers: SharedArrayBuffer[] = [];
  const release = () => {
    for (const buffer of buffers.splice(0)) if (idlePageBuffers.length < IDLE_PAGE_BUFFERS_KEPT) idlePageBuffers.push(buffer);
  };
  return { batch, count: await countBatchFindings(db, scope), pages: batchFindingPages(db, scope, pageSize, buffers), release };
}

/**
 * The CycloneDX document an `sbom_scan` produced for the unit's first repository. A batch of another
 * type, or one whose scan has not finished or failed, has none, and the refusal says which.
 */
export async function getScanSbom(db: Kysely<Database>, unit: Unit, batchId: string): Promise<string> {
  const batch = await findBatch(db, unit, batchId);
  if (batch.scan_type !== 'sbom_scan') throw invalidState(`This scan is a ${batch.scan_type}; only sbom_scan scans produce an SBOM.`);
  const [scan] = await scansOfBatches(db, [batch.id]);
  const artifact = scan ? await artifactOfScan(db, scan.id, 'cyclonedx') : undefined;
  if (artifact !== undefined) return artifact;
  if (scan?.status === 'failed') throw invalidState(`The scan failed, so there is no SBOM: ${scan.status_reason ?? 'no reason recorded'}.`);
  if (BATCH_STATUS.isTerminal(batch.status)) throw invalidState(`The scan ended ${batch.status} without an SBOM.`);
  throw invalidState(`The SBOM is not ready yet: the scan is ${batch.status}. Poll the scan until it completes.`);
}
