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

/** A fix pull request the poll asks its host about, with what asking needs. */
export interface PullRequestToPoll {
  pullRequest: FixPullRequestRow;
  orgId: string;
  provider: string;
  /** The sealed access token of the repository it is on, when one is stored. */
  tokenCiphertext: string | null;
}

/**
 * Fix pull requests not merged yet (open, or closed and perhaps reopened) whose host was last asked before
 * `checkedBefore`, least recently asked first, at most `limit`: those of repositories a webhook of their
 * organization already delivers for are left out, as the webhook tells their changes.
 */
export async function pullRequestsToPoll(db: Kysely<Database>, checkedBefore: string, limit: number): Promise<PullRequestToPoll[]> {
  const rows = await db
    .selectFrom('fix_pull_requests as pr')
    .innerJoin('fixes', 'fixes.id', 'pr.fix_id')
    .leftJoin('fix_pull_request_states as s', 's.pull_request_id', 'pr.id')
    .selectAll('pr')
    .select(['fixes.org_id', 'fixes.unit_id', 'fixes.source_repo_provider'])
    .select((eb) =>
      eb
        .selectFrom('source_repos')
        .select('source_repos.token_ciphertext')
        .whereRef('source_repos.unit_id', '=', 'fixes.unit_id')
        .whereRef('source_repos.provider', '=', 'fixes.source_repo_provider')
        .where(sql<boolean>`lower(source_repos.full_name) = lower(pr.repo_full_name)`)
        .limit(1)
        .as('token_ciphertext'),
    )
    .where('fixes.source_repo_provider', 'is not', null)
    .where((eb) => eb.or([eb('s.state', 'is', null), eb('s.state', '!=', 'merged')]))
    .where((eb) => eb.or([eb('s.checked_at', 'is', null), eb('s.checked_at', '<', checkedBefore)]))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('code_host_webhooks as h')
            .select('h.id')
            .whereRef('h.org_id', '=', 'fixes.org_id')
            .whereRef('h.provider', '=', 'fixes.source_repo_provider')
            .where('h.last_delivery_at', 'is not', null)
            .where((w) => w.or([w('h.unit_id', 'is', null), w('h.unit_id', '=', w.ref('fixes.unit_id'))])),
        ),
      ),
    )
    .orderBy(sql`coalesce(s.checked_at, '')`)
    .orderBy('pr.id')
    .limit(limit)
    .execute();
  return rows.map(({ org_id, unit_id: _unit, source_repo_provider, token_ciphertext, ...pullRequest }) => ({
    pullRequest,
    orgId: org_id,
    provider: source_repo_provider!,
    tokenCiphertext: token_ciphertext ?? null,
  }));
}

/** Notes that the host was asked (and could not answer), so the poll moves on to the others. */
export async function markPullRequestChecked(db: Kysely<Database>, pullRequestId: string, at: string): Promise<void> {
  await db
    .insertInto('fix_pull_request_states')
    .values({ pull_request_id: pullRequestId, state: 'open', title: null, head_sha: null, checked_at: at })
    .onConflict((oc) => oc.column('pull_request_id').doUpdateSet({ checked_at: at }))
    .execute();
}
