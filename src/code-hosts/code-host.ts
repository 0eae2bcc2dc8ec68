// What a code host is to Bulwark, in one descriptor: how people name it and its repositories, where its
// repositories live, how git authenticates to it with a token, its API setting, and how a pull request
// (merge request) is opened and read back through its official SDK. src/code-hosts/index.ts lists the hosts.
import { PullRequestError } from '../core/pull-request-errors.ts';
import { scrub } from '../scm/git-command.ts';

/** A setting read from the environment, with its default. */
export interface CodeHostSetting {
  env: string;
  default: string;
  description: string;
}

/** A request to open a pull request; its title and body already fit the host's limits. */
export interface OpenPullRequestRequest {
  /** The repository's full name, in the host's form (`owner/name`, `organization/project/repository`). */
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
  /** The host's number for it (GitHub's pull request number, GitLab's merge request iid, Azure DevOps' pull request id). */
  number: number;
  /** The page a person opens. */
  url: string;
  /** The host's own word for mergeability right after creation. */
  mergeStatus: string;
  /** ISO-8601 UTC. */
  createdAt: string;
}

export interface PullRequestStateRequest {
  /** The repository's full name, in the host's form. */
  fullName: string;
  /** The host's number for it, as `OpenedPullRequest.number`. */
  number: number;
  token: string;
  signal?: AbortSignal;
}

/** One pull request (merge request) as the host has it now. */
export interface PullRequestState {
  /** open, closed (without merging) or merged */
  state: 'open' | 'closed' | 'merged';
  title: string;
  /** The description, '' when none. */
  body: string;
  /** The head commit the pull request points at now. */
  headSha: string | null;
  /** ISO-8601 UTC when merged, else null (also when the host gives no time). */
  mergedAt: string | null;
  /** The merge commit on the base branch when merged and the host says it, else null. */
  mergeCommitSha: string | null;
  /** Messages of the pull request's commits on the host's first page of them, for `Fixes bulwark:<id>` links. */
  commitMessages: string[];
}

/** One line of the scanned code to point at, as a check run's annotation or an item of a comment's list. */
export interface ScanAnnotation {
  path: string;
  startLine: number;
  endLine: number;
  level: 'failure' | 'warning' | 'notice';
  title: string;
  message: string;
}

/** The result of a pull request's scan, to publish on the pull request (merge request). */
export interface ScanReportRequest {
  fullName: string;
  number: number;
  /** The commit scanned: the pull request's head when the scan started. */
  headSha: string;
  token: string;
  signal?: AbortSignal;
  /** 'success' when the pull request introduces no finding at or above the threshold, else 'failure'. */
  conclusion: 'success' | 'failure';
  /** One line, e.g. "Bulwark: 2 new findings (1 high)"; cut to the host's limit. */
  title: string;
  /** Markdown, already bounded by the caller; passed on as is. */
  summary: string;
  /** The lines to annotate, most severe first; past MAX_REPORT_ANNOTATIONS they are left out. */
  annotations: ScanAnnotation[];
  /** The console page of the scan, linked from the status or check. */
  detailsUrl: string | null;
  /**
   * What the last report on this pull request returned, so that it is updated instead of added to; null for
   * the first. A check run belongs to one commit: the caller leaves `checkRunId` out when `headSha` is not the
   * head that report was on, and a new check run is created (the note, thread and comment stay the same).
   */
  previous: PublishedReport | null;
}

/** What a report left on the pull request, for the next report to update. */
export interface PublishedReport {
  /** GitHub's check run on the head. */
  checkRunId?: number;
  /** GitLab's merge request note. */
  noteId?: number;
  /** Azure DevOps' pull request thread. */
  threadId?: number;
  /** GitHub's pull request comment (when check runs are not allowed to the token); Azure DevOps' first comment of the thread. */
  commentId?: number;
}

/** The most annotations a report carries: what GitHub's Checks API takes in one request. */
export const MAX_REPORT_ANNOTATIONS = 50;

/** The page of a pull request's commits read where the host lets the size be chosen: the most GitHub and GitLab give at once. */
export const COMMITS_PAGE_SIZE = 100;

/** Opens pull requests (merge requests) on one code host, and reads their state, through its official SDK. */
export interface CodeHostClient {
  readonly provider: string;
  openPullRequest(request: OpenPullRequestRequest): Promise<OpenedPullRequest>;
  /**
   * Optional so that a client which only opens pull requests still is one; every host's SDK client has it
   * (`connect` and `codeHostClients` give `Required<CodeHostClient>`).
   */
  pullRequestState?(request: PullRequestStateRequest): Promise<PullRequestState>;
  /** Publishes a pull request's scan result on it (optional as `pullRequestState`), updating what `previous` names. */
  publishScanReport?(request: ScanReportRequest): Promise<PublishedReport>;
}

export interface CodeHost<Name extends string = string> {
  /** The name stored with a source and used on the API (`source_repo_provider`). */
  readonly name: Name;
  /** The host's name as people write it: `GitHub`. */
  readonly label: string;
  /** Other words accepted for it in `host:owner/name[@branch]`. */
  readonly aliases: readonly string[];
  readonly repository: {
    /** The fewest `/`-separated parts a repository's full name has. */
    segments: number;
    /** How a full name is formed, in words: `owner/name`. */
    form: string;
  };
  /** Sources as operators type them, and what they stand for; checked by the tests. */
  readonly examples: readonly { spec: string; fullName: string; cloneUrl: string }[];
  /** Where a repository lives on the host's public cloud, when no clone URL is given. */
  urls(fullName: string): { cloneUrl: string; htmlUrl: string };
  /** The HTTP Basic user git sends in front of an access token. */
  readonly gitTokenUser: string;
  /** The API root pull requests are opened through (a self-hosted server's, or the cloud's). */
  readonly api: CodeHostSetting;
  readonly pullRequests: {
    /** What the host calls one: `pull request`, `merge request`. */
    noun: string;
    /** The longest description the host accepts, in characters. */
    maxBodyLength: number;
  };
  /**
   * A client for the API root `url`; the host's SDK is loaded only here, as each costs a process tens of
   * megabytes and most processes never open a pull request on most hosts.
   */
  connect(options: { url: string; timeoutMs?: number }): Promise<Required<CodeHostClient>>;
}

