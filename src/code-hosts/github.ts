import { VERSION } from '../version.ts';
import { COMMITS_PAGE_SIZE, isoTimestamp, isoTimestampOrNull, refusal, splitFullName, unreachable, type CodeHost } from './code-host.ts';

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
    /** An Octokit with the request's token, whose calls all end at the timeout or when the request's signal aborts. */
    const octokitFor = (request: { token: string; signal?: AbortSignal }) =>
      new Octokit({
        auth: request.token,
        baseUrl: url,
        userAgent: `bulwark/${VERSION}`,
        request: { signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(request.signal ? [request.signal] : [])]) },
        log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
      });
    const failed = (error: unknown, token: string) => {
      const failure = error as { status?: number; response?: { data?: unknown }; message?: string };
      if (failure.response && typeof failure.status === 'number') {
        return refusal(github, failure.status, gitHubReason(failure.response.data), token);
      }
      return unreachable(github, url, failure.message ?? String(error), token);
    };
    return {
      provider: 'github',
      async openPullRequest(request) {
        const [owner, repo] = splitFullName(github, request.fullName);
        const octokit = octokitFor(request);
        let data;
        try {
          ({ data } = await octokit.rest.pulls.create({ owner, repo, head: request.branch, base: request.baseBranch, title: request.title, body: request.body }));
        } catch (error) {
          throw failed(error, request.token);
        }
        return {
          number: data.number,
          url: data.html_url,
          mergeStatus: data.mergeable_state || data.state || 'open',
          createdAt: isoTimestamp(data.created_at),
        };
      },
      async pullRequestState(request) {
        const [owner, repo] = splitFullName(github, request.fullName);
        const octokit = octokitFor(request);
        const target = { owner, repo, pull_number: request.number };
        let pull, commits;
        try {
          ({ data: pull } = await octokit.rest.pulls.get(target));
          ({ data: commits } = await octokit.rest.pulls.listCommits({ ...target, per_page: COMMITS_PAGE_SIZE }));
        } catch (error) {
          throw failed(error, request.token);
        }
        const merged = pull.merged === true || Boolean(pull.merged_at);
        return {
          state: merged ? 'merged' : pull.state === 'open' ? 'open' : 'closed',
          title: pull.title,
          body: pull.body ?? '',
          headSha: pull.head?.sha || null,
          mergedAt: merged ? isoTimestampOrNull(pull.merged_at) : null,
          // Before a merge GitHub fills merge_commit_sha with its test merge, which is on no branch.
          mergeCommitSha: merged ? pull.merge_commit_sha || null : null,
          commitMessages: commits.map((commit) => commit.commit.message),
        };
      },
    };
  },
};
