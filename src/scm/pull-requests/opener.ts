import { codeHostClients, codeHostNamed, type CodeHostSettings } from '../../code-hosts/index.ts';
import type { CodeHostClient, OpenedPullRequest } from '../../code-hosts/code-host.ts';
import { fixReport, type FixView, type PullRequestInput, type PullRequestOpener } from '../../core/fixes.ts';
import { BranchExistsError, PullRequestError, PullRequestTokenError, type PullRequestStage } from '../../core/pull-request-errors.ts';
import type { Unit } from '../../core/units.ts';
import type { TokenBox } from '../../crypto/token-box.ts';
import type { FindingRow, FixPullRequestRow, FixRow, SourceRepoRow } from '../../store/schema.ts';
import { webUrl } from '../../web-url.ts';
import type { CheckoutCache } from '../checkout-cache.ts';
import { scrub } from '../git-command.ts';
import { commitMessage, fitBody, fitTitle, pullRequestBody, pullRequestTitle, type PullRequestContent } from './body.ts';
import { defaultBranchName, validateBranchName } from './branch-name.ts';
import { FixBranchError, pushFixBranch, type CommitIdentity, type FixBranch } from './fix-branch.ts';
import { gitRefusedToken, hostRefusedToken } from './token-refusals.ts';

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
  /** Clients that replace the SDK-backed ones built from `codeHosts`, by host name. */
  clients?: Partial<Record<string, CodeHostClient>>;
}

export const DEFAULT_PULL_REQUEST_DEADLINE_MS = 300_000;

type OpenedRow = Omit<FixPullRequestRow, 'id' | 'fix_id'>;

/** The fix and the source it is opened on. */
interface Target {
  fix: FixRow;
  source: SourceRepoRow;
  provider: string;
  /** `the GitHub repository acme/api` without its article, as messages name it. */
  where: string;
}

/** Where an attempt stands, for the deadline's message, and the signal that aborts its git commands and API call. */
interface Attempt {
  signal: AbortSignal;
  stage: PullRequestStage;
}

/**
 * Turns a completed fix into a pull request on its source repository's code host: the fix's diff is
 * committed on a new branch at the fix's base commit, pushed with the source's token, and a pull request
 * (merge request) is opened from it through the host's SDK. A retry with the same branch reuses a branch
 * an earlier attempt pushed.
 *
 * Refusals, all domain errors (src/http/errors.ts gives their codes): an invalid `branch_name` is an
 * `InvalidBranchNameError`; a branch that already exists with other content is a `BranchExistsError`
 * (nothing changed); no usable stored token, or a token the host refuses (git's authentication failure,
 * an API answer of 401 or 403), is a `PullRequestTokenError` (nothing is pushed without a token); every
 * other failure is a `PullRequestError` whose message says what happened, including when the branch was
 * pushed but the pull request was not opened, and when the whole attempt ran past `deadlineMs`
 * (`timedOut`: the attempt's git commands and API call are aborted). No message contains a token.
 */
export function createPullRequestOpener(deps: PullRequestOpenerDeps): PullRequestOpener {
  const clients: Record<string, CodeHostClient | undefined> = { ...codeHostClients(deps.codeHosts, deps.apiTimeoutMs), ...deps.clients };
  const deadlineMs = deps.deadlineMs ?? DEFAULT_PULL_REQUEST_DEADLINE_MS;

  return {
    async open(view: FixView, unit: Unit, input: PullRequestInput): Promise<OpenedRow[]> {
      const target = loadFix(view, unit);
      const branch = await branchFor(target.fix.id, input.branch_name);
      const { client, token } = resolveHostAndToken(target, clients, deps.tokenBox);
      return withinDeadline(deadlineMs, target, branch, async (attempt) => {
        const content = await pullRequestContent(deps, view, input, target);
        const pushed = await pushBranch(deps, target, token, branch, content, attempt);
        attempt.stage = 'pull_request';
        attempt.signal.throwIfAborted();
        const opened = await openPullRequest(client, target, token, branch, content, pushed, attempt.signal);
        return [recordPullRequest(target, branch, opened)];
      });
    },
  };
}

function setupFailure(target: Pick<Target, 'provider'>, message: string): PullRequestError {
  return new PullRequestError(message, { stage: 'setup', provider: target.provider });
}

/** The fix's source repository among the unit's sources, and a diff to commit. */
function loadFix(view: FixView, unit: Unit): Target {
  const { fix } = view;
  const provider = fix.source_repo_provider ?? 'github';
  const source = unit.sources.find((s) => s.full_name === fix.source_repo && s.provider === provider);
  if (!source) throw setupFailure({ provider }, `The fix's ${provider} repository "${fix.source_repo}" is no longer one of its sources`);
  if (!fix.diff) throw setupFailure({ provider }, 'This fix produced no changes, so there is nothing to open a pull request for');
  const label = codeHostNamed(provider)?.label ?? provider;
  return { fix, source, provider, where: `${label} repository ${source.full_name}` };
}

/** The caller's branch name, checked as git checks one (an `InvalidBranchNameError` otherwise), or the fix's default. */
async function branchFor(fixId: string, requested: string | null | undefined): Promise<string> {
  if (requested === null || requested === undefined || requested === '') return defaultBranchName(fixId);
  return validateBranchName(requested);
}

