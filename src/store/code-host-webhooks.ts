import type { Kysely } from 'kysely';
import type { CodeHostDeliveryRow, CodeHostWebhookRow, Database } from './schema.ts';

// An organization's inbound code-host webhooks and the deliveries they accepted.

export async function insertWebhook(db: Kysely<Database>, row: CodeHostWebhookRow): Promise<void> {
  await db.insertInto('code_host_webhooks').values(row).execute();
}

export async function webhookById(db: Kysely<Database>, id: string): Promise<CodeHostWebhookRow | undefined> {
  return db.selectFrom('code_host_webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function webhooksOf(db: Kysely<Database>, orgId: string): Promise<CodeHostWebhookRow[]> {
  return db.selectFrom('code_host_webhooks').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute();
}

export async function deleteWebhook(db: Kysely<Database>, orgId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('code_host_webhooks').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Keeps a delivery unless the hook already has one with its id; whether it was new. */
export async function insertDelivery(db: Kysely<Database>, row: CodeHostDeliveryRow): Promise<boolean> {
  const result = await db
    .insertInto('code_host_deliveries')
    .values(row)
    .onConflict((oc) => oc.columns(['hook_id', 'delivery_id']).doNothing())
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
  await db.updateTable('code_host_webhooks').set({ last_delivery_at: row.received_at }).where('id', '=', row.hook_id).execute();
  return true;
}

export async function deliveryById(db: Kysely<Database>, id: string): Promise<(CodeHostDeliveryRow & { org_id: string; provider: string; unit_id: string | null }) | undefined> {
  return db
    .selectFrom('code_host_deliveries as d')
    .innerJoin('code_host_webhooks as h', 'h.id', 'd.hook_id')
    .selectAll('d')
    .select(['h.org_id', 'h.provider', 'h.unit_id'])
    .where('d.id', '=', id)
    .executeTakeFirst();
}

/** Marks a delivery applied, once; false when another worker did first. */
export async function markDeliveryApplied(db: Kysely<Database>, id: string, at: string, outcome: string): Promise<boolean> {
  const result = await db.updateTable('code_host_deliveries').set({ applied_at: at, outcome }).where('id', '=', id).where('applied_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The latest deliveries of a hook, newest first. */
export async function deliveriesOf(db: Kysely<Database>, hookId: string, limit: number): Promise<CodeHostDeliveryRow[]> {
  return db.selectFrom('code_host_deliveries').selectAll().where('hook_id', '=', hookId).orderBy('received_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}
