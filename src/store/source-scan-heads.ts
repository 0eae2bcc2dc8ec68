import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

// All SQL on `source_scan_heads`: per source repository and scan type, the newest scan ingested.

export interface SourceScanHead {
  scanId: string | null;
  scanStartedAt: string | null;
}

/**
 * Locks the head of a source repository and scan type for the rest of the transaction `trx` and returns
 * it. The first statement is a write (an upsert that changes nothing of a row that exists), so a second
 * transaction on the same source waits here until the first commits: the row stays locked on PostgreSQL,
 * and SQLite holds its one write lock, taken before anything is read.
 */
export async function lockSourceScanHead(trx: Kysely<Database>, sourceRepoId: string, scanType: string, at: string): Promise<SourceScanHead> {
  await trx
    .insertInto('source_scan_heads')
    .values({ source_repo_id: sourceRepoId, scan_type: scanType, scan_id: null, scan_started_at: null, updated_at: at })
    .onConflict((oc) => oc.columns(['source_repo_id', 'scan_type']).doUpdateSet((eb) => ({ updated_at: eb.ref('source_scan_heads.updated_at') })))
    .execute();
  const row = await trx
    .selectFrom('source_scan_heads')
    .select(['scan_id', 'scan_started_at'])
    .where('source_repo_id', '=', sourceRepoId)
    .where('scan_type', '=', scanType)
    .executeTakeFirstOrThrow();
  return { scanId: row.scan_id, scanStartedAt: row.scan_started_at };
}

/** Records `scanId` as the newest scan ingested for the source repository and scan type. */
export async function setSourceScanHead(
  trx: Kysely<Database>,
  sourceRepoId: string,
  scanType: string,
  head: { scanId: string; scanStartedAt: string },
  at: string,
): Promise<void> {
  await trx
    .updateTable('source_scan_heads')
    .set({ scan_id: head.scanId, scan_started_at: head.scanStartedAt, updated_at: at })
    .where('source_repo_id', '=', sourceRepoId)
    .where('scan_type', '=', scanType)
    .execute();
}
