import type { Kysely } from 'kysely';
import type { CodeHostClient } from '../code-hosts/code-host.ts';
import type { TokenBox } from '../crypto/token-box.ts';
import { nowIso } from '../ids.ts';
import { startPeriodicTask, type PeriodicTask } from '../jobs/periodic-task.ts';
import { markPullRequestChecked, pullRequestsToPoll } from '../store/pull-request-states.ts';
import type { Database } from '../store/schema.ts';
import { observePullRequest } from './pull-request-lifecycle.ts';

// Where no webhook tells Bulwark what happens to its fix pull requests, a worker asks the hosts: every few
// minutes one process of all (periodic-task.ts) takes the pull requests asked about least recently, a
// bounded batch, and applies what each host says exactly as a webhook's word would be applied
// (pull-request-lifecycle.ts), so asking twice changes nothing the first answer did not.

export const PULL_REQUEST_POLL_TASK = 'pull-request-poll';
/** Pull requests asked about per run: a run stays short whatever the number of open fixes. */
const POLL_BATCH = 50;
const LEASE_MS = 10 * 60_000;

export interface PollOptions {
  tokenBox: TokenBox;
  /** A client per host name, each reading pull requests through the host's SDK. */
  clients: Record<string, Required<CodeHostClient>>;
  /** A pull request is asked about again once this long has passed since it last was. */
  everyMs: number;
  batch?: number;
  log: (message: string, fields?: Record<string, unknown>) => void;
  signal?: AbortSignal;
}

export interface PollReport {
  asked: number;
  changed: number;
  failed: number;
}

/** One round: asks the hosts about the pull requests due and applies their answers. */
export async function pollFixPullRequests(db: Kysely<Database>, options: PollOptions): Promise<PollReport> {
  const report: PollReport = { asked: 0, changed: 0, failed: 0 };
  const due = await pullRequestsToPoll(db, new Date(Date.now() - options.everyMs).toISOString(), options.batch ?? POLL_BATCH);
  for (const { pullRequest, orgId, provider, tokenCiphertext } of due) {
    if (options.signal?.aborted) break;
    const client = options.clients[provider];
    report.asked++;
    try {
      if (!client) throw new Error(`no client for the code host "${provider}"`);
      const seen = await client.pullRequestState({
        fullName: pullRequest.repo_full_name,
        number: pullRequest.pr_number,
        token: tokenCiphertext ? options.tokenBox.open(tokenCiphertext) : '',
        signal: options.signal,
      });
      const outcome = await observePullRequest(db, orgId, {
        provider,
        repoFullName: pullRequest.repo_full_name,
        number: pullRequest.pr_number,
        state: seen.state,
        url: pullRequest.pr_url || null,
        title: seen.title,
        body: seen.body,
        headSha: seen.headSha,
        mergedAt: seen.mergedAt,
        commitMessages: seen.commitMessages,
        via: 'poll',
      });
      report.changed += outcome.changed;
    } catch (error) {
      report.failed++;
      await markPullRequestChecked(db, pullRequest.id, nowIso());
      options.log('pull request poll failed', { pr_url: pullRequest.pr_url, error: (error as Error).message });
    }
  }
  return report;
}

/** The worker's poll, every `everyMs` (0: off), run by one process of all at a time. */
export function startPullRequestPoll(db: Kysely<Database>, options: PollOptions & { firstCheckMs?: number }): PeriodicTask {
  return startPeriodicTask(db, {
    name: PULL_REQUEST_POLL_TASK,
    intervalMs: options.everyMs,
    leaseMs: LEASE_MS,
    firstCheckMs: options.firstCheckMs,
    async run(signal) {
      const report = await pollFixPullRequests(db, { ...options, signal });
      if (report.asked) options.log('pull request poll finished', { ...report });
      return report.failed ? `${report.failed} of ${report.asked} pull request(s) could not be read` : null;
    },
    announce: (on) => options.log(on ? 'pull request poll on' : 'pull request poll off', { every_minutes: options.everyMs / 60_000 }),
    failed: (error) => options.log('pull request poll failed', { error: error.message }),
  });
}