/** A client whose SDK is loaded when it is first used. */
export function lazyCodeHostClient(provider: string, load: () => Promise<Required<CodeHostClient>>): Required<CodeHostClient> {
  let client: Promise<Required<CodeHostClient>> | undefined;
  return {
    provider,
    openPullRequest: async (request) => (await (client ??= load())).openPullRequest(request),
    pullRequestState: async (request) => (await (client ??= load())).pullRequestState(request),
    publishScanReport: async (request) => (await (client ??= load())).publishScanReport(request),
  };
}

/** `text` on one line and at most `max` characters, ending in `…` when cut. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Text from a scanned repository as literal Markdown: no links, emphasis, HTML or mentions of its own. */
function markdownText(text: string): string {
  return text.replace(/[\\`*_{}[\]()<>#!|~@&]/g, '\\$&');
}

/** `text` as a Markdown code span, whatever backticks it holds. */
function codeSpan(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return longest ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}

/**
 * A report as one Markdown comment: the caller's summary as is, then the annotated lines as a list, as many
 * as fit in `maxLength` characters with a count of the rest.
 */
export function scanReportMarkdown(request: Pick<ScanReportRequest, 'summary' | 'annotations'>, maxLength: number): string {
  const annotations = request.annotations.slice(0, MAX_REPORT_ANNOTATIONS);
  if (!annotations.length) return request.summary.slice(0, maxLength);
  const items = annotations.map((a) => {
    const lines = a.endLine > a.startLine ? `lines ${a.startLine}–${a.endLine}` : `line ${a.startLine}`;
    const message = a.message.trim() ? `: ${markdownText(oneLine(a.message, 500))}` : '';
    return `- **${a.level}** ${codeSpan(oneLine(a.path, 300))} ${lines}: ${markdownText(oneLine(a.title, 255))}${message}`;
  });
  // Room is kept for the line that counts what is left out, when anything must be.
  const reserve = `- and ${items.length} more`.length;
  let text = `${request.summary}\n\n`;
  for (const [index, item] of items.entries()) {
    const last = index === items.length - 1;
    if (text.length + item.length + 1 + (last ? 0 : reserve) > maxLength) {
      text += `- and ${items.length - index} more`;
      break;
    }
    text += `${item}\n`;
  }
  return text.trimEnd().slice(0, maxLength);
}

/** A host's timestamp as `2024-05-01T10:00:00.000Z`; null when absent or unreadable. */
export function isoTimestampOrNull(value: unknown): string | null {
  const date = value instanceof Date ? value : typeof value === 'string' || typeof value === 'number' ? new Date(value) : null;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : null;
}

/** A host's timestamp as `2024-05-01T10:00:00.000Z`; now when absent or unreadable. */
export function isoTimestamp(value: unknown): string {
  return isoTimestampOrNull(value) ?? new Date().toISOString();
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
  // `PAT` is what azure-devops-node-api's personal access token handler sends. Longest first: when the user's
  // length is a multiple of three, `user:token`'s Base64 ends in `:token`'s, and blanking that alone leaves the user's.
  const forms = [token, basic(''), basic('x-access-token'), basic('oauth2'), basic('pat'), basic('PAT')];
  return forms.sort((a, b) => b.length - a.length);
}

type HostWords = Pick<CodeHost, 'name' | 'label'>;

/** "GitHub refused the pull request (422): A pull request already exists for acme:bulwark/fix-1" */
export function refusal(host: HostWords & Pick<CodeHost, 'pullRequests'>, status: number, message: string, token: string): PullRequestError {
  const words = cleanProviderMessage(message, token) || `HTTP ${status}`;
  const hint =
    status === 401
      ? ' (the stored access token was not accepted)'
      : status === 403
        ? ' (the access token lacks permission to open it)'
        : status === 404
          ? ' (the repository was not found, or the access token cannot see it)'
          : '';
  return new PullRequestError(`${host.label} refused the ${host.pullRequests.noun} (${status}): ${words}${hint}`, {
    stage: 'pull_request',
    provider: host.name,
    status,
  });
}

/** The host could not be reached, or answered with something that is not a response. */
export function unreachable(host: HostWords, apiUrl: string, message: string, token: string): PullRequestError {
  return new PullRequestError(`could not reach ${host.label} at ${scrub(apiUrl, tokenForms(token))}: ${cleanProviderMessage(message, token)}`, {
    stage: 'pull_request',
    provider: host.name,
  });
}

/** `a/b/c` → its parts, refusing empty ones and fewer than the host's, so a malformed name fails before any request. */
export function splitFullName(host: HostWords & Pick<CodeHost, 'repository'>, fullName: string): string[] {
  const segments = fullName.split('/');
  if (segments.length < host.repository.segments || segments.some((s) => !s)) {
    throw new PullRequestError(`"${fullName}" is not a ${host.label} repository name`, { stage: 'setup', provider: host.name });
  }
  return segments;
}
