// What can go wrong turning a fix into a pull request, as the code-host integration (src/scm) reports it.
// These are domain errors: the fix lifecycle (fixes.ts) records them on the fix, and src/http/errors.ts
// maps them to the catalog's codes and statuses.

/** Which step of turning a fix into a pull request failed. */
export type PullRequestStage = 'setup' | 'checkout' | 'patch' | 'push' | 'pull_request';

export interface PullRequestErrorDetails {
  stage: PullRequestStage;
  /** The code host's name (src/code-hosts). */
  provider: string;
  /** The code host's HTTP status, when it answered at all. */
  status?: number | null;
  /** Whether the fix's branch is on the code host (the failure came after the push). */
  branchPushed?: boolean;
  /** Whether the whole attempt ran past its deadline (the step is where it stood then). */
  timedOut?: boolean;
}

/**
 * A fix could not be turned into a pull request. The message is written for the person who asked: it
 * names the step, the code host's HTTP status and its own words, and never contains a token. The fix is
 * marked `pr_creation_failed` with this message and can be retried.
 */
export class PullRequestError extends Error {
  readonly stage: PullRequestStage;
  readonly provider: string;
  readonly status: number | null;
  readonly branchPushed: boolean;
  readonly timedOut: boolean;

  constructor(message: string, details: PullRequestErrorDetails) {
    super(message);
    this.name = 'PullRequestError';
    this.stage = details.stage;
    this.provider = details.provider;
    this.status = details.status ?? null;
    this.branchPushed = details.branchPushed ?? false;
    this.timedOut = details.timedOut ?? false;
  }
}

/**
 * The requested branch already exists on the code host with other content. Nothing was pushed and the fix
 * is unchanged; another `branch_name` (or deleting the branch) resolves it.
 */
export class BranchExistsError extends Error {
  readonly branch: string;
  /** The repository as a person names it: `the GitHub repository acme/api`. */
  readonly repository: string;

  constructor(branch: string, repository: string) {
    super(`branch "${branch}" already exists in ${repository} with other changes`);
    this.name = 'BranchExistsError';
    this.branch = branch;
    this.repository = repository;
  }
}

/** `missing`: no usable token is stored for the source; `rejected`: the code host refused the token (401/403). */
export type TokenProblem = 'missing' | 'rejected';

/**
 * The source's access token is missing, or the code host refused it. The caller can fix this (store a
 * token with the rights to push and open pull requests) and retry, so the fix keeps its status; the
 * message names the repository and never contains a token.
 */
export class PullRequestTokenError extends Error {
  readonly problem: TokenProblem;
  readonly provider: string;
  /** Whether the fix's branch is on the code host (the host refused the token only when asked to open the pull request). */
  readonly branchPushed: boolean;

  constructor(problem: TokenProblem, message: string, details: { provider: string; branchPushed?: boolean }) {
    super(message);
    this.name = 'PullRequestTokenError';
    this.problem = problem;
    this.provider = details.provider;
    this.branchPushed = details.branchPushed ?? false;
  }
}
