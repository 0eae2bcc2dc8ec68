import {
  COMMITS_PAGE_SIZE,
  isoTimestamp,
  isoTimestampOrNull,
  oneLine,
  refusal,
  scanReportMarkdown,
  splitFullName,
  unreachable,
  type CodeHost,
} from './code-host.ts';

/** A commit status' description (a 255-character column), and a note's body. */
const STATUS_DESCRIPTION_MAX = 255;
const NOTE_MAX = 1_000_000;

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

/** The fields of GitLab's merge request that its state is read from. */
interface GitLabMergeRequest {
  state?: string;
  title?: string;
  description?: string | null;
  sha?: string | null;
  merged_at?: string | null;
  merge_commit_sha?: string | null;
  squash_commit_sha?: string | null;
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
    const apiFor = (token: string) => new Gitlab({ host: url, token, queryTimeout: timeoutMs });
    const failed = (error: unknown, token: string) => {
      if (error instanceof GitbeakerRequestError) {
        // The cause also holds the request, whose headers carry the token: only its status and words are used.
        const cause = error.cause as { description?: string; response?: { status?: number } } | undefined;
        const status = cause?.response?.status;
        if (typeof status === 'number') return refusal(gitlab, status, gitLabReason(cause?.description ?? error.message), token);
      }
      return unreachable(gitlab, url, (error as Error).message ?? String(error), token);
    };
    const statusOf = (error: unknown) =>
      error instanceof GitbeakerRequestError ? (error.cause as { response?: { status?: number } } | undefined)?.response?.status : undefined;
    return {
      provider: 'gitlab',
      async openPullRequest(request) {
        splitFullName(gitlab, request.fullName);
        const api = apiFor(request.token);
        let created: Record<string, unknown>;
        try {
          // The project's full path is its id here; the SDK encodes the slashes.
          created = (await api.MergeRequests.create(request.fullName, request.branch, request.baseBranch, request.title, {
            description: request.body,
            removeSourceBranch: true,
          })) as unknown as Record<string, unknown>;
        } catch (error) {
          throw failed(error, request.token);
        }
        const mergeStatus = created.detailed_merge_status ?? created.merge_status ?? created.state ?? 'opened';
        return {
          number: Number(created.iid),
          url: String(created.web_url),
          mergeStatus: String(mergeStatus),
          createdAt: isoTimestamp(created.created_at),
        };
      },
      async pullRequestState(request) {
        splitFullName(gitlab, request.fullName);
        const api = apiFor(request.token);
        let mergeRequest: GitLabMergeRequest;
        let commits: { message?: string }[];
        try {
          mergeRequest = (await api.MergeRequests.show(request.fullName, request.number)) as GitLabMergeRequest;
          commits = await api.MergeRequests.allCommits(request.fullName, request.number, { perPage: COMMITS_PAGE_SIZE, maxPages: 1 });
        } catch (error) {
          throw failed(error, request.token);
        }
        // `locked` is an open merge request GitLab holds still for a moment while it merges.
        const state = mergeRequest.state === 'merged' ? 'merged' : mergeRequest.state === 'closed' ? 'closed' : 'open';
        return {
          state,
          title: mergeRequest.title ?? '',
          body: mergeRequest.description ?? '',
          headSha: mergeRequest.sha || null,
          mergedAt: state === 'merged' ? isoTimestampOrNull(mergeRequest.merged_at) : null,
          mergeCommitSha: state === 'merged' ? mergeRequest.merge_commit_sha || mergeRequest.squash_commit_sha || null : null,
          commitMessages: commits.map((commit) => commit.message ?? ''),
        };
      },
      async publishScanReport(request) {
        splitFullName(gitlab, request.fullName);
        const api = apiFor(request.token);
        const previous = request.previous ?? {};
        const body = scanReportMarkdown(request, NOTE_MAX);
        try {
          await api.Commits.editStatus(request.fullName, request.headSha, request.conclusion === 'success' ? 'success' : 'failed', {
            name: 'bulwark',
            description: oneLine(request.title, STATUS_DESCRIPTION_MAX),
            ...(request.detailsUrl ? { targetUrl: request.detailsUrl } : {}),
          });
          if (previous.noteId !== undefined) {
            try {
              const note = await api.MergeRequestNotes.edit(request.fullName, request.number, previous.noteId, { body });
              return { ...previous, noteId: Number(note.id) };
            } catch (error) {
              // A note deleted since is added again.
              if (statusOf(error) !== 404) throw error;
            }
          }
          const note = await api.MergeRequestNotes.create(request.fullName, request.number, body);
          return { ...previous, noteId: Number(note.id) };
        } catch (error) {
          throw failed(error, request.token);
        }
      },
    };
  },
};
