import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { refundBatchCredit } from '../core/credits.ts';
import { ingestScanFindings, resolveUnseenFindings } from '../core/finding-ingest.ts';
import { BATCH_STATUS, type BatchStatus } from '../core/states/batch-status.ts';
import { SCAN_STATUS } from '../core/states/scan-status.ts';
import type { TokenBox } from '../crypto/token-box.ts';
import { PARTIAL_RESULT, type RawFinding, type ScanArtifact, type ScanEngine, type ScanProgress } from './engine.ts';
import { maskSecretsIn } from './secrets/mask-text.ts';
import { EngineThreadError } from './worker-pool.ts';
import type { EngineRegistry } from './engines.ts';
import { renamesSincePreviousScan } from './finding-renames.ts';
import { newId, nowIso } from '../ids.ts';
import type { EnqueueOptions, JobContext, JobHandlers, JobKind } from '../jobs/queue.ts';
import { UnknownScanTypeError } from './scan-types/index.ts';
import { CheckoutError, type Checkout, type CheckoutCache } from '../scm/checkout-cache.ts';
import { scrub } from '../scm/git-command.ts';
import {
  batchById,
  failUnfinishedScans,
  insertScansOnce,
  moveBatch,
  moveScan,
  recordAnalysisProgress,
  scanById,
  scansOfBatches,
  sourceReposOfUnit,
  storeArtifacts,
} from '../store/scan-batches.ts';
import type { Database, ScanBatchRow, ScanRow, SourceRepoRow } from '../store/schema.ts';
import { severityRank } from '../core/severity.ts';

