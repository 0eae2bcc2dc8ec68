import crypto from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import pLimit from 'p-limit';
import { messageBody, signingSecrets, subscribes } from '../core/outbound-webhooks.ts';
import type { TokenBox } from '../crypto/token-box.ts';
import { newId } from '../ids.ts';
import { maskSecretsIn } from '../scanning/secrets/mask-text.ts';
import {
  claimDelivery,
  deleteFinishedDeliveries,
  deliveryContext,
  disableEndpoint,
  dueDeliveries,
  enabledEndpointsOf,
  hasDueDeliveries,
  hasOutboxEntries,
  markEndpointFailing,
  markEndpointHealthy,
  outboxBatch,
  pendingCounts,
  settleDelivery,
  takeOutboxEntries,
} from '../store/outbound-webhooks.ts';
import type { Database, OutboundWebhookDeliveryRow, OutboundWebhookRow } from '../store/schema.ts';
import { releaseTaskLease, renewTaskLease, takeTaskLease } from '../store/task-leases.ts';
import { VERSION } from '../version.ts';
import { postWebhook } from './send.ts';
import { webhookHeaders } from './signature.ts';

// The worker's side of outbound webhooks. Every process looks now and then (every second by default)
// whether there is anything to do: events in the outbox, or deliveries due. The one that takes the task
// lease turns the outbox into deliveries, one per enabled endpoint subscribed to the event's type, and
// sends the due ones; each attempt is claimed on its row first, so a delivery is never sent twice at once
// even if a pass outlives its lease. The rows are the whole state: a crash loses nothing, and an attempt a
// crash interrupted is made again once its claim lapses (same webhook-id, so consumers can tell).

export const OUTBOUND_WEBHOOKS_TASK = 'outbound-webhooks';

/** The waits before each retry, from the start of the attempt that failed: 8 attempts over about 27.5 hours. */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000];

export interface DispatcherOptions {
  tokenBox: TokenBox;
  /** BULWARK_ALLOW_PRIVATE_HOSTS: whether targets on loopback, private and link-local addresses are sent to. */
  allowPrivateHosts: boolean;
  log: (message: string, fields?: Record<string, unknown>) => void;
  /** Between two looks for work; 0: no timer, tick() is called by hand. Default 1 s. */
  pollMs?: number;
  /** For one attempt's whole exchange; default 10 s. */
  timeoutMs?: number;
  retryDelaysMs?: readonly number[];
  /** An endpoint whose attempts all failed for this long is disabled; default 24 h. */
  disableAfterMs?: number;
  /** Or after this many messages in a row failed every attempt; default 20. */
  disableAfterFailedMessages?: number;
  /** An organization's outbox waits while one of its endpoints has this many deliveries waiting; default 10,000. */
  maxPendingPerEndpoint?: number;
  /** How long finished deliveries stay in the log; default 30 days. */
  retentionMs?: number;
  /** Attempts in flight at once; default 8. */
  concurrency?: number;
  /** The clock retries and leases are reckoned on; signatures always carry the real time. */
  now?: () => number;
  lookup?: (host: string) => Promise<string[]>;
  ca?: string | Buffer;
}

export type TickOutcome = 'ran' | 'idle' | 'busy' | 'off';

export interface OutboundWebhookDispatcher {
  /** One pass now, unless there is nothing to do (`idle`) or another process runs one (`busy`). */
  tick(): Promise<TickOutcome>;
  stop(): Promise<void>;
}

/** How long the task lease holds without renewal; a pass renews it every third of this. */
const LEASE_MS = 2 * 60_000;
/** How long one attempt's claim holds: well past the attempt's deadline. */
const CLAIM_MARGIN_MS = 60_000;
/** Outbox rows read at once, and batches of them per pass. */
const OUTBOX_BATCH = 500;
const OUTBOX_BATCHES_PER_PASS = 20;
/** Due deliveries read at once; at most this many of one endpoint are sent per round, so one slow endpoint does not hold up the others. */
const DUE_BATCH = 200;
const PER_ENDPOINT_PER_ROUND = 10;
/** A pass stops sending after this long, releasing the lease; the next look picks up what is left. */
const PASS_BUDGET_MS = 60_000;
const CLEANUP_EVERY_MS = 3_600_000;
const CLEANUP_BATCH = 1_000;
/** Bytes of an answer's body kept in the delivery log. */
const RESPONSE_BODY_BYTES = 4096;

const iso = (ms: number) => new Date(ms).toISOString();

