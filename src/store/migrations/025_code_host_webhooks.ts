import type { Kysely } from 'kysely';

/**
 * What code hosts tell Bulwark about its fix pull requests:
 * - `fix_pull_request_states`: the last state seen of each pull request (open, closed, merged), its title and
 *   head commit, and when the host was last asked, so a webhook or a poll that says nothing new changes
 *   nothing and one that does says what changed. A pull request without a row was last seen as opened.
 * - `code_host_webhooks`: an organization's inbound webhooks, one per host and repository (or the whole
 *   organization), each with its secret sealed by the token box.
 * - `code_host_deliveries`: every delivery accepted, once per host delivery id, with what it said, until
 *   a worker has applied it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('fix_pull_requests_by_number').on('fix_pull_requests').columns(['repo_full_name', 'pr_number']).execute();
  await db.schema
    .createTable('fix_pull_request_states')
    .addColumn('pull_request_id', 'text', (c) => c.primaryKey().references('fix_pull_requests.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('head_sha', 'text')
    .addColumn('checked_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('code_host_webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('unit_id', 'text', (c) => c.references('units.id').onDelete('cascade'))
    .addColumn('secret_ciphertext', 'text', (c) => c.notNull())
    .addColumn('created_by_user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_delivery_at', 'text')
    .execute();
  await db.schema.createIndex('code_host_webhooks_org').on('code_host_webhooks').columns(['org_id', 'created_at']).execute();

  await db.schema
    .createTable('code_host_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('hook_id', 'text', (c) => c.notNull().references('code_host_webhooks.id').onDelete('cascade'))
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('observation', 'text')
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('applied_at', 'text')
    .addColumn('outcome', 'text')
    .addUniqueConstraint('code_host_deliveries_once', ['hook_id', 'delivery_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('code_host_deliveries').execute();
  await db.schema.dropTable('code_host_webhooks').execute();
  await db.schema.dropTable('fix_pull_request_states').execute();
  await db.schema.dropIndex('fix_pull_requests_by_number').execute();
}
