import type { Kysely } from 'kysely';
import { renamedFiles } from '../scm/renames.ts';
import { previousScannedCommit } from '../store/scan-batches.ts';
import type { Database, ScanRow } from '../store/schema.ts';

const RENAME_DETECTION_TIMEOUT_MS = 60_000;

/**
 * Files renamed in a source repository since its previous completed scan of the same type, old path to
 * new, so findings follow their file. Empty for a first scan, and when the previous commit is no longer
 * in the mirror (a force-push) or git cannot compare the two: findings then match by path only.
 */
export async function renamesSincePreviousScan(
  db: Kysely<Database>,
  scan: ScanRow,
  scanType: string,
  checkout: { gitDir: string; commit: string },
  signal?: AbortSignal,
): Promise<Map<string, string>> {
  const previous = await previousScannedCommit(db, { sourceRepoId: scan.source_repo_id, scanType, scanId: scan.id });
  if (!previous) return new Map();
  try {
    return await renamedFiles(checkout.gitDir, previous, checkout.commit, { timeoutMs: RENAME_DETECTION_TIMEOUT_MS, signal });
  } catch {
    signal?.throwIfAborted();
    return new Map();
  }
}
