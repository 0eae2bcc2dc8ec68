import type { Kysely } from 'kysely';
import type { CodeHostSettings } from '../../config.ts';
import { BodyValueError, invalidState } from '../../core/errors.ts';
import type { FixView, PullRequestInput, PullRequestOpener } from '../../core/fixes.ts';
import type { Unit } from '../../core/units.ts';
import type { TokenBox } from '../../crypto/token-box.ts';
import { findingsByIds } from '../../store/findings.ts';
import type { Database, FindingRow, FixPullRequestRow } from '../../store/schema.ts';
import type { CheckoutCache } from '../checkout-cache.ts';
import { scrub } from '../git-command.ts';
import { azureDevOpsClient } from './azure-devops.ts';
import { commitMessage, pullRequestBody, pullRequestTitle, type PullRequestContent } from './body.ts';
import { defaultBranchName, InvalidBranchNameError, validateBranchName } from './branch-name.ts';
import type { CodeHostClient } from './code-host.ts';
import { BranchExistsError, providerLabel, PullRequestError } from './errors.ts';
import { FixBranchError, pushFixBranch, type CommitIdentity, type FixBranch } from './fix-branch.ts';
import { gitHubClient } from './github.ts';
import { gitLabClient } from './gitlab.ts';

export interface PullRequestOpenerDeps {
  db: Kysely<Database>;
  tokenBox: TokenBox;
  checkouts: CheckoutCache;
  codeHosts: CodeHostSettings;
  /** Author and committer of fix commits; `Bulwark <bulwark@localhost>` by default. */
  identity?: CommitIdentity;
  /** Longest a code host's API call may take. */
  apiTimeoutMs?: number;
  /** Longest a git command (apply, commit, push) may take. */
  gitTimeoutMs?: number;
  /** Clients that replace the SDK-backed ones built from `codeHosts`, by provider. */
  clients?: Partial<Record<string, CodeHostClient>>;
}

/** One SDK-backed client per supported provider, pointed at the configured API roots. */
export function codeHostClients(settings: CodeHostSettings, timeoutMs?: number): Record<string, CodeHostClient> {
  return {
    github: gitHubClient({ apiUrl: settings.githubApiUrl, timeoutMs }),
    gitlab: gitLabClient({ url: settings.gitlabUrl, timeoutMs }),
    azure_devops: azureDevOpsClient({ url: settings.azureDevOpsUrl, timeoutMs }),
  };
}

async function findingsOf(db: Kysely<Database>, findingIds: string[]): Promise<FindingRow[]> {
  const rows = await findingsByIds(db, findingIds);
  return findingIds.map((id) => rows.find((row) => row.id === id)).filter((row): row is FindingRow => row !== undefined);
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
 * (merge request) is opened from it through the host's SDK.
 *
 * Refusals: an invalid `branch_name` is a `BodyValueError` (422); a branch that already exists with other
 * content is a `BranchExistsError` (409, nothing changed); every other failure is a `PullRequestError`
 * whose message says what happened, including when the branch was pushed but the pull request was not
 * opened. No message contains a token.
 */
export function createPullRequestOpener(deps: PullRequestOpenerDeps): PullRequestOpener {
  const clients: Record<string, CodeHostClient | undefined> = { ...codeHostClients(deps.codeHosts, deps.apiTimeoutMs), ...deps.clients };

  return {
    async open(view: FixView, unit: Unit, input: PullRequestInput): Promise<Omit<FixPullRequestRow, 'id' | 'fix_id'>[]> {
      const { fix } = view;
      const provider = fix.source_repo_provider ?? 'github';
      const source = unit.sources.find((s) => s.full_name === fix.source_repo && s.provider === provider);
      if (!source) throw invalidState(`The fix's ${provider} repository "${fix.source_repo}" is no longer a source of this repository`);
      if (!fix.diff) throw invalidState('This fix produced no changes, so there is nothing to open a pull request for');
      const branch = await branchFor(fix.id, input.branch_name);
      const where = `${providerLabel(provider)} repository ${source.full_name}`;

      const client = clients[provider];
      if (!client) throw new PullRequestError(`Pull requests cannot be opened on ${provider} repositories`, { stage: 'setup', provider });
      if (!source.token_ciphertext) {
        throw new PullRequestError(
          `No access token is stored for the ${where}; opening a pull request needs one that can push branches and open pull requests`,
          { stage: 'setup', provider },
        );
      }
      let token: string;
      try {
        token = deps.tokenBox.open(source.token_ciphertext);
      } catch {
        throw new PullRequestError(
          `The access token stored for the ${where} cannot be decrypted (was BULWARK_ENCRYPTION_KEY changed?); store the token again`,
          { stage: 'setup', provider },
        );
      }

      const content: PullRequestContent = {
        fix,
        findings: await findingsOf(deps.db, view.findingIds),
        verification: fix.verification ?? null,
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
          diff: fix.diff_ciphertext ? deps.tokenBox.open(fix.diff_ciphertext) : fix.diff,
          branch,
          message: commitMessage(title, content),
          identity: deps.identity,
          timeoutMs: deps.gitTimeoutMs,
        });
      } catch (error) {
        if (!(error instanceof FixBranchError)) throw error;
        if (error.failure === 'branch_exists') throw new BranchExistsError(branch, `the ${where}`);
        const stage = error.failure === 'checkout' ? 'checkout' : error.failure === 'patch' ? 'patch' : 'push';
        const what = stage === 'push' ? `Could not push branch "${branch}" to the ${where}` : `Could not prepare branch "${branch}" for the ${where}`;
        throw new PullRequestError(`${what}: ${scrub(error.message, [token])}`, { stage, provider });
      }

      let opened;
      try {
        opened = await client.openPullRequest({ fullName: source.full_name, baseBranch, branch, title, body, token });
      } catch (error) {
        const reason = scrub(error instanceof Error ? error.message : String(error), [token]);
        const status = error instanceof PullRequestError ? error.status : null;
        const state = pushed.reused ? 'is on' : 'was pushed to';
        throw new PullRequestError(`Branch "${branch}" ${state} the ${where}, but the pull request could not be opened: ${reason}`, {
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
          pr_url: opened.url,
          merge_status: opened.mergeStatus,
          created_at: opened.createdAt,
          merged_at: null,
        },
      ];
    },
  };
}
