import { sql, type Kysely, type Updateable } from 'kysely';
import type { Database, FindingEventRow, OutboundWebhookDeliveryRow, OutboundWebhookRow, OutboundWebhooksTable } from './schema.ts';

// All SQL on an organization's outbound webhooks: the endpoints, the outbox the finding_events trigger
// fills, and the deliveries the dispatcher makes of it and sends.

export async function insertEndpoint(db: Kysely<Database>, row: OutboundWebhookRow): Promise<void> {
  await db.insertInto('outbound_webhooks').values(row).execute();
}

export async function endpointsOf(db: Kysely<Database>, orgId: string): Promise<OutboundWebhookRow[]> {
  return db.selectFrom('outbound_webhooks').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute();
}

export async function countEndpoints(db: Kysely<Database>, orgId: string): Promise<number> {
  const row = await db.selectFrom('outbound_webhooks').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function endpointOf(db: Kysely<Database>, orgId: string, id: string): Promise<OutboundWebhookRow | undefined> {
  return db.selectFrom('outbound_webhooks').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}

export async function endpointById(db: Kysely<Database>, id: string): Promise<OutboundWebhookRow | undefined> {
  return db.selectFrom('outbound_webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Changes an endpoint of the organization; the row as it is now, or undefined when there is none. */
export async function updateEndpoint(
  db: Kysely<Database>,
  orgId: string,
  id: string,
  changes: Updateable<OutboundWebhooksTable>,
): Promise<OutboundWebhookRow | undefined> {
  await db.updateTable('outbound_webhooks').set(changes).where('org_id', '=', orgId).where('id', '=', id).execute();
  return endpointOf(db, orgId, id);
}

export async function deleteEndpoint(db: Kysely<Database>, orgId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('outbound_webhooks').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Marks an enabled endpoint disabled; false when it already was. */
export async function disableEndpoint(db: Kysely<Database>, id: string, reason: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('outbound_webhooks')
    .set({ enabled: 0, disabled_reason: reason, disabled_at: at, updated_at: at })
    .where('id', '=', id)
    .where('enabled', '=', 1)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A delivered attempt: the endpoint is healthy again. */
export async function markEndpointHealthy(db: Kysely<Database>, id: string): Promise<void> {
  await db
    .updateTable('outbound_webhooks')
    .set({ failing_since: null, failed_messages: 0 })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('failing_since', 'is not', null), eb('failed_messages', '>', 0)]))
    .execute();
}

/** A failed attempt (and, when `messageFailed`, the message's last): the endpoint's health as it is now. */
export async function markEndpointFailing(db: Kysely<Database>, id: string, at: string, messageFailed: boolean): Promise<OutboundWebhookRow | undefined> {
  await db
    .updateTable('outbound_webhooks')
    .set({
      failing_since: sql<string>`coalesce(failing_since, ${at})`,
      failed_messages: messageFailed ? sql<number>`failed_messages + 1` : sql<number>`failed_messages`,
    })
    .where('id', '=', id)
    .execute();
  return endpointById(db, id);
}

// --- the outbox --------------------------------------------------------------------------------------

export interface OutboxEntry {
  event_id: string;
  org_id: string;
  /** Null when the event is gone (its repository or finding was removed). */
  event_type: string | null;
}

/** The oldest waiting events, of organizations other than `skipOrgs`. */
export async function outboxBatch(db: Kysely<Database>, limit: number, skipOrgs: readonly string[]): Promise<OutboxEntry[]> {
  let query = db
    .selectFrom('outbound_webhook_outbox as o')
    .leftJoin('finding_events as e', 'e.id', 'o.event_id')
    .select(['o.event_id', 'o.org_id', 'e.event_type']);
  if (skipOrgs.length) query = query.where('o.org_id', 'not in', [...skipOrgs]);
  return query.orderBy('o.created_at').orderBy('o.event_id').limit(limit).execute();
}

export async function hasOutboxEntries(db: Kysely<Database>): Promise<boolean> {
  return (await db.selectFrom('outbound_webhook_outbox').select('event_id').limit(1).executeTakeFirst()) !== undefined;
}

export async function enabledEndpointsOf(db: Kysely<Database>, orgIds: readonly string[]): Promise<OutboundWebhookRow[]> {
  if (!orgIds.length) return [];
  return db.selectFrom('outbound_webhooks').selectAll().where('org_id', 'in', [...orgIds]).where('enabled', '=', 1).orderBy('created_at').orderBy('id').execute();
}

/** Waiting deliveries per endpoint. */
export async function pendingCounts(db: Kysely<Database>, endpointIds: readonly string[]): Promise<Map<string, number>> {
  if (!endpointIds.length) return new Map();
  const rows = await db
    .selectFrom('outbound_webhook_deliveries')
    .select(['endpoint_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('endpoint_id', 'in', [...endpointIds])
    .where('status', '=', 'pending')
    .groupBy('endpoint_id')
    .execute();
  return new Map(rows.map((r) => [r.endpoint_id, Number(r.n)]));
}

/** Rows per multi-row INSERT, well under SQLite's limit of bound values per statement. */
const DELIVERIES_PER_INSERT = 500;

/** Makes the deliveries of a batch of the outbox and removes those entries, at once. */
export async function takeOutboxEntries(db: Kysely<Database>, deliveries: readonly OutboundWebhookDeliveryRow[], eventIds: readonly string[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < deliveries.length; i += DELIVERIES_PER_INSERT) {
      await trx
        .insertInto('outbound_webhook_deliveries')
        .values(deliveries.slice(i, i + DELIVERIES_PER_INSERT))
        .onConflict((oc) => oc.columns(['endpoint_id', 'event_id']).doNothing())
        .execute();
    }
    for (let i = 0; i < eventIds.length; i += DELIVERIES_PER_INSERT) {
      await trx.deleteFrom('outbound_webhook_outbox').where('event_id', 'in', eventIds.slice(i, i + DELIVERIES_PER_INSERT)).execute();
    }
  });
}

// --- deliveries --------------------------------------------------------------------------------------

/** Deliveries of enabled endpoints whose next attempt is due and that no worker holds, soonest first. */
export async function dueDeliveries(db: Kysely<Database>, now: string, limit: number): Promise<OutboundWebhookDeliveryRow[]> {
  return db
    .selectFrom('outbound_webhook_deliveries as d')
    .innerJoin('outbound_webhooks as w', 'w.id', 'd.endpoint_id')
    .selectAll('d')
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<', now)]))
    .where('w.enabled', '=', 1)
    .orderBy('d.next_attempt_at')
    .orderBy('d.id')
    .limit(limit)
    .execute();
}

export async function hasDueDeliveries(db: Kysely<Database>, now: string): Promise<boolean> {
  return (await dueDeliveries(db, now, 1)).length > 0;
}

/**
 * Claims the due attempt of a delivery for `holder` until `leaseUntil`: true for exactly one of several
 * workers asking at once, and for none once the attempt was made (its count moved on) or someone else holds it.
 */
export async function claimDelivery(db: Kysely<Database>, id: string, attempts: number, holder: string, now: string, leaseUntil: string): Promise<boolean> {
  const result = await db
    .updateTable('outbound_webhook_deliveries')
    .set({ lease_holder: holder, lease_until: leaseUntil })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('attempts', '=', attempts)
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** What an attempt sends: the endpoint and the event (undefined when the event is gone). */
export async function deliveryContext(
  db: Kysely<Database>,
  delivery: OutboundWebhookDeliveryRow,
): Promise<{ endpoint: OutboundWebhookRow | undefined; event: FindingEventRow | undefined }> {
  const [endpoint, event] = await Promise.all([
    endpointById(db, delivery.endpoint_id),
    db.selectFrom('finding_events').selectAll().where('id', '=', delivery.event_id).executeTakeFirst(),
  ]);
  return { endpoint, event };
}

/** Records an attempt's outcome while `holder` still holds it; false when the claim was lost. */
export async function settleDelivery(
  db: Kysely<Database>,
  id: string,
  holder: string,
  changes: Pick<OutboundWebhookDeliveryRow, 'status' | 'attempts' | 'next_attempt_at' | 'last_attempt_at' | 'response_status' | 'latency_ms' | 'error' | 'response_body' | 'finished_at'> & { manual?: number },
): Promise<boolean> {
  const result = await db
    .updateTable('outbound_webhook_deliveries')
    .set({ ...changes, lease_holder: null, lease_until: null })
    .where('id', '=', id)
    .where('lease_holder', '=', holder)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** An endpoint's deliveries, newest first. */
export async function deliveriesOf(db: Kysely<Database>, endpointId: string, limit: number, status?: string): Promise<OutboundWebhookDeliveryRow[]> {
  let query = db.selectFrom('outbound_webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
  if (status) query = query.where('status', '=', status as OutboundWebhookDeliveryRow['status']);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function deliveryOf(db: Kysely<Database>, endpointId: string, id: string): Promise<OutboundWebhookDeliveryRow | undefined> {
  return db.selectFrom('outbound_webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).where('id', '=', id).executeTakeFirst();
}

/**
 * Makes a delivery's next attempt due at `at`: a waiting one keeps its retries; a finished one is waiting
 * again for one attempt (manual), which is not retried.
 */
export async function scheduleRedelivery(db: Kysely<Database>, endpointId: string, id: string, at: string): Promise<OutboundWebhookDeliveryRow | undefined> {
  await db
    .updateTable('outbound_webhook_deliveries')
    .set((eb) => ({
      manual: eb.case().when('status', '=', 'pending').then(eb.ref('manual')).else(1).end(),
      status: 'pending',
      next_attempt_at: at,
      finished_at: null,
    }))
    .where('endpoint_id', '=', endpointId)
    .where('id', '=', id)
    .execute();
  return deliveryOf(db, endpointId, id);
}

/** Removes up to `limit` deliveries that finished before `before`; how many went. */
export async function deleteFinishedDeliveries(db: Kysely<Database>, before: string, limit: number): Promise<number> {
  const ids = db.selectFrom('outbound_webhook_deliveries').select('id').where('finished_at', '<', before).limit(limit);
  const result = await db.deleteFrom('outbound_webhook_deliveries').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}
