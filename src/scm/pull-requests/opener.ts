import type { CodeHostSettings } from '../../config.ts';
import { BodyValueError } from '../../core/errors.ts';
import { fixReport, type FixView, type PullRequestInput, type PullRequestOpener } from '../../core/fixes.ts';
import { BranchExistsError, PullRequestError, PullRequestTokenError, type PullRequestStage } from '../../core/pull-request-errors.ts';
import type { Unit } from '../../core/units.ts';
import type { TokenBox } from '../../crypto/token-box.ts';
import type { FindingRow, FixPullRequestRow } from '../../store/schema.ts';
import type { CheckoutCache } from '../checkout-cache.ts';
import { scrub } from '../git-command.ts';
import { commitMessage, pullRequestBody, pullRequestTitle, type PullRequestContent } from './body.ts';
import { defaultBranchName, InvalidBranchNameError, validateBranchName } from './branch-name.ts';
import { webUrl } from '../../web-url.ts';
import { gitRefusedToken, hostRefusedToken, lazyCodeHostClient, providerLabel, type CodeHostClient } from './code-host.ts';
import { FixBranchError, pushFixBranch, type CommitIdentity, type FixBranch } from './fix-branch.ts';

export interface PullRequestOpenerDeps {
  /** The fix's findings, in the order given, for the pull request's title and body. */
  findings: (findingIds: string[]) => Promise<FindingRow[]>;
  tokenBox: TokenBox;
  checkouts: CheckoutCache;
  codeHosts: CodeHostSettings;
  /** Author and committer of fix commits; `Bulwark <bulwark@localhost>` by default. */
  identity?: CommitIdentity;
  /** Longest a code host's API call may take. */
  apiTimeoutMs?: number;
  /** Longest a git command (apply, commit, push) may take. */
  gitTimeoutMs?: number;
  /** Longest the whole attempt (checkout, commit, push, API call) may take; 300 seconds by default. */
  deadlineMs?: number;
  /** Clients that replace the SDK-backed ones built from `codeHosts`, by provider. */
  clients?: Partial<Record<string, CodeHostClient>>;
}

/** One SDK-backed client per supported provider, pointed at the configured API roots. */
export function codeHostClients(settings: CodeHostSettings, timeoutMs?: number): Record<string, CodeHostClient> {
  return {
    github: lazyCodeHostClient('github', async () => (await import('./github.ts')).gitHubClient({ apiUrl: settings.githubApiUrl, timeoutMs })),
    gitlab: lazyCodeHostClient('gitlab', async () => (await import('./gitlab.ts')).gitLabClient({ url: settings.gitlabUrl, timeoutMs })),
    azure_devops: lazyCodeHostClient('azure_devops', async () =>
      (await import('./azure-devops.ts')).azureDevOpsClient({ url: settings.azureDevOpsUrl, timeoutMs }),
    ),
  };
}

export const DEFAULT_PULL_REQUEST_DEADLINE_MS = 300_000;

