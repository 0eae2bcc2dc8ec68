import crypto from 'node:crypto';
import { branchOf, header, liveCommit, numberAt, objectAt, sameSecret, stringAt, timeAt, type WebhookReader } from './delivery.ts';

// GitHub signs each delivery with HMAC-SHA256 of its body under the secret (`X-Hub-Signature-256`), names it
// with `X-GitHub-Delivery` (kept by a redelivery) and the event with `X-GitHub-Event`.
// https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries

export const githubWebhooks: WebhookReader = {
  provider: 'github',
  setup: { secret: "Secret: the webhook's secret; Content type: application/json", events: 'Let me select individual events: Pull requests, and Pushes for scans on push' },
  verify(headers, body, secret) {
    const signature = header(headers, 'x-hub-signature-256');
    if (!signature?.startsWith('sha256=')) return false;
    const expected = `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
    return sameSecret(signature, expected);
  },
  read(headers, payload) {
    const deliveryId = header(headers, 'x-github-delivery');
    const event = header(headers, 'x-github-event');
    if (!deliveryId || !event) return { refused: 'X-GitHub-Delivery and X-GitHub-Event are required' };
    if (event === 'push') {
      const root = payload && typeof payload === 'object' ? (payload as Record<string, unknown>) : undefined;
      const branch = branchOf(stringAt(root, 'ref'));
      const repoFullName = stringAt(objectAt(payload, 'repository'), 'full_name');
      const sha = liveCommit(stringAt(root, 'after'));
      return { deliveryId, event, pullRequest: null, pushes: branch && repoFullName && sha && root?.deleted !== true ? [{ repoFullName, branch, sha }] : [] };
    }
    if (event !== 'pull_request') return { deliveryId, event, pullRequest: null, pushes: [] };
    const pr = objectAt(payload, 'pull_request');
    const repoFullName = stringAt(objectAt(payload, 'repository'), 'full_name');
    const number = numberAt(pr, 'number');
    if (!pr || !repoFullName || !number) return { refused: 'a pull_request delivery names its pull request and repository' };
    const merged = pr.merged === true;
    return {
      deliveryId,
      event,
      pullRequest: {
        repoFullName,
        number,
        state: merged ? 'merged' : stringAt(pr, 'state') === 'closed' ? 'closed' : 'open',
        url: stringAt(pr, 'html_url'),
        title: stringAt(pr, 'title'),
        body: stringAt(pr, 'body') ?? '',
        headSha: stringAt(objectAt(pr, 'head'), 'sha'),
        baseBranch: stringAt(objectAt(pr, 'base'), 'ref'),
        mergedAt: merged ? timeAt(pr, 'merged_at') : null,
        commitMessages: [],
      },
      pushes: [],
    };
  },
};
