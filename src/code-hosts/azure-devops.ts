import { PullRequestError } from '../core/pull-request-errors.ts';
import type { GitCommitRef, GitPullRequest, GitPullRequestCommentThread } from 'azure-devops-node-api/interfaces/GitInterfaces.js';
import {
  isoTimestamp,
  isoTimestampOrNull,
  oneLine,
  refusal,
  scanReportMarkdown,
  splitFullName,
  unreachable,
  type CodeHost,
  type PullRequestState,
} from './code-host.ts';

/** A status' description, and a comment's content. */
const STATUS_DESCRIPTION_MAX = 255;
const COMMENT_MAX = 150_000;

/** `PullRequestAsyncStatus`, which the SDK hands back as a number. */
const MERGE_STATUSES: Record<number, string> = {
  0: 'notSet',
  1: 'queued',
  2: 'conflicts',
  3: 'succeeded',
  4: 'rejectedByPolicy',
  5: 'failure',
};

function mergeStatusName(value: unknown): string {
  if (typeof value === 'number') return MERGE_STATUSES[value] ?? String(value);
  if (typeof value === 'string' && value) return value;
  return 'notSet';
}

/** `PullRequestStatus`: the SDK turns the service's `active`, `abandoned`, `completed` into 1, 2, 3. */
function pullRequestStatus(value: unknown): PullRequestState['state'] {
  if (value === 3 || value === 'completed') return 'merged';
  if (value === 2 || value === 'abandoned') return 'closed';
  return 'open';
}