/** The host's client and the source's stored token, opened; nothing is attempted without both. */
function resolveHostAndToken(target: Target, clients: Record<string, CodeHostClient | undefined>, tokenBox: TokenBox): { client: CodeHostClient; token: string } {
  const { source, provider, where } = target;
  const client = clients[provider];
  if (!client) throw setupFailure(target, `Pull requests cannot be opened on ${provider} repositories`);
  const tokenMissing = (message: string) => new PullRequestTokenError('missing', message, { provider });
  if (!source.token_ciphertext) {
    throw tokenMissing(
      `No access token is stored for the ${where}; opening a pull request needs one that can push branches and open pull requests. ` +
        'Store one (console: the repository\'s page; CLI: bulwark repo token set) and try again',
    );
  }
  try {
    return { client, token: tokenBox.open(source.token_ciphertext) };
  } catch {
    throw tokenMissing(`The access token stored for the ${where} cannot be decrypted (was BULWARK_ENCRYPTION_KEY changed?); store the token again`);
  }
}

/**
 * Runs `work` under the deadline, which covers everything that talks to the code host: when it passes,
 * the attempt's git commands and API call are aborted and a timed-out PullRequestError is thrown at once.
 */
async function withinDeadline<T>(ms: number, target: Target, branch: string, work: (attempt: Attempt) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const attempt: Attempt = { signal: controller.signal, stage: 'checkout' };
  const expired = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () =>
      reject(
        new PullRequestError(deadlineMessage(ms, attempt.stage, branch, target.where), {
          stage: attempt.stage,
          provider: target.provider,
          branchPushed: attempt.stage === 'pull_request',
          timedOut: true,
        }),
      ),
    );
  });
  const timer = setTimeout(() => controller.abort(), ms);
  try {
    return await Promise.race([work(attempt), expired]);
  } finally {
    clearTimeout(timer);
  }
}

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

interface Content {
  title: string;
  body: string;
  commitMessage: string;
  baseBranch: string;
}

/** The pull request's title and body (the caller's, or written from the fix's findings), its commit message and base branch. */
async function pullRequestContent(deps: PullRequestOpenerDeps, view: FixView, input: PullRequestInput, target: Target): Promise<Content> {
  const { fix } = target;
  const report = fixReport(fix);
  const content: PullRequestContent = {
    fix,
    findings: await deps.findings(view.findingIds),
    verification: fix.verification ?? null,
    notes: report.notes,
    notFixed: report.outcomes.filter((o) => !o.fixed).map((o) => ({ findingId: o.finding_id, detail: o.detail })),
    changed: report.outcomes.filter((o) => o.fixed).map((o) => ({ findingId: o.finding_id, detail: o.detail })),
  };
  const title = input.title?.trim() || pullRequestTitle(content);
  return {
    title,
    body: input.body?.trim() ? input.body : pullRequestBody(content),
    commitMessage: commitMessage(title, content),
    baseBranch: fix.source_scan_branch ?? target.source.default_branch,
  };
}

/** Commits the fix's diff on the branch and pushes it with the source's token. */
async function pushBranch(deps: PullRequestOpenerDeps, target: Target, token: string, branch: string, content: Content, attempt: Attempt): Promise<FixBranch> {
  const { fix, source, provider, where } = target;
  try {
    return await pushFixBranch(deps.checkouts, {
      source: { id: source.id, provider, cloneUrl: source.clone_url, token },
      baseCommit: fix.source_base_commit_sha,
      baseBranch: content.baseBranch,
      diff: fix.diff_ciphertext ? deps.tokenBox.open(fix.diff_ciphertext) : fix.diff!,
      branch,
      message: content.commitMessage,
      identity: deps.identity,
      timeoutMs: deps.gitTimeoutMs,
      signal: attempt.signal,
      onPushing: () => {
        attempt.stage = 'push';
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
}

/** Opens the pull request from the pushed branch, its title and body cut to the host's limits. */
async function openPullRequest(
  client: CodeHostClient,
  target: Target,
  token: string,
  branch: string,
  content: Content,
  pushed: FixBranch,
  signal: AbortSignal,
): Promise<OpenedPullRequest> {
  const { source, provider, where } = target;
  const maxBody = codeHostNamed(provider)?.pullRequests.maxBodyLength ?? content.body.length;
  try {
    return await client.openPullRequest({
      fullName: source.full_name,
      baseBranch: content.baseBranch,
      branch,
      title: fitTitle(content.title),
      body: fitBody(content.body, maxBody),
      token,
      signal,
    });
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
    throw new PullRequestError(message, { stage: 'pull_request', provider, status, branchPushed: true });
  }
}

/** The pull request as the fix keeps it. */
function recordPullRequest(target: Target, branch: string, opened: OpenedPullRequest): OpenedRow {
  return {
    repo_full_name: target.source.full_name,
    branch_name: branch,
    pr_number: opened.number,
    // The pull request is open either way; an address no page may link to is not kept.
    pr_url: webUrl(opened.url) ?? '',
    merge_status: opened.mergeStatus,
    created_at: opened.createdAt,
    merged_at: null,
  };
}
