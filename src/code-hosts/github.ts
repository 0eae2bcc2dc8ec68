import { VERSION } from '../version.ts';
import {
  COMMITS_PAGE_SIZE,
  isoTimestamp,
  isoTimestampOrNull,
  MAX_REPORT_ANNOTATIONS,
  oneLine,
  refusal,
  scanReportMarkdown,
  splitFullName,
  unreachable,
  type CodeHost,
  type PublishedReport,
  type ScanAnnotation,
} from './code-host.ts';

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

/** The Checks API's limits: a check run's summary, an annotation's title and message. */
const CHECK_SUMMARY_MAX = 65_535;
const ANNOTATION_TITLE_MAX = 255;
const ANNOTATION_MESSAGE_MAX = 65_535;
/** A commit status' description. */
const STATUS_DESCRIPTION_MAX = 140;

function checkAnnotation(annotation: ScanAnnotation) {
  return {
    path: annotation.path,
    start_line: annotation.startLine,
    end_line: Math.max(annotation.startLine, annotation.endLine),
    annotation_level: annotation.level,
    title: oneLine(annotation.title, ANNOTATION_TITLE_MAX),
    message: annotation.message.slice(0, ANNOTATION_MESSAGE_MAX) || annotation.title,
  };
}

type CheckAnnotation = ReturnType<typeof checkAnnotation>;

function sameAnnotation(a: CheckAnnotation, b: Partial<Record<keyof CheckAnnotation, unknown>>): boolean {
  return (Object.keys(a) as (keyof CheckAnnotation)[]).every((key) => a[key] === b[key]);
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
      async publishScanReport(request) {
        const [owner, repo] = splitFullName(github, request.fullName);
        const octokit = octokitFor(request);
        const previous = request.previous ?? {};
        const title = oneLine(request.title, ANNOTATION_TITLE_MAX);
        const annotations = request.annotations.slice(0, MAX_REPORT_ANNOTATIONS).map(checkAnnotation);
        const run = {
          owner,
          repo,
          name: 'Bulwark',
          status: 'completed' as const,
          conclusion: request.conclusion,
          completed_at: new Date().toISOString(),
          ...(request.detailsUrl ? { details_url: request.detailsUrl } : {}),
        };
        const output = { title, summary: request.summary.slice(0, CHECK_SUMMARY_MAX) };
        try {
          let checkRunId: number | undefined;
          if (previous.checkRunId !== undefined) {
            try {
              // An update appends its annotations to the run's: those it has already are not sent again.
              const existing = await octokit.paginate(octokit.rest.checks.listAnnotations, { owner, repo, check_run_id: previous.checkRunId, per_page: 100 });
              const fresh = annotations.filter((a) => !existing.some((e) => sameAnnotation(a, e as Partial<Record<keyof CheckAnnotation, unknown>>)));
              const { data } = await octokit.rest.checks.update({ ...run, check_run_id: previous.checkRunId, output: { ...output, annotations: fresh } });
              checkRunId = data.id;
            } catch (error) {
              // A check run deleted since is created again.
              if ((error as { status?: number }).status !== 404) throw error;
            }
          }
          if (checkRunId === undefined) {
            const { data } = await octokit.rest.checks.create({ ...run, head_sha: request.headSha, output: { ...output, annotations } });
            checkRunId = data.id;
          }
          return { ...previous, checkRunId } satisfies PublishedReport;
        } catch (error) {
          // Only GitHub Apps may write check runs: with a personal access token, a commit status and a comment say it instead.
          if ((error as { status?: number }).status !== 403) throw failed(error, request.token);
        }
        try {
          await octokit.rest.repos.createCommitStatus({
            owner,
            repo,
            sha: request.headSha,
            context: 'bulwark',
            state: request.conclusion,
            description: oneLine(request.title, STATUS_DESCRIPTION_MAX),
            ...(request.detailsUrl ? { target_url: request.detailsUrl } : {}),
          });
          const body = scanReportMarkdown(request, github.pullRequests.maxBodyLength);
          const { checkRunId: _checkRun, ...kept } = previous;
          if (previous.commentId !== undefined) {
            try {
              const { data } = await octokit.rest.issues.updateComment({ owner, repo, comment_id: previous.commentId, body });
              return { ...kept, commentId: data.id };
            } catch (error) {
              // A comment deleted since is posted again.
              if ((error as { status?: number }).status !== 404) throw error;
            }
          }
          const { data } = await octokit.rest.issues.createComment({ owner, repo, issue_number: request.number, body });
          return { ...kept, commentId: data.id };
        } catch (error) {
          throw failed(error, request.token);
        }
      },
    };
  },
};
