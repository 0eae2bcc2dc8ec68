import { PostgresAdapter, sql, type Kysely } from 'kysely';

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * Outbound webhooks: an organization's endpoints that receive its finding events.
 * - `outbound_webhooks`: the endpoints (target URL, subscribed event types as a JSON list, empty for all,
 *   the signing secret sealed by the token box, the previous one while a rotation's grace lasts) and
 *   their health: since when every attempt failed, how many messages in a row failed, and why and when
 *   the endpoint was disabled.
 * - `outbound_webhook_outbox`: one row per finding event of an organization that has an enabled endpoint,
 *   written by a trigger in the transaction that writes the event, so an event committed late (a long
 *   ingest) is never skipped the way a cursor over event times would skip it. The dispatcher turns rows
 *   into deliveries and removes them.
 * - `outbound_webhook_deliveries`: one message to one endpoint, with its attempts so far, when the next
 *   is due, the claim of the worker sending it, and how the last attempt went.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('outbound_webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('secret_ciphertext', 'text', (c) => c.notNull())
    .addColumn('previous_secret_ciphertext', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    .addColumn('failing_since', 'text')
    .addColumn('failed_messages', 'integer', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('disabled_at', 'text')
    .addColumn('created_by_user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('outbound_webhooks_org').on('outbound_webhooks').columns(['org_id', 'enabled']).execute();

  await db.schema
    .createTable('outbound_webhook_outbox')
    .addColumn('event_id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('outbound_webhook_outbox_order').on('outbound_webhook_outbox').columns(['created_at', 'event_id']).execute();

  await db.schema
    .createTable('outbound_webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('outbound_webhooks.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('manual', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('lease_holder', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('latency_ms', 'integer')
    .addColumn('error', 'text')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addUniqueConstraint('outbound_webhook_deliveries_once', ['endpoint_id', 'event_id'])
    .execute();
  await db.schema.createIndex('outbound_webhook_deliveries_due').on('outbound_webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('outbound_webhook_deliveries_log').on('outbound_webhook_deliveries').columns(['endpoint_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('outbound_webhook_deliveries_pending').on('outbound_webhook_deliveries').columns(['endpoint_id', 'status']).execute();
  await db.schema.createIndex('outbound_webhook_deliveries_finished').on('outbound_webhook_deliveries').column('finished_at').execute();

  if (isPostgres(db)) {
    await sql`create function finding_events_outbound_webhooks() returns trigger language plpgsql as $$
      begin
        insert into outbound_webhook_outbox (event_id, org_id, created_at)
          select n.id, n.org_id, n.created_at from new_rows n
          where exists (select 1 from outbound_webhooks w where w.org_id = n.org_id and w.enabled = 1);
        return null;
      end $$`.execute(db);
    await sql`create trigger finding_events_outbound_webhooks after insert on finding_events referencing new table as new_rows for each statement execute function finding_events_outbound_webhooks()`.execute(db);
  } else {
    await sql`create trigger finding_events_outbound_webhooks after insert on finding_events
      when exists (select 1 from outbound_webhooks w where w.org_id = new.org_id and w.enabled = 1)
      begin
        insert into outbound_webhook_outbox (event_id, org_id, created_at) values (new.id, new.org_id, new.created_at);
      end`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger if exists finding_events_outbound_webhooks on finding_events`.execute(db);
    await sql`drop function if exists finding_events_outbound_webhooks()`.execute(db);
  } else {
    await sql`drop trigger if exists finding_events_outbound_webhooks`.execute(db);
  }
  await db.schema.dropTable('outbound_webhook_deliveries').execute();
  await db.schema.dropTable('outbound_webhook_outbox').execute();
  await db.schema.dropTable('outbound_webhooks').execute();
}
