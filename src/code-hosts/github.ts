import { VERSION } from '../version.ts';
import { isoTimestamp, refusal, splitFullName, unreachable, type CodeHost } from './code-host.ts';

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

export const github: CodeHost<'github'> = {
  name: 'github',
  label: 'GitHub',
  aliases: [],
  repository: { segments: 2, form: 'owner/name' },
  examples: [{ spec: 'github:acme/api@main', fullName: 'acme/api', cloneUrl: 'https://github.com/acme/api.git' }],
  urls: (fullName) => ({ cloneUrl: `https://github.com/${fullName}.git`, htmlUrl: `https://github.com/${fullName}` }),
  gitTokenUser: 'x-access-token',
  api: {
    env: 'BULWARK_GITHUB_API_URL',
    default: 'https://api.github.com',
    description: 'GitHub API root (`https://ghe.example.com/api/v3` for Enterprise Server)',
  },
  pullRequests: { noun: 'pull request', maxBodyLength: 65_536 },

  async connect({ url, timeoutMs = 60_000 }) {
    const { Octokit } = await import('@octokit/rest');
    return {
      provider: 'github',
      async openPullRequest(request) {
        const [owner, repo] = splitFullName(github, request.fullName);
        const octokit = new Octokit({
          auth: request.token,
          baseUrl: url,
          userAgent: `bulwark/${VERSION}`,
          request: { signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(request.signal ? [request.signal] : [])]) },
          log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
        });
        let data;
        try {
          ({ data } = await octokit.rest.pulls.create({ owner, repo, head: request.branch, base: request.baseBranch, title: request.title, body: request.body }));
        } catch (error) {
          const failure = error as { status?: number; response?: { data?: unknown }; message?: string };
          if (failure.response && typeof failure.status === 'number') {
            throw refusal(github, failure.status, gitHubReason(failure.response.data), request.token);
          }
          throw unreachable(github, url, failure.message ?? String(error), request.token);
        }
        return {
          number: data.number,
          url: data.html_url,
          mergeStatus: data.mergeable_state || data.state || 'open',
          createdAt: isoTimestamp(data.created_at),
        };
      },
    };
  },
};
