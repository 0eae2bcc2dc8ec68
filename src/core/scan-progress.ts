import type { ScanBatchRow, ScanRow, SourceRepoRow } from '../store/schema.ts';
import { BATCH_STATUS } from './states/batch-status.ts';
import type { ScanStatus } from './states/scan-status.ts';

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
}

/** Counters derived from the scan rows themselves, so they can never drift from what happened. */
export function countScans(batch: ScanBatchRow, scans: ScanRow[]): BatchCounters {
  return {
    total_repositories: batch.total_repositories,
    scans_created: scans.length,
    scans_failed: scans.filter((s) => s.status === 'failed').length,
    scans_completed: scans.filter((s) => s.status === 'completed').length,
    scans_assessed: scans.filter((s) => s.assessed === 1).length,
  };
}

const SCAN_WEIGHT: Record<ScanStatus, number> = { pending: 0, cloning: 0.2, scanning: 0.5, completed: 1, failed: 1 };

/**
 * 0–100 for a progress bar. Each phase owns a band (queued 0, creating scans up to 10, scanning 10–90
 * by finished work per repository, assessing 90–99, terminal 100), so the value only ever rises.
 */
export function percentComplete(batch: ScanBatchRow, scans: ScanRow[]): number {
  if (BATCH_STATUS.isTerminal(batch.status)) return 100;
  const total = Math.max(batch.total_repositories, 1);
  if (batch.status === 'queued') return 0;
  if (batch.status === 'creating_scans') return round((10 * scans.length) / total);
  const work = scans.reduce((sum, s) => sum + (SCAN_WEIGHT[s.status] ?? 0), 0) / total;
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