export function startOutboundWebhooks(db: Kysely<Database>, options: DispatcherOptions): OutboundWebhookDispatcher {
  const holder = `${os.hostname()}:${process.pid}:${crypto.randomUUID()}`;
  const clock = options.now ?? Date.now;
  const retryDelays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const disableAfterMs = options.disableAfterMs ?? 24 * 3_600_000;
  const disableAfterFailedMessages = options.disableAfterFailedMessages ?? 20;
  const maxPending = options.maxPendingPerEndpoint ?? 10_000;
  const retentionMs = options.retentionMs ?? 30 * 24 * 3_600_000;
  const limit = pLimit(options.concurrency ?? 8);
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let lastCleanup = -Infinity;

  /** Outbox rows become deliveries; an organization whose endpoint has too many waiting keeps its rows for later. */
  async function pump(): Promise<void> {
    const held = new Set<string>();
    for (let round = 0; round < OUTBOX_BATCHES_PER_PASS; round++) {
      const entries = await outboxBatch(db, OUTBOX_BATCH, [...held]);
      if (!entries.length) return;
      const endpoints = await enabledEndpointsOf(db, [...new Set(entries.map((e) => e.org_id))]);
      const pending = await pendingCounts(db, endpoints.map((e) => e.id));
      const byOrg = Map.groupBy(endpoints, (e) => e.org_id);
      const at = iso(clock());
      const deliveries: OutboundWebhookDeliveryRow[] = [];
      const taken: string[] = [];
      for (const entry of entries) {
        if (held.has(entry.org_id)) continue;
        const eventType = entry.event_type;
        const targets = eventType === null ? [] : (byOrg.get(entry.org_id) ?? []).filter((e) => subscribes(e, eventType));
        if (targets.some((e) => (pending.get(e.id) ?? 0) >= maxPending)) {
          held.add(entry.org_id);
          continue;
        }
        for (const endpoint of targets) {
          deliveries.push(newDelivery(endpoint, entry.event_id, eventType!, at));
          pending.set(endpoint.id, (pending.get(endpoint.id) ?? 0) + 1);
        }
        taken.push(entry.event_id);
      }
      if (taken.length) await takeOutboxEntries(db, deliveries, taken);
      if (entries.length < OUTBOX_BATCH) return;
    }
  }

  async function attempt(delivery: OutboundWebhookDeliveryRow): Promise<void> {
    const claimedAt = clock();
    if (!(await claimDelivery(db, delivery.id, delivery.attempts, holder, iso(claimedAt), iso(claimedAt + timeoutMs + CLAIM_MARGIN_MS)))) return;
    const { endpoint, event } = await deliveryContext(db, delivery);
    // Disabled since it was read as due: the claim lapses, and the row waits for the endpoint to be enabled.
    if (!endpoint || endpoint.enabled !== 1) return;
    const attempts = delivery.attempts + 1;
    if (!event) {
      await settleDelivery(db, delivery.id, holder, {
        status: 'failed', attempts: delivery.attempts, manual: 0, next_attempt_at: null, last_attempt_at: delivery.last_attempt_at,
        response_status: null, latency_ms: null, error: 'the event no longer exists (its repository or finding was removed)', response_body: null, finished_at: iso(claimedAt),
      });
      return;
    }
    const body = messageBody(event);
    const headers = {
      'content-type': 'application/json',
      'user-agent': `Bulwark-Webhooks/${VERSION}`,
      ...webhookHeaders(signingSecrets(options.tokenBox, endpoint, clock()), event.id, Math.floor(Date.now() / 1000), body),
    };
    const result = await postWebhook(endpoint.url, body, headers, {
      allowPrivateHosts: options.allowPrivateHosts,
      timeoutMs,
      maxBodyBytes: RESPONSE_BODY_BYTES,
      lookup: options.lookup,
      ca: options.ca,
    });
    const after = clock();
    const delivered = result.status !== null && result.status >= 200 && result.status < 300;
    const finalFailure = !delivered && (delivery.manual === 1 || attempts > retryDelays.length);
    const error = delivered ? null : (result.error ?? `HTTP ${result.status}`);
    const settled = await settleDelivery(db, delivery.id, holder, {
      status: delivered ? 'delivered' : finalFailure ? 'failed' : 'pending',
      attempts,
      manual: 0,
      // Counted from the attempt's start, so a retry's time does not depend on how long the failure took.
      next_attempt_at: delivered || finalFailure ? null : iso(claimedAt + retryDelays[attempts - 1]!),
      last_attempt_at: iso(claimedAt),
      response_status: result.status,
      latency_ms: result.latencyMs,
      error,
      response_body: result.body === null ? null : maskSecretsIn(result.body),
      finished_at: delivered || finalFailure ? iso(after) : null,
    });
    if (!settled) return;
    if (delivered) await markEndpointHealthy(db, endpoint.id);
    else if (delivery.manual !== 1) await judgeEndpoint(endpoint, iso(claimedAt), finalFailure, error!, after);
  }

  /** After a failed attempt: an endpoint failing for too long, or for too many messages in a row, is disabled. */
  async function judgeEndpoint(endpoint: OutboundWebhookRow, at: string, messageFailed: boolean, error: string, now: number): Promise<void> {
    const health = await markEndpointFailing(db, endpoint.id, at, messageFailed);
    if (!health || health.enabled !== 1 || !health.failing_since) return;
    const failingFor = now - Date.parse(health.failing_since);
    let reason: string | null = null;
    if (failingFor >= disableAfterMs) {
      reason = `disabled automatically: every attempt since ${health.failing_since} failed (the last: ${error})`;
    } else if (health.failed_messages >= disableAfterFailedMessages) {
      reason = `disabled automatically: ${health.failed_messages} messages in a row failed every attempt (the last: ${error})`;
    }
    if (reason && (await disableEndpoint(db, endpoint.id, reason.slice(0, 1000), iso(now)))) {
      options.log('outbound webhook disabled', { endpoint_id: endpoint.id, org_id: endpoint.org_id, reason });
    }
  }

  /** Due deliveries, a few per endpoint per round, until none is due or the pass has run its time. */
  async function sendDue(): Promise<void> {
    const deadline = performance.now() + PASS_BUDGET_MS;
    while (!stopped && performance.now() < deadline) {
      const due = await dueDeliveries(db, iso(clock()), DUE_BATCH);
      if (!due.length) return;
      const perEndpoint = new Map<string, number>();
      const round = due.filter((d) => {
        const n = perEndpoint.get(d.endpoint_id) ?? 0;
        perEndpoint.set(d.endpoint_id, n + 1);
        return n < PER_ENDPOINT_PER_ROUND;
      });
      await Promise.all(round.map((d) => limit(() => attempt(d))));
    }
  }

  async function cleanUp(): Promise<void> {
    const now = clock();
    if (now - lastCleanup < CLEANUP_EVERY_MS) return;
    lastCleanup = now;
    await deleteFinishedDeliveries(db, iso(now - retentionMs), CLEANUP_BATCH);
  }

  async function pass(): Promise<TickOutcome> {
    const now = clock();
    if (!(await hasOutboxEntries(db)) && !(await hasDueDeliveries(db, iso(now)))) return 'idle';
    if (!(await takeTaskLease(db, OUTBOUND_WEBHOOKS_TASK, holder, iso(now), iso(now + LEASE_MS), iso(now)))) return 'busy';
    const renew = setInterval(() => {
      renewTaskLease(db, OUTBOUND_WEBHOOKS_TASK, holder, iso(clock() + LEASE_MS)).catch(() => {});
    }, LEASE_MS / 3);
    renew.unref();
    let error: string | null = null;
    try {
      await pump();
      await sendDue();
      await cleanUp();
    } catch (caught) {
      error = (caught as Error).message;
      options.log('outbound webhooks failed', { error });
    } finally {
      clearInterval(renew);
      await releaseTaskLease(db, OUTBOUND_WEBHOOKS_TASK, holder, iso(clock()), error?.slice(0, 2000) ?? null).catch(() => {});
    }
    return 'ran';
  }

  const tick = (): Promise<TickOutcome> => {
    if (stopped) return Promise.resolve('off');
    const run = running.then(pass).catch((error: Error) => {
      options.log('outbound webhooks failed', { error: error.message });
      return 'ran' as const;
    });
    running = run;
    return run;
  };

  const pollMs = options.pollMs ?? 1000;
  const schedule = () => {
    timer = setTimeout(() => {
      void tick().finally(() => {
        if (!stopped) schedule();
      });
    }, pollMs);
    timer.unref();
  };
  if (pollMs > 0) schedule();

  return {
    tick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running.catch(() => {});
    },
  };
}

function newDelivery(endpoint: OutboundWebhookRow, eventId: string, eventType: string, at: string): OutboundWebhookDeliveryRow {
  return {
    id: newId(),
    endpoint_id: endpoint.id,
    event_id: eventId,
    event_type: eventType,
    status: 'pending',
    attempts: 0,
    manual: 0,
    next_attempt_at: at,
    lease_until: null,
    lease_holder: null,
    last_attempt_at: null,
    response_status: null,
    latency_ms: null,
    error: null,
    response_body: null,
    created_at: at,
    finished_at: null,
  };
}
