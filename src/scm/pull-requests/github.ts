import { Octokit } from '@octokit/rest';
import { VERSION } from '../../version.ts';
import { fitBody, fitTitle } from './body.ts';
import { isoTimestamp, refusal, splitFullName, unreachable, type CodeHostClient, type OpenedPullRequest, type OpenPullRequestRequest } from './code-host.ts';

export interface GitHubClientOptions {
  /** `https://api.github.com`, or `https://<host>/api/v3` for GitHub Enterprise Server. */
  apiUrl: string;
  timeoutMs?: number;
}

/** GitHub limits a pull request body to 65536 characters. */
const MAX_BODY = 65_536;

interface GitHubErrorBody {
  message?: string;
  errors?: ({ message?: string; code?: string; field?: string; resource?: string } | string)[];
}

/** GitHub's reason: the specific validation errors when it gives them ("A pull request already exists for …"), else its message. */
function gitHubReason(data: unknown): string {
  if (typeof data === 'string') return data;
  const body = (data ?? {}) as GitHubErrorBody;
  const details = (body.errors ?? [])
    .map((e) => (typeof e === 'string' ? e : e.message || [e.resource, e.field, e.code].filter(Boolean).join(' ')))
    .filter(Boolean);
  return details.length ? details.join('; ') : (body.message ?? '');
}

export function gitHubClient(options: GitHubClientOptions): CodeHostClient {
  return {
    provider: 'github',
    async openPullRequest(request: OpenPullRequestRequest): Promise<OpenedPullRequest> {
      const [owner, repo] = splitFullName('github', request.fullName, 2);
      const octokit = new Octokit({
        auth: request.token,
        baseUrl: options.apiUrl,
        userAgent: `bulwark/${VERSION}`,
        request: { signal: AbortSignal.any([AbortSignal.timeout(options.timeoutMs ?? 60_000), ...(request.signal ? [request.signal] : [])]) },
        log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
      });
      let data;
      try {
        ({ data } = await octokit.rest.pulls.create({
          owner,
          repo,
          head: request.branch,
          base: request.baseBranch,
          title: fitTitle(request.title),
          body: fitBody(request.body, MAX_BODY),
        }));
      } catch (error) {
        const failure = error as { status?: number; response?: { data?: unknown }; message?: string };
        if (failure.response && typeof failure.status === 'number') {
          throw refusal('github', 'pull request', failure.status, gitHubReason(failure.response.data), request.token);
        }
        throw unreachable('github', options.apiUrl, failure.message ?? String(error), request.token);
      }
      return {
        number: data.number,
        url: data.html_url,
        mergeStatus: data.mergeable_state || data.state || 'open',
        createdAt: isoTimestamp(data.created_at),
      };
    },
  };
}
