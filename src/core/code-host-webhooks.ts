import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import { codeHostLabel } from '../code-hosts/index.ts';
import { webhookReaderFor, WEBHOOK_READERS } from '../code-hosts/webhooks/index.ts';
import type { DeliveredPullRequest, DeliveredPush, Headers } from '../code-hosts/webhooks/delivery.ts';
import type { TokenBox } from '../crypto/token-box.ts';
import { newId, nowIso } from '../ids.ts';
import { deleteWebhook, deliveriesOf, deliveryById, insertDelivery, insertWebhook, markDeliveryApplied, webhookById, webhooksOf } from '../store/code-host-webhooks.ts';
import type { CodeHostDeliveryRow, CodeHostWebhookRow, Database } from '../store/schema.ts';
import { unitById, unitOfOrganization } from '../store/units.ts';
import { BodyValueError, notFound } from './errors.ts';
import { linkedFindingIds, observePullRequest } from './pull-request-lifecycle.ts';
import { maskSecretsIn } from '../scanning/secrets/mask-text.ts';
import type { BatchDispatcher } from './scan-batches.ts';
import { scansOnPush } from './scan-triggers.ts';
import { queuePullRequestScans } from './pull-request-scans.ts';
import type { JobHandlers } from '../jobs/queue.ts';

// Inbound webhooks from code hosts: an organization's admin makes one per host (for one repository or all
// of them) and gets its address and secret once; the host's deliveries to that address are checked the
// host's way, kept once per delivery id and answered at once, and a job applies what they say
// (pull-request-lifecycle.ts). A delivery that is unsigned, badly signed, repeated or about a repository
// the hook does not cover changes nothing.

export const WEBHOOK_PROVIDERS = WEBHOOK_READERS.map((reader) => reader.provider);

/** The path a host delivers to; the hook's id is in it, so the address alone finds the secret to check. */
export const webhookPath = (hookId: string) => `/hooks/code-hosts/${hookId}`;

export interface WebhookSetup {
  hook: CodeHostWebhookRow;
  /** What to tick and fill in on the host. */
  setup: { secret: string; events: string };
}

export type Enqueue = (trx: Kysely<Database>, deliveryRowId: string) => Promise<void>;

export async function createWebhook(
  db: Kysely<Database>,
  tokenBox: TokenBox,
  input: { orgId: string; provider: string; unitId: string | null; userId: string | null },
): Promise<WebhookSetup & { secret: string }> {
  const reader = webhookReaderFor(input.provider);
  if (!reader) throw new BodyValueError(['body', 'provider'], `Input should be ${WEBHOOK_PROVIDERS.map((p) => `'${p}'`).join(', ')}`, input.provider);
  if (input.unitId && !(await unitOfOrganization(db, input.orgId, input.unitId))) throw notFound('Repository');
  const secret = `bwhk_${crypto.randomBytes(32).toString('base64url')}`;
  const hook: CodeHostWebhookRow = {
    id: newId(),
    org_id: input.orgId,
    provider: input.provider,
    unit_id: input.unitId,
    secret_ciphertext: tokenBox.seal(secret),
    created_by_user_id: input.userId,
    created_at: nowIso(),
    last_delivery_at: null,
  };
  await insertWebhook(db, hook);
  return { hook, secret, setup: reader.setup };
}

export async function listWebhooks(db: Kysely<Database>, orgId: string): Promise<WebhookSetup[]> {
  return (await webhooksOf(db, orgId)).map((hook) => ({ hook, setup: webhookReaderFor(hook.provider)?.setup ?? { secret: '', events: '' } }));
}

/** A webhook's latest deliveries, newest first, for an admin of its organization. */
export async function recentDeliveries(db: Kysely<Database>, orgId: string, hookId: string, limit: number): Promise<CodeHostDeliveryRow[]> {
  const hook = await webhookById(db, hookId);
  if (!hook || hook.org_id !== orgId) throw notFound('Webhook');
  return deliveriesOf(db, hook.id, limit);
}

export async function removeWebhook(db: Kysely<Database>, orgId: string, hookId: string): Promise<void> {
  if (!(await deleteWebhook(db, orgId, hookId))) throw notFound('Webhook');
}

/** How a delivery was answered: the status and a sentence for the host's delivery log. */
export interface DeliveryAnswer {
  status: 202 | 200 | 400 | 401 | 404;
  message: string;
}

/**
 * What is kept of a pull request's words until the delivery is applied: its title, masked, and the findings
 * its description and commits name; not the prose itself, which may quote anything.
 */
function keptOf(pullRequest: DeliveredPullRequest): DeliveredPullRequest {
  const links = linkedFindingIds([pullRequest.title ?? '', pullRequest.body, ...pullRequest.commitMessages]);
  return {
    ...pullRequest,
    title: pullRequest.title === null ? null : maskSecretsIn(pullRequest.title),
    body: links.map((id) => `Fixes bulwark:${id}`).join('\n'),
    commitMessages: [],
  };
}

