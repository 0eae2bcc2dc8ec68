import { PullRequestError } from '../../core/pull-request-errors.ts';
import { scrub } from '../git-command.ts';

const PROVIDER_LABELS: Record<string, string> = {
  github: 'GitHub',
  gitlab: 'GitLab',
  azure_devops: 'Azure DevOps',
};

/** `GitHub`, `GitLab`, `Azure DevOps`: the host's name as people write it. */
export function providerLabel(provider: string): string {
  return PROVIDER_LABELS[provider] ?? provider;
}

export interface OpenPullRequestRequest {
  /** `owner/name` (GitHub), `group/subgroup/project` (GitLab), `organization/project/repository` (Azure DevOps). */
  fullName: string;
  /** The branch the pull request merges into. */
  baseBranch: string;
  /** The pushed fix branch. */
  branch: string;
  title: string;
  body: string;
  token: string;
  /** Aborts the request when the whole attempt runs out of time. */
  signal?: AbortSignal;
}

export interface OpenedPullRequest {
  /** GitHub's pull request number, GitLab's merge request iid, Azure DevOps' pull request id. */
  number: number;
  /** The page a person opens. */
  url: string;
  /** The host's own word for mergeability right after creation (GitHub's `mergeable_state`, GitLab's `detailed_merge_status`, Azure's `mergeStatus`). */
  mergeStatus: string;
  /** ISO-8601 UTC. */
  createdAt: string;
}

/** Opens pull requests (merge requests) on one kind of code host through its official SDK. */
export interface CodeHostClient {
  readonly provider: string;
  openPullRequest(request: OpenPullRequestRequest): Promise<OpenedPullRequest>;
}

/**
 * A client whose host SDK is loaded when it first opens a pull request: each SDK costs a process tens of
 * megabytes, and most processes never open a pull request on most hosts.
 */
export function lazyCodeHostClient(provider: string, load: () => Promise<CodeHostClient>): CodeHostClient {
  let client: Promise<CodeHostClient> | undefined;
  return {
    provider,
    openPullRequest: async (request) => (await (client ??= load())).openPullRequest(request),
  };
}

/** A host's timestamp as `2024-05-01T10:00:00.000Z`; now when absent or unreadable. */
export function isoTimestamp(value: unknown): string {
  const date = value instanceof Date ? value : typeof value === 'string' || typeof value === 'number' ? new Date(value) : null;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : new Date().toISOString();
}

/** The host's words, on one line and bounded, with the token (and anything URL-embedded) blanked out. */
export function cleanProviderMessage(message: string, token: string): string {
  // An HTML error page (a proxy's, a sign-in page) says nothing useful and can be long.
  const flat = /^\s*</.test(message) ? '' : message.replace(/\s+/g, ' ').trim();
  const bounded = flat.length > 500 ? `${flat.slice(0, 499)}…` : flat;
  return scrub(bounded, tokenForms(token));
}

/** The token as it may come back in an error: itself, or inside the Basic credentials some SDKs build. */
function tokenForms(token: string): string[] {
  if (!token) return [];
  const basic = (user: string) => Buffer.from(`${user}:${token}`).toString('base64');
  return [token, basic(''), basic('x-access-token'), basic('oauth2'), basic('pat')];
}

/**
 * Whether a host's API refusal is about the token itself: 401 (not accepted) or 403 (lacks the rights),
 * except GitHub's 403 for a rate limit, which passes with time.
 */
export function hostRefusedToken(status: number, message: string): boolean {
  return status === 401 || (status === 403 && !/rate limit/i.test(message));
}

/** Whether git's words say the host refused the credentials (clone, fetch or push over HTTPS). */
export function gitRefusedToken(message: string): boolean {
  return /Authentication failed|returned error: 40[13]\b|Permission to \S+ denied|could not read (Username|Password)|HTTP Basic: Access denied|not authorized/i.test(
    message,
  );
}

/** "GitHub refused the pull request (422): A pull request already exists for acme:bulwark/fix-1" */
export function refusal(provider: string, noun: string, status: number, message: string, token: string): PullRequestError {
  const words = cleanProviderMessage(message, token) || `HTTP ${status}`;
  const hint =
    status === 401
      ? ' (the stored access token was not accepted)'
      : status === 403
        ? ' (the access token lacks permission to open it)'
        : status === 404
          ? ' (the repository was not found, or the access token cannot see it)'
          : '';
  return new PullRequestError(`${providerLabel(provider)} refused the ${noun} (${status}): ${words}${hint}`, {
    stage: 'pull_request',
    provider,
    status,
  });
}

/** The host could not be reached, or answered with something that is not a response. */
export function unreachable(provider: string, apiUrl: string, message: string, token: string): PullRequestError {
  return new PullRequestError(`could not reach ${providerLabel(provider)} at ${scrub(apiUrl, tokenForms(token))}: ${cleanProviderMessage(message, token)}`, {
    stage: 'pull_request',
    provider,
  });
}

/** `a/b/c` → segments, refusing empty ones, so a malformed name fails before any request. */
export function splitFullName(provider: string, fullName: string, minimum: number): string[] {
  const segments = fullName.split('/');
  if (segments.length < minimum || segments.some((s) => !s)) {
    throw new PullRequestError(`"${fullName}" is not a ${providerLabel(provider)} repository name`, { stage: 'setup', provider });
  }
  return segments;
}
