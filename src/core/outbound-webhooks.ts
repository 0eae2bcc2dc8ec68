import type { Kysely } from 'kysely';
import type { TokenBox } from '../crypto/token-box.ts';
import { newId, nowIso } from '../ids.ts';
import { newSigningSecret } from '../outbound-webhooks/signature.ts';
import { webhookWording } from '../outbound-webhooks/send.ts';
import { CloneUrlError, validateCloneUrl, type CloneUrlPolicy } from '../scm/clone-url.ts';
import { decodeJson, encodeJson } from '../store/json-columns.ts';
import {
  countEndpoints,
  deleteEndpoint,
  deliveriesOf,
  deliveryOf,
  endpointOf,
  endpointsOf,
  insertEndpoint,
  scheduleRedelivery,
  updateEndpoint,
} from '../store/outbound-webhooks.ts';
import type { Database, OutboundWebhookDeliveryRow, OutboundWebhookRow } from '../store/schema.ts';
import { BodyValueError, invalidState, notFound } from './errors.ts';
import { EVENT_TYPES, eventView, type EventType } from './finding-events.ts';
import type { FindingEventRow } from '../store/schema.ts';

// An organization's outbound webhooks: endpoints its admins register, each receiving the finding events
// it subscribes to as Standard Webhooks messages (the dispatcher in src/outbound-webhooks/ sends them).

export const MAX_ENDPOINTS_PER_ORG = 20;
export const MAX_URL_LENGTH = 2000;
/** How long the secret before a rotation still signs messages, beside the new one. */
export const ROTATION_GRACE_MS = 24 * 3_600_000;
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

export interface EndpointInput {
  url?: string;
  events?: readonly string[];
  description?: string;
  enabled?: boolean;
}

