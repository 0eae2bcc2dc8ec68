import { branchOf, header, liveCommit, numberAt, objectAt, sameSecret, stringAt, timeAt, type WebhookReader } from './delivery.ts';

// GitLab sends the secret token itself in `X-Gitlab-Token`, names a delivery with `X-Gitlab-Event-UUID`
// (`Idempotency-Key` on recent versions, kept by a retry) and the event with `X-Gitlab-Event`.
// https://docs.gitlab.com/user/project/integrations/webhooks/

const STATES: Record<string, 'open' | 'closed' | 'merged'> = { opened: 'open', locked: 'open', closed: 'closed', merged: 'merged' };

export const gitlabWebhooks: WebhookReader = {
  provider: 'gitlab',
  setup: { secret: "Secret token: the webhook's secret", events: 'Trigger: Merge request events, and Push events for scans on push' },
  verify(headers, _body, secret) {
    const token = header(headers, 'x-gitlab-token');
    return token !== undefined && sameSecret(token, secret);
  },
  read(headers, payload) {
    const deliveryId = header(headers, 'idempotency-key') ?? header(headers, 'x-gitlab-event-uuid');
    const event = header(headers, 'x-gitlab-event');
    if (!deliveryId || !event) return { refused: 'X-Gitlab-Event-UUID (or Idempotency-Key) and X-Gitlab-Event are required' };
    if (event === 'Push Hook') {
      const root = payload && typeof payload === 'object' ? (payload as Record<string, unknown>) : undefined;
      const branch = branchOf(stringAt(root, 'ref'));
      const repoFullName = stringAt(objectAt(payload, 'project'), 'path_with_namespace');
      const sha = liveCommit(stringAt(root, 'checkout_sha') ?? stringAt(root, 'after'));
      return { deliveryId, event, pullRequest: null, pushes: branch && repoFullName && sha ? [{ repoFullName, branch, sha }] : [] };
    }
    if (event !== 'Merge Request Hook') return { deliveryId, event, pullRequest: null, pushes: [] };
    const attributes = objectAt(payload, 'object_attributes');
    const repoFullName = stringAt(objectAt(payload, 'project'), 'path_with_namespace');
    const number = numberAt(attributes, 'iid');
    const state = STATES[stringAt(attributes, 'state') ?? ''];
    if (!attributes || !repoFullName || !number || !state) return { refused: 'a merge request delivery names its merge request, state and project' };
    const lastCommit = objectAt(attributes, 'last_commit');
    const message = stringAt(lastCommit, 'message');
    return {
      deliveryId,
      event,
      pullRequest: {
        repoFullName,
        number,
        state,
        url: stringAt(attributes, 'url'),
        title: stringAt(attributes, 'title'),
        body: stringAt(attributes, 'description') ?? '',
        headSha: stringAt(lastCommit, 'id'),
        baseBranch: stringAt(attributes, 'target_branch'),
        mergedAt: state === 'merged' ? (timeAt(attributes, 'merged_at') ?? timeAt(attributes, 'updated_at')) : null,
        commitMessages: message ? [message] : [],
      },
      pushes: [],
    };
  },
};
