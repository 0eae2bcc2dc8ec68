import type { Kysely } from 'kysely';
import type { Database, PullRequestScansTable } from './schema.ts';

// Scans of pull requests: one per repository, pull request and head commit.

export type PullRequestScanRow = PullRequestScansTable;

/** Keeps a scan unless one of this head of this pull request exists for the unit; whether it was new. */
export async function insertPullRequestScan(db: Kysely<Database>, row: PullRequestScanRow): Promise<boolean> {
  const result = await db
    .insertInto('pull_request_scans')
    .values(row)
    .onConflict((oc) => oc.columns(['unit_id', 'pr_number', 'head_sha']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function pullRequestScanById(db: Kysely<Database>, id: string): Promise<PullRequestScanRow | undefined> {
  return db.selectFrom('pull_request_scans').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Moves a scan from one of `from` to `to` with `changes`; whether it moved. */
export async function moveScanOfPullRequest(
  db: Kysely<Database>,
  id: string,
  from: PullRequestScanRow['status'][],
  changes: Partial<PullRequestScanRow> & { status: PullRequestScanRow['status'] },
): Promise<boolean> {
  const result = await db.updateTable('pull_request_scans').set(changes).where('id', '=', id).where('status', 'in', from).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** What the last report on this pull request published, and on which head. */
export async function lastReportOf(db: Kysely<Database>, unitId: string, prNumber: number, before: string): Promise<{ head_sha: string; report: string } | undefined> {
  const row = await db
    .selectFrom('pull_request_scans')
    .select(['head_sha', 'report'])
    .where('unit_id', '=', unitId)
    .where('pr_number', '=', prNumber)
    .where('report', 'is not', null)
    .where('created_at', '<=', before)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row?.report ? { head_sha: row.head_sha, report: row.report } : undefined;
}

/** The commit the source repository's newest completed scan read: the base a pull request is compared with. */
export async function lastScannedCommit(db: Kysely<Database>, sourceRepoId: string): Promise<string | null> {
  const row = await db
    .selectFrom('scans')
    .select('commit_sha')
    .where('source_repo_id', '=', sourceRepoId)
    .where('status', '=', 'completed')
    .where('commit_sha', 'is not', null)
    .orderBy('completed_at', 'desc')
    .executeTakeFirst();
  return row?.commit_sha ?? null;
}
