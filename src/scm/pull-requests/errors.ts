import { ApiError } from '../../core/errors.ts';
import { PullRequestError as FixPullRequestError } from '../../core/fixes.ts';

/** Which step of turning a fix into a pull request failed. */
export type PullRequestStage = 'setup' | 'checkout' | 'patch' | 'push' | 'pull_request';

export interface PullRequestErrorDetails {
  stage: PullRequestStage;
  /** `github`, `gitlab` or `azure_devops`. */
  provider: string;
  /** The code host's HTTP status, when it answered at all. */
  status?: number | null;
  /** Whether the fix's branch is on the code host (the failure came after the push). */
  branchPushed?: boolean;
}

/**
 * A fix could not be turned into a pull request. The message is written for the person who asked: it
 * names the step, the code host's HTTP status and its own words, and never contains a token. It extends
 * the lifecycle's `PullRequestError`, so the fix is marked `pr_creation_failed` with this message.
 */
export class PullRequestError extends FixPullRequestError {
  readonly stage: PullRequestStage;
  readonly provider: string;
  readonly status: number | null;
  readonly branchPushed: boolean;

  constructor(message: string, details: PullRequestErrorDetails) {
    super(message);
    this.name = 'PullRequestError';
    this.stage = details.stage;
    this.provider = details.provider;
    this.status = details.status ?? null;
    this.branchPushed = details.branchPushed ?? false;
  }
}

/**
 * The requested branch already exists on the code host with other content. Nothing was pushed and the fix
 * is unchanged; another `branch_name` (or deleting the branch) resolves it, so it answers 409.
 */
export class BranchExistsError extends ApiError {
  readonly branch: string;

  constructor(branch: string, repository: string) {
    super(
      409,
      'BRANCH_EXISTS',
      `Branch "${branch}" already exists in ${repository} with other changes; choose another branch_name or delete the branch`,
    );
    this.branch = branch;
  }
}

export const PROVIDER_LABELS: Record<string, string> = {
  github: 'GitHub',
  gitlab: 'GitLab',
  azure_devops: 'Azure DevOps',
};

export function providerLabel(provider: string): string {
  return PROVIDER_LABELS[provider] ?? provider;
}