export interface BatchRunnerDeps {
  db: Kysely<Database>;
  tokenBox: TokenBox;
  checkouts: CheckoutCache;
  engines: EngineRegistry;
  /** Queues a job in the caller's transaction: a batch's scans, and its conclusion. */
  enqueue: (trx: Kysely<Database>, kind: JobKind, key: string, options?: EnqueueOptions) => Promise<void>;
  /** Findings one scan stores at most (BULWARK_SCAN_MAX_FINDINGS); the least severe beyond it are dropped. */
  maxFindings?: number;
  /** Fault injection for restart tests: a pause after each checkout. */
  faultScanDelayMs?: number;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

/**
 * A scan batch's jobs (see core/states/batch-status.ts). The batch job plans one scan per source
 * repository and queues a job for each, so an application's repositories run on every worker at once;
 * the last scan to end queues the batch's conclusion. Every step is recorded before the next starts and
 * checks what is already done, so a job that dies midway is simply run again; every status write is a
 * guarded transition, so a finished batch is never changed and a batch is concluded once.
 */
export function createScanJobs(deps: BatchRunnerDeps): Record<'scan-batch' | 'scan' | 'scan-batch-conclude', JobHandlers> {
  return {
    'scan-batch': { run: (batchId, context) => runBatch(deps, batchId, context), giveUp: (batchId, reason) => giveUpBatch(deps, batchId, reason) },
    scan: { run: (scanId, context) => runScanJob(deps, scanId, context), giveUp: (scanId, reason) => giveUpScan(deps, scanId, reason) },
    'scan-batch-conclude': { run: (batchId) => concludeJob(deps, batchId), giveUp: (batchId, reason) => giveUpBatch(deps, batchId, reason) },
  };
}

/** The batch job: checks its scan type has an engine, then plans its scans (each queued as a job). */
export async function runBatch(deps: BatchRunnerDeps, batchId: string, _context: JobContext): Promise<void> {
  const batch = await batchById(deps.db, batchId);
  if (!batch || BATCH_STATUS.isTerminal(batch.status)) return;
  if (!(await engineOf(deps, batch))) return;
  await planScans(deps, batch, await sourceReposOfUnit(deps.db, batch.unit_id));
}

/** A scan job: one source repository of a batch, then the batch's conclusion once every scan ended. */
export async function runScanJob(deps: BatchRunnerDeps, scanId: string, context: JobContext): Promise<void> {
  const scan = await scanById(deps.db, scanId);
  if (!scan) return;
  const batch = await batchById(deps.db, scan.batch_id);
  if (!batch || BATCH_STATUS.isTerminal(batch.status)) return;
  if (!SCAN_STATUS.isTerminal(scan.status)) {
    const engine = await engineOf(deps, batch);
    if (!engine) return;
    const source = (await sourceReposOfUnit(deps.db, batch.unit_id)).find((s) => s.id === scan.source_repo_id);
    if (source) await runScan(deps, batch, engine, scan, source, context);
    else await moveScan(deps.db, scan.id, 'failed', { status_reason: 'the source repository was removed', completed_at: nowIso() });
  }
  await concludeWhenScanned(deps, batch.id);
}

/**
 * Queues the batch's conclusion when none of its scans is left running. Each scan writes its end before
 * looking, so of scans ending together at least the last one sees them all ended; the queue keeps one
 * conclusion job per batch.
 */
async function concludeWhenScanned(deps: BatchRunnerDeps, batchId: string): Promise<void> {
  const scans = await scansOfBatches(deps.db, [batchId]);
  if (scans.every((s) => SCAN_STATUS.isTerminal(s.status))) await deps.enqueue(deps.db, 'scan-batch-conclude', batchId);
}

/** The conclusion job: scanning → assessing → completed, partial_failure or failed. */
export async function concludeJob(deps: BatchRunnerDeps, batchId: string): Promise<void> {
  const batch = await batchById(deps.db, batchId);
  if (!batch || (batch.status !== 'scanning' && batch.status !== 'assessing')) return;
  const scans = await scansOfBatches(deps.db, [batch.id]);
  if (!scans.every((s) => SCAN_STATUS.isTerminal(s.status))) return; // a scan is still running; its end queues this again
  if (!(await advance(deps, batch, 'assessing'))) return;
  await assessScans(deps, batch);
  await concludeBatch(deps, batch);
}

/** The queue stopped retrying a scan: it fails, and the batch concludes without it. */
export async function giveUpScan(deps: BatchRunnerDeps, scanId: string, reason: string): Promise<void> {
  const scan = await scanById(deps.db, scanId);
  if (!scan) return;
  await moveScan(deps.db, scan.id, 'failed', { status_reason: `the scan could not be completed (${reason})`, completed_at: nowIso() });
  await concludeWhenScanned(deps, scan.batch_id);
}

/** The engine of the batch's scan type; without one the batch fails at once and returns its credit. */
export async function engineOf(deps: BatchRunnerDeps, batch: ScanBatchRow): Promise<ScanEngine | null> {
  try {
    const engine = await deps.engines.engineFor(batch.scan_type);
    if (engine) return engine;
    await failBatch(deps, batch, `The ${batch.scan_type} engine is not available on this server yet; the scan credit was returned.`);
  } catch (error) {
    if (!(error instanceof UnknownScanTypeError)) throw error;
    await failBatch(deps, batch, `This server does not know the scan type ${batch.scan_type}; the scan credit was returned.`);
  }
  return null;
}

/**
 * Moves the batch (a copy the steps share) to `to`; re-entering the status it is in is a no-op, so a
 * restarted run passes through. False when the batch has moved elsewhere (it failed meanwhile).
 */
async function advance(deps: BatchRunnerDeps, batch: ScanBatchRow, to: BatchStatus, changes: Partial<ScanBatchRow> = {}): Promise<boolean> {
  if (batch.status === to) return true;
  if (!(await moveBatch(deps.db, batch.id, to, changes))) return false;
  Object.assign(batch, changes, { status: to });
  return true;
}

/**
 * queued → creating_scans → scanning: one scan row per source repository, created once, and a job for
 * each unfinished scan queued in the same transaction (a batch with none left queues its conclusion).
 * Run again on a scanning batch, it queues what is missing. False when the batch moved elsewhere.
 */
export async function planScans(deps: BatchRunnerDeps, batch: ScanBatchRow, sources: SourceRepoRow[]): Promise<boolean> {
  if (batch.status !== 'queued' && batch.status !== 'creating_scans' && batch.status !== 'scanning') return true;
  const startedAt = batch.started_at ?? nowIso();
  if (!(await advance(deps, batch, batch.status === 'scanning' ? 'scanning' : 'creating_scans', { started_at: startedAt }))) return false;
  const now = nowIso();
  const planned = await deps.db.transaction().execute(async (trx) => {
    await insertScansOnce(
      trx,
      sources.map((source) => ({
        id: newId(),
        batch_id: batch.id,
        org_id: batch.org_id,
        unit_id: batch.unit_id,
        source_repo_id: source.id,
        repository: source.full_name,
        branch: source.default_branch,
        status: 'pending',
        status_reason: null,
        commit_sha: null,
        findings_count: null,
        assessed: 0,
        created_at: now,
        started_at: null,
        completed_at: null,
      })),
    );
    const open = (await scansOfBatches(trx, [batch.id])).filter((s) => !SCAN_STATUS.isTerminal(s.status));
    for (const scan of open) await deps.enqueue(trx, 'scan', scan.id, { group: batch.org_id });
    if (!open.length) await deps.enqueue(trx, 'scan-batch-conclude', batch.id);
    return batch.status === 'scanning' || moveBatch(trx, batch.id, 'scanning');
  });
  if (planned) batch.status = 'scanning';
  return planned;
}

/** One repository: check out, scan, ingest, complete; a failure fails this scan only. */
export async function runScan(
  deps: BatchRunnerDeps,
  batch: ScanBatchRow,
  engine: ScanEngine,
  scan: ScanRow,
  source: SourceRepoRow,
  context: JobContext,
): Promise<void> {
  const startedAt = scan.started_at ?? nowIso();
  if (!(await moveScan(deps.db, scan.id, 'cloning', { started_at: startedAt, status_reason: null }))) return;
  const checkout = await checkoutScan(deps, scan, source, context);
  if (!checkout) return;
  try {
    if (!(await moveScan(deps.db, scan.id, 'scanning', { commit_sha: checkout.commit }))) return;
    if (deps.faultScanDelayMs) await sleep(deps.faultScanDelayMs, undefined, { signal: context.signal });
    const scanned = await scanCheckout(deps, engine, scan, source, checkout, context);
    const { artifacts, warnings } = scanned;
    if (checkout.budgetWarning) warnings.unshift(checkout.budgetWarning);
    const found = withinFindingsBudget(scanned.found, deps.maxFindings, warnings);
    const renames = await renamesSincePreviousScan(deps.db, scan, batch.scan_type, checkout, context.signal);
    const stored = await ingest(deps, batch, { ...scan, started_at: startedAt, commit_sha: checkout.commit }, found, artifacts, renames);
    // A scan that saw part of the repository cannot tell a finding fixed from one left unread: it resolves none.
    const partial = warnings.some((warning) => warning.startsWith(PARTIAL_RESULT));
    await moveScan(deps.db, scan.id, 'completed', {
      findings_count: stored,
      completed_at: nowIso(),
      warnings: warnings.length ? JSON.stringify(warnings) : null,
      ...(partial ? { assessed: 1 } : {}),
    });
  } catch (error) {
    if (context.signal.aborted) throw error;
    deps.log?.('scan failed', { scan: scan.id, error: maskSecretsIn(String((error as Error)?.message)) });
    // A failed thread says why (it ran out of memory, it exited) and never what it was reading.
    const why = error instanceof EngineThreadError ? ` (${error.message})` : '';
    const reason = `the ${batch.scan_type} engine failed on this repository${why}`;
    await moveScan(deps.db, scan.id, 'failed', { status_reason: reason, completed_at: nowIso() });
  } finally {
    await checkout.dispose();
  }
}

/** At most `max` findings, the most severe kept (in the order found); what was dropped is said in `warnings`. */
export function withinFindingsBudget(found: RawFinding[], max: number | undefined, warnings: string[]): RawFinding[] {
  if (max === undefined || found.length <= max) return found;
  const rank = (finding: RawFinding) => severityRank(finding.severity);
  const kept = new Set(
    found
      .map((finding, index) => ({ finding, index }))
      .sort((a, b) => rank(a.finding) - rank(b.finding) || a.index - b.index)
      .slice(0, max)
      .map(({ finding }) => finding),
  );
  warnings.push(
    `${PARTIAL_RESULT} the scan found ${found.length} findings and stores at most ${max} (BULWARK_SCAN_MAX_FINDINGS), so the ${found.length - max} least severe were dropped and no finding was resolved`,
  );
  return found.filter((finding) => kept.has(finding));
}

/** The scan's branch checked out; undefined (with the scan failed and the reason told) when that failed. */
export async function checkoutScan(deps: BatchRunnerDeps, scan: ScanRow, source: SourceRepoRow, context: JobContext): Promise<Checkout | undefined> {
  const token = source.token_ciphertext ? deps.tokenBox.open(source.token_ciphertext) : null;
  try {
    return await deps.checkouts.checkout(
      { id: source.id, provider: source.provider, cloneUrl: source.clone_url, token },
      scan.branch,
      scan.id,
      context.signal,
    );
  } catch (error) {
    if (context.signal.aborted) throw error;
    const reason = error instanceof CheckoutError ? error.message : `checkout failed: ${scrub((error as Error).message, token ? [token] : [])}`;
    await moveScan(deps.db, scan.id, 'failed', { status_reason: reason, completed_at: nowIso() });
    return undefined;
  }
}

/** Engine progress is written to the scan at most this often, and only when it rose by at least PROGRESS_STEP. */
const PROGRESS_WRITE_MS = 2000;
const PROGRESS_STEP = 0.05;

/**
 * Records an engine's progress on its scan now and then, in the background: each write changes the scans
 * table, which tells every server its cached reads may be stale, so they are kept few.
 */
function progressRecorder(deps: BatchRunnerDeps, scanId: string): (progress: ScanProgress) => void {
  let written = 0;
  let writtenAt = 0;
  let writing = Promise.resolve();
  return (progress) => {
    const fraction = progress.overall ?? (progress.total ? (progress.done ?? 0) / progress.total : undefined);
    if (fraction === undefined || fraction < written + PROGRESS_STEP || Date.now() - writtenAt < PROGRESS_WRITE_MS) return;
    written = fraction;
    writtenAt = Date.now();
    writing = writing
      .then(() => recordAnalysisProgress(deps.db, scanId, fraction))
      .catch((error: Error) => deps.log?.('scan progress not recorded', { scan: scanId, error: error.message }));
  };
}

/** What the engine finds in the checked-out tree, the documents it produces besides, and what its reader must be warned of. */
export async function scanCheckout(
  deps: BatchRunnerDeps,
  engine: ScanEngine,
  scan: ScanRow,
  source: SourceRepoRow,
  checkout: Checkout,
  context: JobContext,
): Promise<{ found: RawFinding[]; artifacts: ScanArtifact[]; warnings: string[] }> {
  const artifacts: ScanArtifact[] = [];
  const warnings: string[] = [];
  const found = await engine.scan({
    dir: checkout.dir,
    gitDir: checkout.gitDir,
    commit: checkout.commit,
    signal: context.signal,
    fingerprintKey: deps.tokenBox.deriveKey('finding-fingerprints'),
    subject: source.full_name,
    cacheScope: scan.org_id,
    onArtifact: (artifact) => artifacts.push(artifact),
    onProgress: progressRecorder(deps, scan.id),
    onNote: (note) => deps.log?.('scan note', { scan: scan.id, repository: source.full_name, note: maskSecretsIn(note) }),
    onWarning: (warning) => {
      warnings.push(warning);
      deps.log?.('scan warning', { scan: scan.id, repository: source.full_name, warning });
    },
  });
  return { found, artifacts, warnings };
}

/**
 * Stores a scan's documents and findings, following files git saw renamed since the previous scan so
 * findings keep their identity; returns how many findings it stored.
 */
export async function ingest(
  deps: BatchRunnerDeps,
  batch: ScanBatchRow,
  scan: ScanRow,
  found: RawFinding[],
  artifacts: ScanArtifact[],
  renames: Map<string, string> = new Map(),
): Promise<number> {
  await storeArtifacts(deps.db, scan.id, artifacts);
  return ingestScanFindings(deps.db, batch, scan, found, renames);
}

/** Resolves, per completed scan, the findings it no longer sees. */
export async function assessScans(deps: BatchRunnerDeps, batch: ScanBatchRow): Promise<void> {
  const finished = await scansOfBatches(deps.db, [batch.id]);
  for (const scan of finished.filter((s) => s.status === 'completed' && s.assessed === 0)) {
    await resolveUnseenFindings(deps.db, batch, scan);
  }
}

/** assessing → completed, partial_failure or failed, by how its scans ended. */
export async function concludeBatch(deps: BatchRunnerDeps, batch: ScanBatchRow): Promise<void> {
  const finished = await scansOfBatches(deps.db, [batch.id]);
  const failed = finished.filter((s) => s.status === 'failed');
  if (!failed.length) return endBatch(deps, batch, 'completed', null);
  const reasons = failed.map((s) => `${s.repository}: ${s.status_reason ?? 'failed'}`).join('; ');
  if (failed.length === finished.length) return failBatch(deps, batch, `Every repository failed to scan. ${reasons}`);
  return endBatch(deps, batch, 'partial_failure', `${failed.length} of ${finished.length} repositories failed. ${reasons}`);
}

/** Ends the batch unless it already ended. */
async function endBatch(deps: BatchRunnerDeps, batch: ScanBatchRow, status: 'completed' | 'partial_failure', message: string | null) {
  const now = nowIso();
  await moveBatch(deps.db, batch.id, status, { error_message: message, completed_at: now, started_at: batch.started_at ?? now });
}

/**
 * Fails the batch unless it already ended; when none of its scans completed, nothing was delivered, so
 * its credit goes back (once, in the same transaction).
 */
export async function failBatch(deps: BatchRunnerDeps, batch: ScanBatchRow, message: string): Promise<void> {
  const now = nowIso();
  await deps.db.transaction().execute(async (trx) => {
    const moved = await moveBatch(trx, batch.id, 'failed', { error_message: message, completed_at: now, started_at: batch.started_at ?? now });
    if (!moved) return;
    const scans = await scansOfBatches(trx, [batch.id]);
    if (!scans.some((s) => s.status === 'completed')) await refundBatchCredit(trx, batch);
  });
}

/** The queue stopped retrying: unfinished scans and the batch fail. */
export async function giveUpBatch(deps: BatchRunnerDeps, batchId: string, reason: string): Promise<void> {
  const batch = await batchById(deps.db, batchId);
  if (!batch) return;
  await failUnfinishedScans(deps.db, batch.id, 'the scan did not finish before the worker gave up');
  await failBatch(deps, batch, `The scan could not be completed (${reason}).`);
}