/** Whether a per-repository hook covers the repository a delivery is about. */
async function covers(db: Kysely<Database>, hook: CodeHostWebhookRow, repoFullName: string): Promise<boolean> {
  if (!hook.unit_id) return true;
  const unit = await unitById(db, hook.unit_id);
  return !!unit?.sources.some((s) => s.provider === hook.provider && s.full_name.toLowerCase() === repoFullName.toLowerCase());
}

/** Checks and keeps one delivery, queueing the job that applies it; the answer is the host's to log. */
export async function receiveDelivery(
  db: Kysely<Database>,
  tokenBox: TokenBox,
  enqueue: Enqueue,
  delivery: { hookId: string; headers: Headers; body: Buffer },
): Promise<DeliveryAnswer> {
  const hook = await webhookById(db, delivery.hookId);
  const reader = hook && webhookReaderFor(hook.provider);
  if (!hook || !reader) return { status: 404, message: 'No such webhook' };
  if (!reader.verify(delivery.headers, delivery.body, tokenBox.open(hook.secret_ciphertext))) {
    return { status: 401, message: `The delivery does not carry ${codeHostLabel(hook.provider)}'s proof of this webhook's secret` };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(delivery.body.toString('utf8'));
  } catch {
    return { status: 400, message: 'The body is not JSON (set the content type to application/json)' };
  }
  const read = reader.read(delivery.headers, payload);
  if ('refused' in read) return { status: 400, message: `Not a ${codeHostLabel(hook.provider)} delivery Bulwark can read: ${read.refused}` };
  const pullRequest = read.pullRequest && (await covers(db, hook, read.pullRequest.repoFullName)) ? keptOf(read.pullRequest) : null;
  const pushes: DeliveredPush[] = [];
  for (const push of read.pushes) if (await covers(db, hook, push.repoFullName)) pushes.push(push);
  const said: Said | null = pullRequest || pushes.length ? { pullRequest, pushes } : null;
  const reported = read.pullRequest !== null || read.pushes.length > 0;
  const id = newId();
  const kept = await db.transaction().execute(async (trx) => {
    const fresh = await insertDelivery(trx, {
      id,
      hook_id: hook.id,
      delivery_id: read.deliveryId.slice(0, 200),
      event: read.event.slice(0, 200),
      observation: said ? JSON.stringify(said) : null,
      received_at: nowIso(),
      applied_at: null,
      outcome: said ? null : reported ? 'ignored: the repository is not one this webhook covers' : 'ignored: nothing Bulwark uses',
    });
    if (fresh && said) await enqueue(trx, id);
    return fresh;
  });
  if (!kept) return { status: 200, message: 'Already received; nothing changed' };
  return { status: 202, message: said ? 'Accepted; it is being applied' : `Accepted; this ${read.event} event changes nothing in Bulwark` };
}

/** What a kept delivery says Bulwark acts on, for the job that applies it. */
interface Said {
  pullRequest: DeliveredPullRequest | null;
  pushes: DeliveredPush[];
}

/** Where applying a delivery hands work on: scan batches (pushes) and scans of pull requests. */
export interface DeliveryDispatch {
  batch: BatchDispatcher;
  pullRequestScan: (trx: Kysely<Database>, scanId: string) => Promise<void>;
}

/** The job that applies a kept delivery; a delivery is applied once (a job run again finds it applied). */
export async function applyDelivery(db: Kysely<Database>, dispatch: DeliveryDispatch, deliveryRowId: string): Promise<void> {
  const delivery = await deliveryById(db, deliveryRowId);
  if (!delivery || delivery.applied_at || !delivery.observation) return;
  const { pullRequest, pushes } = JSON.parse(delivery.observation) as Said;
  const outcomes: string[] = [];
  if (pullRequest) {
    const outcome = await observePullRequest(db, delivery.org_id, { ...pullRequest, provider: delivery.provider, via: 'webhook' });
    outcomes.push(
      outcome.fixPullRequests
        ? `${outcome.changed} of ${outcome.fixPullRequests} fix pull request(s) changed; ${outcome.resolvedByMerge} finding(s) resolved by the merge, ${outcome.resolvedByLink} by links`
        : `not a fix pull request; ${outcome.resolvedByLink} linked finding(s) resolved`,
    );
    const queued = await queuePullRequestScans(db, dispatch.pullRequestScan, delivery.org_id, delivery.provider, pullRequest, delivery.unit_id);
    if (queued) outcomes.push(queued);
  }
  for (const push of pushes) outcomes.push(await scansOnPush(db, dispatch.batch, delivery.org_id, { ...push, provider: delivery.provider }, delivery.unit_id));
  await markDeliveryApplied(db, deliveryRowId, nowIso(), outcomes.join('; ').slice(0, 2000));
}

/** The worker's side of deliveries: apply one; one given up on is marked so, with the reason. */
export function deliveryJobs(db: Kysely<Database>, dispatch: DeliveryDispatch): JobHandlers {
  return {
    run: (key) => applyDelivery(db, dispatch, key),
    giveUp: async (key, reason) => {
      await markDeliveryApplied(db, key, nowIso(), `failed: ${reason}`);
    },
  };
}
