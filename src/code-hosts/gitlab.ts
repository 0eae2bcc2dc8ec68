import { isoTimestamp, refusal, splitFullName, unreachable, type CodeHost } from './code-host.ts';

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

export const gitlab: CodeHost<'gitlab'> = {
  name: 'gitlab',
  label: 'GitLab',
  aliases: [],
  repository: { segments: 2, form: 'owner/name' },
  examples: [
    { spec: 'gitlab:acme/api@main', fullName: 'acme/api', cloneUrl: 'https://gitlab.com/acme/api.git' },
    { spec: 'gitlab:acme/platform/web', fullName: 'acme/platform/web', cloneUrl: 'https://gitlab.com/acme/platform/web.git' },
  ],
  urls: (fullName) => ({ cloneUrl: `https://gitlab.com/${fullName}.git`, htmlUrl: `https://gitlab.com/${fullName}` }),
  gitTokenUser: 'oauth2',
  api: { env: 'BULWARK_GITLAB_URL', default: 'https://gitlab.com', description: "GitLab's root URL (a self-managed instance's)" },
  pullRequests: { noun: 'merge request', maxBodyLength: 1_048_576 },

  async connect({ url, timeoutMs = 60_000 }) {
    const { GitbeakerRequestError, Gitlab } = await import('@gitbeaker/rest');
    return {
      provider: 'gitlab',
      async openPullRequest(request) {
        splitFullName(gitlab, request.fullName);
        const api = new Gitlab({ host: url, token: request.token, queryTimeout: timeoutMs });
        let created: Record<string, unknown>;
        try {
          // The project's full path is its id here; the SDK encodes the slashes.
          created = (await api.MergeRequests.create(request.fullName, request.branch, request.baseBranch, request.title, {
            description: request.body,
            removeSourceBranch: true,
          })) as unknown as Record<string, unknown>;
        } catch (error) {
          if (error instanceof GitbeakerRequestError) {
            // The cause also holds the request, whose headers carry the token: only its status and words are used.
            const cause = error.cause as { description?: string; response?: { status?: number } } | undefined;
            const status = cause?.response?.status;
            if (typeof status === 'number') {
              throw refusal(gitlab, status, gitLabReason(cause?.description ?? error.message), request.token);
            }
          }
          throw unreachable(gitlab, url, (error as Error).message ?? String(error), request.token);
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
  },
};
