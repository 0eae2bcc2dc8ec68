import type { GitPullRequest } from 'azure-devops-node-api/interfaces/GitInterfaces.js';
import { isoTimestamp, refusal, splitFullName, unreachable, type CodeHost } from './code-host.ts';

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
    return {
      provider: 'azure_devops',
      async openPullRequest(request) {
        const [organization, project, ...rest] = splitFullName(azureDevOps, request.fullName);
        const repository = rest.join('/');
        const orgUrl = `${url}/${organization}`;
        const connection = new WebApi(orgUrl, getPersonalAccessTokenHandler(request.token), { socketTimeout: timeoutMs });
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
          const failure = error as { statusCode?: number; message?: string };
          if (typeof failure.statusCode === 'number') {
            throw refusal(azureDevOps, failure.statusCode, failure.message ?? '', request.token);
          }
          throw unreachable(azureDevOps, orgUrl, failure.message ?? String(error), request.token);
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
    };
  },
};
