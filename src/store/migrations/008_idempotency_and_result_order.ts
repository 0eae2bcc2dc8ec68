import { sql, type Kysely } from 'kysely';

/**
 * Two things that keep requests safe to repeat and cheap to answer:
 *
 * - `idempotency_keys`: the answer given to a POST that carried an `Idempotency-Key`, per API key, so a
 *   retry gets the same answer instead of a second batch, fix or pull request (src/core/idempotency.ts).
 *   A row is `in_flight` (claimed by `claim_id` until `locked_until`) until the request's own transaction
 *   marks it `done` with the status and body it answered.
 * - `findings_batch_order`: the order a batch's results are read in, page by page, from a keyset
 *   cursor; without it every page would sort all of the batch's findings again. A line-less finding
 *   sorts as line -1 on both databases.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('api_key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('in_flight', 'done')`))
    .addColumn('claim_id', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['api_key_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();
  await sql`create index findings_batch_order on findings (scan_batch_id, file_path, (coalesce(start_line, -1)), id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index findings_batch_order`.execute(db);
  await db.schema.dropTable('idempotency_keys').execute();
}