function secondsText(ms: number): string {
  const seconds = ms / 1000;
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** Why the deadline passed, by the step the attempt had reached. */
function deadlineMessage(ms: number, stage: PullRequestStage, branch: string, where: string): string {
  const doing =
    stage === 'pull_request'
      ? `branch "${branch}" is on the ${where}, but the code host did not answer the request to open the pull request`
      : stage === 'push'
        ? `it was still pushing branch "${branch}" to the ${where}`
        : `it was still preparing branch "${branch}" for the ${where}`;
  return `Opening the pull request did not finish within ${secondsText(ms)}: ${doing}. Try again; the same branch_name reuses the branch once it is pushed`;
}

/** The caller's branch name, checked as git checks one, or the default for the fix. */
async function branchFor(fixId: string, requested: string | null | undefined): Promise<string> {
  if (requested === null || requested === undefined || requested === '') return defaultBranchName(fixId);
  try {
    return await validateBranchName(requested);
  } catch (error) {
    if (error instanceof InvalidBranchNameError) throw new BodyValueError(['body', 'branch_name'], `Value error, ${error.message}`, requested);
    throw error;
  }
}

/**
 * Turns a completed fix into a pull request on its source repository's code host: the fix's diff is
 * committed on a new branch at the fix's base commit, pushed with the source's token, and a pull request
 * (merge request) is opened from it through the host's SDK. A retry with the same branch reuses a branch
 * an earlier attempt pushed.
 *
 * Refusals: an invalid `branch_name` is a `BodyValueError` (422); a branch that already exists with other
 * content is a `BranchExistsError` (nothing changed); no usable stored token, or a token the host refuses
 * (git's authentication failure, an API answer of 401 or 403), is a `PullRequestTokenError` (nothing is
 * pushed without a token); every other failure is a `PullRequestError` whose
 * message says what happened, including when the branch was pushed but the pull request was not opened,
 * and when the whole attempt ran past `deadlineMs` (`timedOut`: the attempt's git commands and API call
 * are aborted). No message contains a token.
 */
export function createPullRequestOpener(deps: PullRequestOpenerDeps): PullRequestOpener {
  const clients: Record<string, CodeHostClient | undefined> = { ...codeHostClients(deps.codeHosts, deps.apiTimeoutMs), ...deps.clients };
  const deadlineMs = deps.deadlineMs ?? DEFAULT_PULL_REQUEST_DEADLINE_MS;

  return {
    async open(view: FixView, unit: Unit, input: PullRequestInput): Promise<Omit<FixPullRequestRow, 'id' | 'fix_id'>[]> {
      const { fix } = view;
      const provider = fix.source_repo_provider ?? 'github';
      const setupFailure = (message: string) => new PullRequestError(message, { stage: 'setup', provider });
      const source = unit.sources.find((s) => s.full_name === fix.source_repo && s.provider === provider);
      if (!source) throw setupFailure(`The fix's ${provider} repository "${fix.source_repo}" is no longer one of its sources`);
      if (!fix.diff) throw setupFailure('This fix produced no changes, so there is nothing to open a pull request for');
      const branch = await branchFor(fix.id, input.branch_name);
      const where = `${providerLabel(provider)} repository ${source.full_name}`;

      const client = clients[provider];
      if (!client) throw setupFailure(`Pull requests cannot be opened on ${provider} repositories`);
      const tokenMissing = (message: string) => new PullRequestTokenError('missing', message, { provider });
      if (!source.token_ciphertext) {
        throw tokenMissing(
          `No access token is stored for the ${where}; opening a pull request needs one that can push branches and open pull requests. ` +
            'Store one (console: the repository\'s page; CLI: bulwark repo token set) and try again',
        );
      }
      let token: string;
      try {
        token = deps.tokenBox.open(source.token_ciphertext);
      } catch {
        throw tokenMissing(`The access token stored for the ${where} cannot be decrypted (was BULWARK_ENCRYPTION_KEY changed?); store the token again`);
      }

      // The deadline covers everything that talks to the code host; when it passes, the attempt's git
      // commands and API call are aborted and the caller gets a timed-out PullRequestError at once.
      const attempt = new AbortController();
      let stage: PullRequestStage = 'checkout';
      const expired = new Promise<never>((_, reject) => {
        attempt.signal.addEventListener('abort', () =>
          reject(new PullRequestError(deadlineMessage(deadlineMs, stage, branch, where), { stage, provider, branchPushed: stage === 'pull_request', timedOut: true })),
        );
      });
      const timer = setTimeout(() => attempt.abort(), deadlineMs);

      const work = async (): Promise<Omit<FixPullRequestRow, 'id' | 'fix_id'>[]> => {
        const content: PullRequestContent = {
          fix,
          findings: await deps.findings(view.findingIds),
          verification: fix.verification ?? null,
          notes: fixReport(fix).notes,
          notFixed: fixReport(fix)
            .outcomes.filter((o) => !o.fixed)
            .map((o) => ({ findingId: o.finding_id, detail: o.detail })),
        };
        const title = input.title?.trim() || pullRequestTitle(content);
        const body = input.body?.trim() ? input.body : pullRequestBody(content);
        const baseBranch = fix.source_scan_branch ?? source.default_branch;

        let pushed: FixBranch;
        try {
          pushed = await pushFixBranch(deps.checkouts, {
            source: { id: source.id, provider, cloneUrl: source.clone_url, token },
            baseCommit: fix.source_base_commit_sha,
            baseBranch,
            diff: fix.diff_ciphertext ? deps.tokenBox.open(fix.diff_ciphertext) : fix.diff!,
            branch,
            message: commitMessage(title, content),
            identity: deps.identity,
            timeoutMs: deps.gitTimeoutMs,
            signal: attempt.signal,
            onPushing: () => {
              stage = 'push';
            },
          });
        } catch (error) {
          if (!(error instanceof FixBranchError)) throw error;
          if (error.failure === 'branch_exists') throw new BranchExistsError(branch, `the ${where}`);
          const failed = error.failure === 'checkout' ? 'checkout' : error.failure === 'patch' ? 'patch' : 'push';
          const what = failed === 'push' ? `Could not push branch "${branch}" to the ${where}` : `Could not prepare branch "${branch}" for the ${where}`;
          const message = `${what}: ${scrub(error.message, [token])}`;
          if (failed !== 'patch' && gitRefusedToken(error.message)) {
            throw new PullRequestTokenError('rejected', `${message}. The access token was refused; store one that can push branches and try again`, { provider });
          }
          throw new PullRequestError(message, { stage: failed, provider });
        }
        stage = 'pull_request';
        attempt.signal.throwIfAborted();

        let opened;
        try {
          opened = await client.openPullRequest({ fullName: source.full_name, baseBranch, branch, title, body, token, signal: attempt.signal });
        } catch (error) {
          const reason = scrub(error instanceof Error ? error.message : String(error), [token]);
          const status = error instanceof PullRequestError ? error.status : null;
          const state = pushed.reused ? 'is on' : 'was pushed to';
          const message = `Branch "${branch}" ${state} the ${where}, but the pull request could not be opened: ${reason}`;
          if (status !== null && hostRefusedToken(status, reason)) {
            throw new PullRequestTokenError('rejected', `${message}. Store a token that can open pull requests and try again with the same branch_name`, {
              provider,
              branchPushed: true,
            });
          }
          throw new PullRequestError(message, {
            stage: 'pull_request',
            provider,
            status,
            branchPushed: true,
          });
        }
        return [
          {
            repo_full_name: source.full_name,
            branch_name: branch,
            pr_number: opened.number,
            // The pull request is open either way; an address no page may link to is not kept.
            pr_url: webUrl(opened.url) ?? '',
            merge_status: opened.mergeStatus,
            created_at: opened.createdAt,
            merged_at: null,
          },
        ];
      };

      try {
        return await Promise.race([work(), expired]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
