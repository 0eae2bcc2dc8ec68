import { decodeJson } from '../store/json-columns.ts';
import type { ScanBatchRow, ScanRow, SourceRepoRow } from '../store/schema.ts';
import { BATCH_STATUS } from './states/batch-status.ts';
import { SCAN_STATUS } from './states/scan-status.ts';

export interface ProgressEntry {
  repository: string;
  branch: string;
  status: string;
  status_reason: string | null;
  findings_count: number | null;
  started_at: string | null;
  completed_at: string | null;
}

export interface BatchCounters {
  total_repositories: number;
  scans_created: number;
  scans_failed: number;
  scans_completed: number;
  scans_assessed: number;
  /** What the batch's completed scans warn of (vulnerability records missing or stale), each after its repository's name. */
  warnings: string[];
}

/** Counters derived from the scan rows themselves, so they can never drift from what happened. */
export function countScans(batch: ScanBatchRow, scans: ScanRow[]): BatchCounters {
  return {
    total_repositories: batch.total_repositories,
    scans_created: scans.length,
    scans_failed: scans.filter((s) => s.status === 'failed').length,
    scans_completed: scans.filter((s) => s.status === 'completed').length,
    scans_assessed: scans.filter((s) => s.assessed === 1).length,
    warnings: [...new Set(scans.flatMap((s) => decodeJson<string[]>(s.warnings, []).map((w) => `${s.repository}: ${w}`)))],
  };
}

/**
 * How far one scan got, from facts that are written once and never taken back: a scan that finished
 * counts whole, one whose code was checked out (its commit is known) half and up to 0.95 as its engine
 * reports progress, one that started a fifth. Its
 * status alone would not do: a scan whose worker died goes from `scanning` back to `cloning`.
 */
function scanWork(scan: ScanRow): number {
  if (SCAN_STATUS.isTerminal(scan.status)) return 1;
  // Checked out, then as far as the engine has got through the tree (a value that only rises).
  if (scan.commit_sha !== null) return 0.5 + 0.45 * Math.min(1, Math.max(0, scan.analysis_progress ?? 0));
  if (scan.started_at !== null || scan.status !== 'pending') return 0.2;
  return 0;
}

/**
 * 0–100 for a progress bar. Each phase owns a band (queued 0, creating scans up to 10, scanning 10–90
 * by work per repository that no restart undoes, assessing 90–99, terminal 100), so the value only ever
 * rises, also when a worker dies and another runs the batch again.
 */
export function percentComplete(batch: ScanBatchRow, scans: ScanRow[]): number {
  if (BATCH_STATUS.isTerminal(batch.status)) return 100;
  const total = Math.max(batch.total_repositories, 1);
  if (batch.status === 'queued') return 0;
  if (batch.status === 'creating_scans') return round((10 * scans.length) / total);
  const work = scans.reduce((sum, s) => sum + scanWork(s), 0) / total;
  if (batch.status === 'scanning') return round(10 + 80 * work);
  const assessed = scans.filter((s) => s.assessed === 1).length / total;
  return round(90 + 9 * assessed);
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/** One entry per source repo: its scan when created, a pending placeholder until then. */
export function progressEntries(sources: SourceRepoRow[], scans: ScanRow[]): ProgressEntry[] {
  const entries: ProgressEntry[] = scans.map((scan) => ({
    repository: scan.repository,
    branch: scan.branch,
    status: scan.status,
    status_reason: scan.status_reason,
    findings_count: scan.findings_count,
    started_at: scan.started_at,
    completed_at: scan.completed_at,
  }));
  const covered = new Set(scans.map((s) => s.source_repo_id));
  for (const source of sources) {
    if (covered.has(source.id)) continue;
    entries.push({
      repository: source.full_name,
      branch: source.default_branch,
      status: 'pending',
      status_reason: null,
      findings_count: null,
      started_at: null,
      completed_at: null,
    });
  }
  return entries;
}
