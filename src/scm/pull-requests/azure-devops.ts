import { getPersonalAccessTokenHandler, WebApi } from 'azure-devops-node-api';
import type { GitPullRequest } from 'azure-devops-node-api/interfaces/GitInterfaces.js';
import { fitBody, fitTitle } from './body.ts';
import { isoTimestamp, refusal, splitFullName, unreachable, type CodeHostClient, type OpenedPullRequest, type OpenPullRequestRequest } from './code-host.ts';

export interface AzureDevOpsClientOptions {
  /** `https://dev.azure.com`, or an Azure DevOps Server's collection root; the organization is appended. */
  url: string;
  timeoutMs?: number;
}

/** Azure DevOps limits a pull request description to 4000 characters. */
const MAX_BODY = 4000;

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

export function azureDevOpsClient(options: AzureDevOpsClientOptions): CodeHostClient {
  return {
    provider: 'azure_devops',
    async openPullRequest(request: OpenPullRequestRequest): Promise<OpenedPullRequest> {
      const [organization, project, ...rest] = splitFullName('azure_devops', request.fullName, 3);
      const repository = rest.join('/');
      const orgUrl = `${options.url}/${organization}`;
      const connection = new WebApi(orgUrl, getPersonalAccessTokenHandler(request.token), {
        socketTimeout: options.timeoutMs ?? 60_000,
      });
      let created: GitPullRequest | null;
      try {
        const gitApi = await connection.getGitApi();
        const toCreate: GitPullRequest = {
          sourceRefName: `refs/heads/${request.branch}`,
          targetRefName: `refs/heads/${request.baseBranch}`,
          title: fitTitle(request.title),
          description: fitBody(request.body, MAX_BODY),
        };
        created = await gitApi.createPullRequest(toCreate, repository, project);
      } catch (error) {
        const failure = error as { statusCode?: number; message?: string };
        if (typeof failure.statusCode === 'number') {
          throw refusal('azure_devops', 'pull request', failure.statusCode, failure.message ?? '', request.token);
        }
        throw unreachable('azure_devops', orgUrl, failure.message ?? String(error), request.token);
      }
      // The SDK answers a 404 with null rather than an error.
      if (!created?.pullRequestId) {
        throw refusal('azure_devops', 'pull request', 404, `repository "${repository}" was not found in project "${project}"`, request.token);
      }
      const webUrl = `${orgUrl}/${encodeURIComponent(project)}/_git/${encodeURIComponent(repository)}/pullrequest/${created.pullRequestId}`;
      return {
        number: created.pullRequestId,
        url: webUrl,
        mergeStatus: mergeStatusName(created.mergeStatus),
        createdAt: isoTimestamp(created.creationDate),
      };
    },
  };
}
