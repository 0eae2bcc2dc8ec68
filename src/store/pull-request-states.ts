import { sql, type Kysely } from 'kysely';
import type { Database, FindingRow, FixPullRequestRow, FixPullRequestStatesTable, FixRow } from './schema.ts';

// What code hosts last said about fix pull requests (fix_pull_request_states), and the lookups a report
// from a host needs: the fix pull requests it is about, and the findings of the repository it names.

export type StoredPullRequestState = Pick<FixPullRequestStatesTable, 'state' | 'title' | 'head_sha'>;

export interface FixPullRequest {
  pullRequest: FixPullRequestRow;
  fix: FixRow;
  /** What the host last said; null when nothing was heard since it was opened. */
  state: StoredPullRequestState | null;
}

/** Host repository names compare without case: GitHub, GitLab and Azure DevOps all treat them so. */
const sameName = (column: string, name: string) => sql<boolean>`lower(${sql.ref(column)}) = ${name.toLowerCase()}`;

/** The organization's fix pull requests with this number on this host's repository. */
export async function findFixPullRequests(db: Kysely<Database>, orgId: string, provider: string, repoFullName: string, number: number): Promise<FixPullRequest[]> {
  const rows = await db
    .selectFrom('fix_pull_requests as pr')
    .innerJoin('fixes', 'fixes.id', 'pr.fix_id')
    .leftJoin('fix_pull_request_states as s', 's.pull_request_id', 'pr.id')
    .selectAll('pr')
    .select(['s.state as seen_state', 's.title as seen_title', 's.head_sha as seen_head_sha'])
    .where('fixes.org_id', '=', orgId)
    .where('fixes.source_repo_provider', '=', provider)
    .where('pr.pr_number', '=', number)
    .where(sameName('pr.repo_full_name', repoFullName))
    .execute();
  if (!rows.length) return [];
  const fixes = await db.selectFrom('fixes').selectAll().where('id', 'in', [...new Set(rows.map((r) => r.fix_id))]).execute();
  const fixById = new Map(fixes.map((f) => [f.id, f]));
  return rows.map(({ seen_state, seen_title, seen_head_sha, ...pullRequest }) => ({
    pullRequest,
    fix: fixById.get(pullRequest.fix_id)!,
    state: seen_state ? { state: seen_state, title: seen_title, head_sha: seen_head_sha } : null,
  }));
}

/** Keeps what the host said; a merge also dates the pull request's `merged_at`, once. */
export async function savePullRequestState(
  db: Kysely<Database>,
  pr: FixPullRequestRow,
  state: StoredPullRequestState & { checked_at: string },
  mergedAt: string | null,
): Promise<void> {
  await db
    .insertInto('fix_pull_request_states')
    .values({ pull_request_id: pr.id, ...state })
    .onConflict((oc) => oc.column('pull_request_id').doUpdateSet(state))
    .execute();
  if (mergedAt && !pr.merged_at) {
    await db.updateTable('fix_pull_requests').set({ merged_at: mergedAt, merge_status: 'merged' }).where('id', '=', pr.id).where('merged_at', 'is', null).execute();
  }
}

/** Of `ids`, the organization's findings that belong to this host's repository (in any unit holding it). */
export async function findingsOfRepository(db: Kysely<Database>, orgId: string, provider: string, repoFullName: string, ids: string[]): Promise<FindingRow[]> {
  if (!ids.length) return [];
  return db
    .selectFrom('findings')
    .innerJoin('source_repos', 'source_repos.id', 'findings.source_repo_id')
    .selectAll('findings')
    .where('findings.org_id', '=', orgId)
    .where('findings.id', 'in', ids)
    .where('source_repos.provider', '=', provider)
    .where(sameName('source_repos.full_name', repoFullName))
    .execute();
}