export const azureDevOps: CodeHost<'azure_devops'> = {
  name: 'azure_devops',
  label: 'Azure DevOps',
  aliases: ['azure', 'ado'],
  repository: { segments: 3, form: 'organization/project/repository' },
  examples: [
    { spec: 'azure_devops:acme/platform/api@main', fullName: 'acme/platform/api', cloneUrl: 'https://dev.azure.com/acme/platform/_git/api' },
    { spec: 'ado:acme/platform/api', fullName: 'acme/platform/api', cloneUrl: 'https://dev.azure.com/acme/platform/_git/api' },
  ],
  urls: (fullName) => {
    const [organization, project, ...rest] = fullName.split('/');
    const url = `https://dev.azure.com/${organization}/${project}/_git/${rest.join('/')}`;
    return { cloneUrl: url, htmlUrl: url };
  },
  gitTokenUser: '',
  api: {
    env: 'BULWARK_AZURE_DEVOPS_URL',
    default: 'https://dev.azure.com',
    description: "Azure DevOps' root (an Azure DevOps Server's collection root); organization URLs are `<root>/<organization>`",
  },
  pullRequests: { noun: 'pull request', maxBodyLength: 4000 },

  async connect({ url, timeoutMs = 60_000 }) {
    const { getPersonalAccessTokenHandler, WebApi } = await import('azure-devops-node-api');
    const { CommentThreadStatus, CommentType, GitStatusState } = await import('azure-devops-node-api/interfaces/GitInterfaces.js');
    /** The repository's organization, project and name, and a connection to its organization with the token. */
    const connectTo = (request: { fullName: string; token: string }) => {
      const [organization, project, ...rest] = splitFullName(azureDevOps, request.fullName);
      const orgUrl = `${url}/${organization}`;
      const connection = new WebApi(orgUrl, getPersonalAccessTokenHandler(request.token), { socketTimeout: timeoutMs });
      return { orgUrl, project, repository: rest.join('/'), connection };
    };
    const failed = (error: unknown, orgUrl: string, token: string) => {
      const failure = error as { statusCode?: number; message?: string };
      if (typeof failure.statusCode === 'number') return refusal(azureDevOps, failure.statusCode, failure.message ?? '', token);
      return unreachable(azureDevOps, orgUrl, failure.message ?? String(error), token);
    };
    return {
      provider: 'azure_devops',
      async openPullRequest(request) {
        const { orgUrl, project, repository, connection } = connectTo(request);
        let created: GitPullRequest | null;
        try {
          const gitApi = await connection.getGitApi();
          const toCreate: GitPullRequest = {
            sourceRefName: `refs/heads/${request.branch}`,
            targetRefName: `refs/heads/${request.baseBranch}`,
            title: request.title,
            description: request.body,
          };
          created = await gitApi.createPullRequest(toCreate, repository, project);
        } catch (error) {
          throw failed(error, orgUrl, request.token);
        }
        // The SDK answers a 404 with null rather than an error.
        if (!created?.pullRequestId) {
          throw refusal(azureDevOps, 404, `repository "${repository}" was not found in project "${project}"`, request.token);
        }
        return {
          number: created.pullRequestId,
          url: `${orgUrl}/${encodeURIComponent(project!)}/_git/${encodeURIComponent(repository)}/pullrequest/${created.pullRequestId}`,
          mergeStatus: mergeStatusName(created.mergeStatus),
          createdAt: isoTimestamp(created.creationDate),
        };
      },
      async pullRequestState(request) {
        const { orgUrl, project, repository, connection } = connectTo(request);
        let pull: GitPullRequest | null;
        let commits: GitCommitRef[] | null = null;
        try {
          const gitApi = await connection.getGitApi();
          pull = await gitApi.getPullRequest(repository, request.number, project);
          if (pull?.pullRequestId) commits = await gitApi.getPullRequestCommits(repository, request.number, project);
        } catch (error) {
          throw failed(error, orgUrl, request.token);
        }
        // The SDK answers a 404 with null rather than an error.
        if (!pull?.pullRequestId) {
          throw refusal(azureDevOps, 404, `pull request ${request.number} was not found in repository "${repository}" of project "${project}"`, request.token);
        }
        const state = pullRequestStatus(pull.status);
        return {
          state,
          title: pull.title ?? '',
          body: pull.description ?? '',
          headSha: pull.lastMergeSourceCommit?.commitId || null,
          mergedAt: state === 'merged' ? isoTimestampOrNull(pull.closedDate) : null,
          mergeCommitSha: state === 'merged' ? pull.lastMergeCommit?.commitId || null : null,
          // The SDK reads the service's first page and leaves its continuation token.
          commitMessages: (commits ?? []).map((commit) => commit.comment ?? ''),
        };
      },
      async publishScanReport(request) {
        const { orgUrl, project, repository, connection } = connectTo(request);
        const previous = request.previous ?? {};
        const content = scanReportMarkdown(request, COMMENT_MAX);
        const threadStatus = request.conclusion === 'success' ? CommentThreadStatus.Closed : CommentThreadStatus.Active;
        const missing = () =>
          refusal(azureDevOps, 404, `pull request ${request.number} was not found in repository "${repository}" of project "${project}"`, request.token);
        try {
          const gitApi = await connection.getGitApi();
          const status = await gitApi.createPullRequestStatus(
            {
              context: { genre: 'bulwark', name: 'scan' },
              state: request.conclusion === 'success' ? GitStatusState.Succeeded : GitStatusState.Failed,
              description: oneLine(request.title, STATUS_DESCRIPTION_MAX),
              ...(request.detailsUrl ? { targetUrl: request.detailsUrl } : {}),
            },
            repository,
            request.number,
            project,
          );
          // The SDK answers a 404 with null rather than an error.
          if (!status) throw missing();
          if (previous.threadId !== undefined) {
            const commentId = previous.commentId ?? 1;
            // Null when the thread or its comment was deleted since: a new thread is started then.
            const comment = await gitApi.updateComment({ content }, repository, request.number, previous.threadId, commentId, project);
            if (comment) {
              await gitApi.updateThread({ status: threadStatus }, repository, request.number, previous.threadId, project);
              return { ...previous, threadId: previous.threadId, commentId };
            }
          }
          const thread: GitPullRequestCommentThread = { comments: [{ parentCommentId: 0, content, commentType: CommentType.Text }], status: threadStatus };
          const created = await gitApi.createThread(thread, repository, request.number, project);
          if (!created?.id) throw missing();
          return { ...previous, threadId: created.id, commentId: created.comments?.[0]?.id ?? 1 };
        } catch (error) {
          if (error instanceof PullRequestError) throw error;
          throw failed(error, orgUrl, request.token);
        }
      },
    };
  },
};
