import { GitbeakerRequestError, GitbeakerRetryError, Gitlab } from '@gitbeaker/rest';
import { fitBody, fitTitle } from './body.ts';
import { isoTimestamp, refusal, splitFullName, unreachable, type CodeHostClient, type OpenedPullRequest, type OpenPullRequestRequest } from './code-host.ts';

export interface GitLabClientOptions {
  /** `https://gitlab.com`, or a self-managed instance's root URL. */
  url: string;
  timeoutMs?: number;
}

/** GitLab limits a merge request description to 1,048,576 characters. */
const MAX_BODY = 1_048_576;

/** GitLab's `message` is a string, a list (`["Another open merge request already exists …"]`) or an object of field errors. */
function gitLabReason(description: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(description);
  } catch {
    return description;
  }
  if (Array.isArray(parsed)) return parsed.map(String).join('; ');
  if (parsed && typeof parsed === 'object') {
    return Object.entries(parsed as Record<string, unknown>)
      .map(([field, value]) => `${field} ${Array.isArray(value) ? value.join(', ') : String(value)}`)
      .join('; ');
  }
  return String(parsed);
}

export function gitLabClient(options: GitLabClientOptions): CodeHostClient {
  return {
    provider: 'gitlab',
    async openPullRequest(request: OpenPullRequestRequest): Promise<OpenedPullRequest> {
      splitFullName('gitlab', request.fullName, 2);
      const api = new Gitlab({ host: options.url, token: request.token, queryTimeout: options.timeoutMs ?? 60_000 });
      let created: Record<string, unknown>;
      try {
        // The project's full path is its id here; the SDK encodes the slashes.
        created = (await api.MergeRequests.create(request.fullName, request.branch, request.baseBranch, fitTitle(request.title), {
          description: fitBody(request.body, MAX_BODY),
          removeSourceBranch: true,
        })) as unknown as Record<string, unknown>;
      } catch (error) {
        if (error instanceof GitbeakerRequestError) {
          // The cause also holds the request, whose headers carry the token: only its status and words are used.
          const cause = error.cause as { description?: string; response?: { status?: number } } | undefined;
          const status = cause?.response?.status;
          if (typeof status === 'number') {
            throw refusal('gitlab', 'merge request', status, gitLabReason(cause?.description ?? error.message), request.token);
          }
        }
        if (error instanceof GitbeakerRetryError) throw unreachable('gitlab', options.url, error.message, request.token);
        throw unreachable('gitlab', options.url, (error as Error).message ?? String(error), request.token);
      }
      const mergeStatus = created.detailed_merge_status ?? created.merge_status ?? created.state ?? 'opened';
      return {
        number: Number(created.iid),
        url: String(created.web_url),
        mergeStatus: String(mergeStatus),
        createdAt: isoTimestamp(created.created_at),
      };
    },
  };
}