export interface EndpointView {
  id: string;
  url: string;
  description: string;
  /** The event types it receives; empty: all of them. */
  events: EventType[];
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: string | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export function endpointView(row: OutboundWebhookRow): EndpointView {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: subscribedTypes(row),
    enabled: row.enabled === 1,
    disabled_reason: row.disabled_reason,
    disabled_at: row.disabled_at,
    failing_since: row.failing_since,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const subscribedTypes = (row: Pick<OutboundWebhookRow, 'event_types'>): EventType[] => decodeJson<EventType[]>(row.event_types, []);

/** Whether an endpoint receives events of this type. */
export function subscribes(row: Pick<OutboundWebhookRow, 'event_types'>, eventType: string): boolean {
  const types = subscribedTypes(row);
  return types.length === 0 || types.includes(eventType as EventType);
}

/** The body of the message an event becomes: its type, when it happened, and the event as the feed serves it. */
export function messageBody(event: FindingEventRow): string {
  return JSON.stringify({ type: `finding.${event.event_type}`, timestamp: event.event_timestamp, data: eventView(event) });
}

function eventTypesOf(events: readonly string[] | undefined): string {
  const unique = [...new Set(events ?? [])];
  const unknown = unique.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length) throw new BodyValueError(['body', 'events'], `Unknown event types: ${unknown.join(', ')}`, events);
  return encodeJson(EVENT_TYPES.filter((t) => unique.includes(t)));
}

/** The clone URL rules, said of a webhook: https, no credentials, no private or internal address (unless allowed). */
async function checkTargetUrl(url: string, policy: CloneUrlPolicy): Promise<void> {
  if (url.length > MAX_URL_LENGTH) throw new BodyValueError(['body', 'url'], `The URL is longer than ${MAX_URL_LENGTH} characters`, url.slice(0, 100));
  if (!/^https:\/\//i.test(url)) throw new BodyValueError(['body', 'url'], 'The webhook URL must be an https:// URL', url);
  try {
    await validateCloneUrl(url, { ...policy, allowLocal: false });
  } catch (error) {
    if (error instanceof CloneUrlError) throw new BodyValueError(['body', 'url'], webhookWording(error.message), url);
    throw error;
  }
}

export async function createEndpoint(
  db: Kysely<Database>,
  tokenBox: TokenBox,
  policy: CloneUrlPolicy,
  input: EndpointInput & { orgId: string; url: string; userId: string | null },
): Promise<{ endpoint: OutboundWebhookRow; secret: string }> {
  await checkTargetUrl(input.url, policy);
  const eventTypes = eventTypesOf(input.events);
  if ((await countEndpoints(db, input.orgId)) >= MAX_ENDPOINTS_PER_ORG) {
    throw invalidState(`An organization has at most ${MAX_ENDPOINTS_PER_ORG} webhook endpoints; remove one first`);
  }
  const secret = newSigningSecret();
  const at = nowIso();
  const enabled = input.enabled ?? true;
  const endpoint: OutboundWebhookRow = {
    id: newId(),
    org_id: input.orgId,
    url: input.url,
    description: input.description ?? '',
    event_types: eventTypes,
    enabled: enabled ? 1 : 0,
    secret_ciphertext: tokenBox.seal(secret),
    previous_secret_ciphertext: null,
    previous_secret_expires_at: null,
    failing_since: null,
    failed_messages: 0,
    disabled_reason: enabled ? null : 'disabled by an admin',
    disabled_at: enabled ? null : at,
    created_by_user_id: input.userId,
    created_at: at,
    updated_at: at,
  };
  await insertEndpoint(db, endpoint);
  return { endpoint, secret };
}

export const listEndpoints = (db: Kysely<Database>, orgId: string) => endpointsOf(db, orgId);

export async function getEndpoint(db: Kysely<Database>, orgId: string, id: string): Promise<OutboundWebhookRow> {
  const endpoint = await endpointOf(db, orgId, id);
  if (!endpoint) throw notFound('Webhook endpoint');
  return endpoint;
}

/** Changes what was given; enabling an endpoint clears why it was disabled and its failure streak. */
export async function changeEndpoint(db: Kysely<Database>, policy: CloneUrlPolicy, orgId: string, id: string, input: EndpointInput): Promise<OutboundWebhookRow> {
  const current = await getEndpoint(db, orgId, id);
  if (input.url !== undefined && input.url !== current.url) await checkTargetUrl(input.url, policy);
  const at = nowIso();
  const enabling = input.enabled === true && current.enabled === 0;
  const disabling = input.enabled === false && current.enabled === 1;
  const changed = await updateEndpoint(db, orgId, id, {
    ...(input.url !== undefined ? { url: input.url } : {}),
    ...(input.events !== undefined ? { event_types: eventTypesOf(input.events) } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(enabling ? { enabled: 1, disabled_reason: null, disabled_at: null, failing_since: null, failed_messages: 0 } : {}),
    ...(disabling ? { enabled: 0, disabled_reason: 'disabled by an admin', disabled_at: at } : {}),
    updated_at: at,
  });
  if (!changed) throw notFound('Webhook endpoint');
  return changed;
}

export async function removeEndpoint(db: Kysely<Database>, orgId: string, id: string): Promise<void> {
  if (!(await deleteEndpoint(db, orgId, id))) throw notFound('Webhook endpoint');
}

/** A new signing secret, shown once; the previous one keeps signing beside it for ROTATION_GRACE_MS. */
export async function rotateSecret(db: Kysely<Database>, tokenBox: TokenBox, orgId: string, id: string): Promise<{ endpoint: OutboundWebhookRow; secret: string }> {
  const current = await getEndpoint(db, orgId, id);
  const secret = newSigningSecret();
  const at = Date.now();
  const endpoint = await updateEndpoint(db, orgId, id, {
    secret_ciphertext: tokenBox.seal(secret),
    previous_secret_ciphertext: current.secret_ciphertext,
    previous_secret_expires_at: new Date(at + ROTATION_GRACE_MS).toISOString(),
    updated_at: new Date(at).toISOString(),
  });
  if (!endpoint) throw notFound('Webhook endpoint');
  return { endpoint, secret };
}

/** The secrets an attempt is signed with at `now`: the current one, and the previous one during its grace. */
export function signingSecrets(tokenBox: TokenBox, endpoint: OutboundWebhookRow, now: number): string[] {
  const secrets = [tokenBox.open(endpoint.secret_ciphertext)];
  if (endpoint.previous_secret_ciphertext && endpoint.previous_secret_expires_at && Date.parse(endpoint.previous_secret_expires_at) > now) {
    secrets.push(tokenBox.open(endpoint.previous_secret_ciphertext));
  }
  return secrets;
}

export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  status: OutboundWebhookDeliveryRow['status'];
  attempt: number;
  response_status: number | null;
  latency_ms: number | null;
  error: string | null;
  response_body: string | null;
  created_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  finished_at: string | null;
}

export function deliveryView(row: OutboundWebhookDeliveryRow): DeliveryView {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempt: row.attempts,
    response_status: row.response_status,
    latency_ms: row.latency_ms,
    error: row.error,
    response_body: row.response_body,
    created_at: row.created_at,
    last_attempt_at: row.last_attempt_at,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    finished_at: row.finished_at,
  };
}

/** An endpoint's latest deliveries, newest first. */
export async function listDeliveries(db: Kysely<Database>, orgId: string, endpointId: string, limit: number, status?: string): Promise<OutboundWebhookDeliveryRow[]> {
  const endpoint = await getEndpoint(db, orgId, endpointId);
  return deliveriesOf(db, endpoint.id, limit, status);
}

/** Makes a delivery's next attempt due now; the dispatcher sends it within moments. */
export async function redeliver(db: Kysely<Database>, orgId: string, endpointId: string, deliveryId: string): Promise<OutboundWebhookDeliveryRow> {
  const endpoint = await getEndpoint(db, orgId, endpointId);
  if (!(await deliveryOf(db, endpoint.id, deliveryId))) throw notFound('Delivery');
  if (endpoint.enabled !== 1) throw invalidState('The endpoint is disabled; enable it before redelivering');
  const delivery = await scheduleRedelivery(db, endpoint.id, deliveryId, nowIso());
  if (!delivery) throw notFound('Delivery');
  return delivery;
}
