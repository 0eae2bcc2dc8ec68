import { branchOf, header, liveCommit, numberAt, objectAt, sameSecret, stringAt, timeAt, type DeliveredPush, type WebhookReader } from './delivery.ts';

// An Azure DevOps service hook (Web Hooks consumer) authenticates with HTTP Basic credentials set on the
// subscription: any user name, the secret as password. The event's `id` names it (a retry keeps it) and
// `eventType` says what happened; the repository is `organization/project/repository`, read from its web
// address. https://learn.microsoft.com/azure/devops/service-hooks/events

const STATES: Record<string, 'open' | 'closed' | 'merged'> = { active: 'open', abandoned: 'closed', completed: 'merged' };
const PULL_REQUEST_EVENTS = new Set(['git.pullrequest.created', 'git.pullrequest.updated', 'git.pullrequest.merged']);

/** `organization/project/repository` from `https://dev.azure.com/{organization}/{project}/_git/{repository}` (or a server's collection URL). */
function fullNameOf(repository: Record<string, unknown> | undefined): string | null {
  const address = stringAt(repository, 'webUrl') ?? stringAt(repository, 'remoteUrl');
  if (!address) return null;
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return null;
  }
  const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const git = parts.indexOf('_git');
  if (git < 2 || git !== parts.length - 2) return null;
  // `{organization}.visualstudio.com/{project}/_git/{repository}` names the organization in the host.
  const organization = url.hostname.endsWith('.visualstudio.com') && git === 1 ? url.hostname.split('.')[0] : parts[git - 2];
  return `${organization}/${parts[git - 1]}/${parts[git + 1]}`;
}

/** The branches a `git.push` moved: its ref updates that are branches and not deleted. */
function pushesOf(resource: Record<string, unknown> | undefined): DeliveredPush[] {
  const repoFullName = fullNameOf(objectAt(resource, 'repository'));
  const updates = Array.isArray(resource?.refUpdates) ? (resource.refUpdates as unknown[]) : [];
  if (!repoFullName) return [];
  return updates.flatMap((update) => {
    const entry = update && typeof update === 'object' ? (update as Record<string, unknown>) : undefined;
    const branch = branchOf(stringAt(entry, 'name'));
    const sha = liveCommit(stringAt(entry, 'newObjectId'));
    return branch && sha ? [{ repoFullName, branch, sha }] : [];
  });
}

export const azureDevOpsWebhooks: WebhookReader = {
  provider: 'azure_devops',
  setup: {
    secret: "Web Hooks → Basic authentication username: bulwark; password: the webhook's secret",
    events: 'Pull request created, Pull request updated and Pull request merge attempted, and Code pushed for scans on push (one subscription each)',
  },
  verify(headers, _body, secret) {
    const credentials = /^Basic\s+(\S+)$/i.exec(header(headers, 'authorization') ?? '')?.[1];
    if (!credentials) return false;
    const decoded = Buffer.from(credentials, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 && sameSecret(decoded.slice(colon + 1), secret);
  },
  read(_headers, payload) {
    const root = payload && typeof payload === 'object' ? (payload as Record<string, unknown>) : undefined;
    const deliveryId = stringAt(root, 'id');
    const event = stringAt(root, 'eventType');
    if (!deliveryId || !event) return { refused: 'a service hook event carries its id and eventType' };
    const resource = objectAt(root, 'resource');
    if (event === 'git.push') return { deliveryId, event, pullRequest: null, pushes: pushesOf(resource) };
    if (!PULL_REQUEST_EVENTS.has(event)) return { deliveryId, event, pullRequest: null, pushes: [] };
    const number = numberAt(resource, 'pullRequestId');
    const repoFullName = fullNameOf(objectAt(resource, 'repository'));
    const state = STATES[stringAt(resource, 'status') ?? ''];
    if (!resource || !number || !repoFullName || !state) return { refused: 'a pull request event names its pull request, status and repository' };
    const web = objectAt(objectAt(objectAt(resource, '_links'), 'web'), 'href');
    return {
      deliveryId,
      event,
      pullRequest: {
        repoFullName,
        number,
        state,
        url: typeof web === 'string' ? web : (stringAt(resource, 'url') ?? null),
        title: stringAt(resource, 'title'),
        body: stringAt(resource, 'description') ?? '',
        headSha: stringAt(objectAt(resource, 'lastMergeSourceCommit'), 'commitId'),
        baseBranch: branchOf(stringAt(resource, 'targetRefName')),
        mergedAt: state === 'merged' ? timeAt(resource, 'closedDate') : null,
        commitMessages: [],
      },
      pushes: [],
    };
  },
};
