import type { Kysely } from 'kysely';
import { nowIso } from '../ids.ts';
import { findingsOfFix } from '../store/fixes.ts';
import { writeFindingState } from '../store/findings.ts';
import { findFixPullRequests, findingsOfRepository, savePullRequestState } from '../store/pull-request-states.ts';
import type { Database, FindingRow } from '../store/schema.ts';
import { fixReport } from './fixes.ts';
import { recordEvent, type EventType } from './finding-events.ts';
import { stateOf } from './states/finding-state.ts';
import { maskSecretsIn } from '../scanning/secrets/mask-text.ts';

// What happens to findings when a code host says something about a pull request, whether a webhook said it
// or a poll asked (the two call the same function, and saying the same thing twice changes nothing):
// - a fix pull request that was closed, reopened, retitled, pushed to or merged: `fix_pr_updated` on each of
//   the fix's findings, with what changed;
// - a fix pull request merged: the findings the fix fixed become resolved with `resolved_pr_merged` (the next
//   scan of the branch confirms it, or reopens one it still sees);
// - any merged pull request of a repository that names findings (`Fixes bulwark:<finding id>` in its
//   description or commits): those findings of that repository become resolved with `resolved_pr_linked`.
// A decision a person made (ignored, false positive) stands; only open and needs-review findings move.

export type PullRequestHostState = 'open' | 'closed' | 'merged';

/** What a code host says about one pull request now. */
export interface PullRequestObservation {
  /** The code host's name as stored with a source (`github`, `gitlab`, `azure_devops`). */
  provider: string;
  /** The repository's full name in the host's form. */
  repoFullName: string;
  number: number;
  state: PullRequestHostState;
  /** The page a person opens, when the host said. */
  url: string | null;
  title: string | null;
  body: string;
  headSha: string | null;
  mergedAt: string | null;
  commitMessages: string[];
  /** How Bulwark learned it. */
  via: 'webhook' | 'poll';
}

export interface ObservationOutcome {
  /** Bulwark's own fix pull requests the observation is about. */
  fixPullRequests: number;
  /** Of those, how many it changed. */
  changed: number;
  resolvedByMerge: number;
  resolvedByLink: number;
}

/** Findings a description or commit message names, as `Fixes bulwark:<id>` (also fix, fixed, closes, resolves, …). */
const LINK = /\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\s*:?\s+bulwark:([A-Za-z0-9_-]{6,64})\b/gi;
/** A pull request naming more findings than this is read for its first ones only. */
const MAX_LINKED = 200;

export function linkedFindingIds(texts: string[]): string[] {
  const ids = new Set<string>();
  for (const text of texts) {
    for (const match of text.matchAll(LINK)) {
      ids.add(match[1]);
      if (ids.size >= MAX_LINKED) return [...ids];
    }
  }
  return [...ids];
}

type Change = 'merged' | 'closed' | 'reopened' | 'retitled' | 'pushed';

function changesBetween(before: { state: PullRequestHostState; title: string | null; head_sha: string | null }, seen: PullRequestObservation): Change[] {
  const changes: Change[] = [];
  if (before.state !== seen.state) changes.push(seen.state === 'merged' ? 'merged' : seen.state === 'closed' ? 'closed' : 'reopened');
  // The first look records the title and head; only a later difference is a change.
  if (seen.title !== null && before.title !== null && before.title !== seen.title) changes.push('retitled');
  if (seen.headSha && before.head_sha && before.head_sha !== seen.headSha) changes.push('pushed');
  return changes;
}

/** Resolves a finding that is open or awaiting review, with one event of the given kind; false when it stays. */
async function resolveWith(trx: Kysely<Database>, finding: FindingRow, eventType: EventType, metadata: Record<string, unknown>, at: string): Promise<boolean> {
  if (finding.status !== 'open' && finding.status !== 'needs_manual_review') return false;
  const before = stateOf(finding);
  const written = await writeFindingState(trx, { ...finding, from: before }, { verdict: before.verdict, triage: 'resolved' }, at);
  if (!written || written.status !== 'resolved') return false;
  await recordEvent(trx, { finding: { ...finding, ...written }, eventType, previousStatus: finding.status, newStatus: 'resolved', metadata, at });
  return true;
}

/** Applies what a code host says about a pull request to the organization's fixes and findings. */
export async function observePullRequest(db: Kysely<Database>, orgId: string, observed: PullRequestObservation, at = nowIso()): Promise<ObservationOutcome> {
  // A title may quote anything: it is kept and compared masked.
  const seen = { ...observed, title: observed.title === null ? null : maskSecretsIn(observed.title) };
  return db.transaction().execute(async (trx) => {
    const outcome: ObservationOutcome = { fixPullRequests: 0, changed: 0, resolvedByMerge: 0, resolvedByLink: 0 };
    const resolved = new Set<string>();
    let newlyMerged = false;
    for (const pr of await findFixPullRequests(trx, orgId, seen.provider, seen.repoFullName, seen.number)) {
      outcome.fixPullRequests++;
      const before = pr.state ?? { state: 'open' as const, title: null, head_sha: null };
      // A merge is final on every host: a later word otherwise is an old delivery arriving late (or replayed).
      if (before.state === 'merged') continue;
      const changes = changesBetween(before, seen);
      await savePullRequestState(trx, pr.pullRequest, { state: seen.state, title: seen.title ?? before.title, head_sha: seen.headSha ?? before.head_sha, checked_at: at }, seen.state === 'merged' ? (seen.mergedAt ?? at) : null);
      if (!changes.length) continue;
      outcome.changed++;
      const findings = await findingsOfFix(trx, pr.pullRequest.fix_id);
      const about = { fix_id: pr.pullRequest.fix_id, pr_url: pr.pullRequest.pr_url, pr_number: pr.pullRequest.pr_number, via: seen.via };
      for (const finding of findings) {
        await recordEvent(trx, { finding, eventType: 'fix_pr_updated', metadata: { ...about, changes, state: seen.state, title: seen.title, head_sha: seen.headSha }, at });
      }
      if (!changes.includes('merged')) continue;
      newlyMerged = true;
      const notFixed = new Set(fixReport(pr.fix).outcomes.filter((o) => !o.fixed).map((o) => o.finding_id));
      for (const finding of findings) {
        if (notFixed.has(finding.id) || resolved.has(finding.id)) continue;
        const merged = { ...about, merged_at: seen.mergedAt ?? at };
        if (await resolveWith(trx, finding, 'resolved_pr_merged', merged, at)) {
          resolved.add(finding.id);
          outcome.resolvedByMerge++;
        }
      }
    }
    // A fix pull request merged before (a repeated delivery) links nothing again; any other merged one may.
    if (seen.state === 'merged' && (newlyMerged || outcome.fixPullRequests === 0)) {
      const ids = linkedFindingIds([observed.title ?? '', seen.body, ...seen.commitMessages]).filter((id) => !resolved.has(id));
      const linked = { pr_url: seen.url, pr_number: seen.number, repository: seen.repoFullName, via: seen.via, merged_at: seen.mergedAt ?? at };
      for (const finding of await findingsOfRepository(trx, orgId, seen.provider, seen.repoFullName, ids)) {
        if (await resolveWith(trx, finding, 'resolved_pr_linked', linked, at)) outcome.resolvedByLink++;
      }
    }
    return outcome;
  });
}
