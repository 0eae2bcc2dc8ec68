import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { ingestScanFindings, resolveUnseenFindings } from '../core/finding-ingest.ts';
import { refundCredit, type QuotaType } from '../core/quotas.ts';
import { FINISHED_SCAN_STATUSES, TERMINAL_BATCH_STATUSES, type ScanType } from '../core/scan-types.ts';
import type { TokenBox } from '../crypto/token-box.ts';
import type { ScanArtifact } from '../engines/engine.ts';
import type { EngineRegistry } from '../engines/registry.ts';
import { storeArtifacts } from './artifacts.ts';
import { renamesSincePreviousScan } from './finding-renames.ts';
import { newId, nowIso } from '../ids.ts';
import type { JobContext, JobHandlers } from '../jobs/queue.ts';
import { CheckoutError, type CheckoutCache } from '../scm/checkout-cache.ts';
import { scrub } from '../scm/git-command.ts';
import type { Database, ScanBatchRow, ScanRow, SourceRepoRow } from '../store/schema.ts';

export interface BatchRunnerDeps {
  db: Kysely<Database>;
  tokenBox: TokenBox;
  checkouts: CheckoutCache;
  engines: EngineRegistry;
  /** Fault injection for restart tests: a pause after each checkout. */
  faultScanDelayMs?: number;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

/** Scans of one batch run a few at a time, so an application with many repositories makes progress on several. */
const SCANS_IN_PARALLEL = 2;

/**
 * Runs a scan batch through its lifecycle: queued → creating_scans → scanning → assessing →
 * completed | partial_failure | failed. Every step is recorded before the next starts and each step
 * checks what is already done, so a run that dies midway is simply run again.
 */
export function createBatchRunner(deps: BatchRunnerDeps): JobHandlers {
  const { db } = deps;
  const fingerprintKey = deps.tokenBox.deriveKey('finding-fingerprints');

  const setBatch = (batch: ScanBatchRow, changes: Partial<ScanBatchRow>) =>
    db.updateTable('scan_batches').set({ ...changes, updated_at: nowIso() }).where('id', '=', batch.id).execute();

  const setScan = (scan: ScanRow, changes: Partial<ScanRow>) => db.updateTable('scans').set(changes).where('id', '=', scan.id).execute();

  async function finish(batch: ScanBatchRow, status: string, errorMessage: string | null) {
    const now = nowIso();
    await db
      .updateTable('scan_batches')
      .set({ status, error_message: errorMessage, completed_at: now, updated_at: now, started_at: batch.started_at ?? now })
      .where('id', '=', batch.id)
      .where('status', 'not in', TERMINAL_BATCH_STATUSES)
      .execute();
  }

  async function createScans(batch: ScanBatchRow, sources: SourceRepoRow[]) {
    const now = nowIso();
    for (const source of sources) {
      await db
        .insertInto('scans')
        .values({
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
        })
        .onConflict((oc) => oc.columns(['batch_id', 'source_repo_id']).doNothing())
        .execute();
    }
  }

  async function runScan(batch: ScanBatchRow, scan: ScanRow, source: SourceRepoRow, context: JobContext) {
    const engine = deps.engines[batch.scan_type as ScanType]!;
    const token = source.token_ciphertext ? deps.tokenBox.open(source.token_ciphertext) : null;
    await setScan(scan, { status: 'cloning', started_at: scan.started_at ?? nowIso(), status_reason: null });
    let checkout;
    try {
      checkout = await deps.checkouts.checkout(
        { id: source.id, provider: source.provider, cloneUrl: source.clone_url, token },
        scan.branch,
        scan.id,
        context.signal,
      );
    } catch (error) {
      if (context.signal.aborted) throw error;
      const reason = error instanceof CheckoutError ? error.message : `checkout failed: ${scrub((error as Error).message, token ? [token] : [])}`;
      await setScan(scan, { status: 'failed', status_reason: reason, completed_at: nowIso() });
      return;
    }
    try {
      await setScan(scan, { status: 'scanning', commit_sha: checkout.commit });
      if (deps.faultScanDelayMs) await sleep(deps.faultScanDelayMs, undefined, { signal: context.signal });
      const artifacts: ScanArtifact[] = [];
      const found = await engine.scan({
        dir: checkout.dir,
        gitDir: checkout.gitDir,
        commit: checkout.commit,
        signal: context.signal,
        fingerprintKey,
        subject: source.full_name,
        onArtifact: (artifact) => artifacts.push(artifact),
        onNote: (note) => deps.log?.('scan note', { scan: scan.id, repository: source.full_name, note }),
      });
      await storeArtifacts(db, scan.id, artifacts);
      const renames = await renamesSincePreviousScan(db, scan, batch.scan_type, checkout, context.signal);
      const stored = await ingestScanFindings(db, batch, { ...scan, commit_sha: checkout.commit }, found, renames);
      await setScan(scan, { status: 'completed', findings_count: stored, completed_at: nowIso() });
    } catch (error) {
      if (context.signal.aborted) throw error;
      deps.log?.('scan failed', { scan: scan.id, error: (error as Error).message });
      await setScan(scan, { status: 'failed', status_reason: `the ${batch.scan_type} engine failed on this repository`, completed_at: nowIso() });
    } finally {
      await checkout.dispose();
    }
  }

  async function run(batchId: string, context: JobContext): Promise<void> {
    let batch = await db.selectFrom('scan_batches').selectAll().where('id', '=', batchId).executeTakeFirst();
    if (!batch || TERMINAL_BATCH_STATUSES.includes(batch.status)) return;
    if (!deps.engines[batch.scan_type as ScanType]) {
      await finish(batch, 'failed', `The ${batch.scan_type} engine is not available on this server yet; the scan credit was returned.`);
      await refundCredit(db, batch.org_id, batch.quota_type as QuotaType, batch.quota_period_start);
      return;
    }
    const sources = await db.selectFrom('source_repos').selectAll().where('unit_id', '=', batch.unit_id).orderBy('position').execute();
    if (batch.status === 'queued') {
      await setBatch(batch, { status: 'creating_scans', started_at: batch.started_at ?? nowIso() });
      await createScans(batch, sources);
    } else if (batch.status === 'creating_scans') {
      await createScans(batch, sources);
    }
    if (batch.status !== 'assessing') {
      batch = { ...batch, status: 'scanning', started_at: batch.started_at ?? nowIso() };
      await setBatch(batch, { status: 'scanning', started_at: batch.started_at });
    }

    const scans = await db.selectFrom('scans').selectAll().where('batch_id', '=', batch.id).orderBy('created_at').orderBy('id').execute();
    const todo = scans.filter((s) => !FINISHED_SCAN_STATUSES.includes(s.status));
    const workers = Array.from({ length: Math.min(SCANS_IN_PARALLEL, todo.length) }, async () => {
      for (let scan = todo.shift(); scan; scan = todo.shift()) {
        const source = sources.find((s) => s.id === scan.source_repo_id);
        if (!source) {
          await setScan(scan, { status: 'failed', status_reason: 'the source repository was removed', completed_at: nowIso() });
          continue;
        }
        await runScan(batch!, scan, source, context);
      }
    });
    await Promise.all(workers);

    await setBatch(batch, { status: 'assessing' });
    const finished = await db.selectFrom('scans').selectAll().where('batch_id', '=', batch.id).execute();
    for (const scan of finished.filter((s) => s.status === 'completed' && s.assessed === 0)) {
      await resolveUnseenFindings(db, batch, scan);
    }
    const failed = finished.filter((s) => s.status === 'failed');
    if (!failed.length) return finish(batch, 'completed', null);
    const reasons = failed.map((s) => `${s.repository}: ${s.status_reason ?? 'failed'}`).join('; ');
    if (failed.length === finished.length) return finish(batch, 'failed', `Every repository failed to scan. ${reasons}`);
    return finish(batch, 'partial_failure', `${failed.length} of ${finished.length} repositories failed. ${reasons}`);
  }

  return {
    run,
    async giveUp(batchId, reason) {
      const batch = await db.selectFrom('scan_batches').selectAll().where('id', '=', batchId).executeTakeFirst();
      if (!batch) return;
      const now = nowIso();
      await db
        .updateTable('scans')
        .set({ status: 'failed', status_reason: 'the scan did not finish before the worker gave up', completed_at: now })
        .where('batch_id', '=', batch.id)
        .where('status', 'not in', FINISHED_SCAN_STATUSES)
        .execute();
      await finish(batch, 'failed', `The scan could not be completed (${reason}).`);
    },
  };
}
