import { sql, type Kysely } from 'kysely';

/**
 * People: users who sign in to the console, their roles in organizations, their sessions (stored by the
 * hash of the cookie's token), the device authorizations of the CLI's login (no key is kept there: it is minted when the device collects it), and on API keys who made
 * them and when they stop working.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('disabled_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('memberships')
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'admin', 'member', 'viewer')`))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['org_id', 'user_id'])
    .execute();
  await db.schema.createIndex('memberships_user').on('memberships').columns(['user_id']).execute();
  await db.schema
    .createTable('user_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_sessions_user').on('user_sessions').columns(['user_id']).execute();
  await db.schema
    .createTable('login_attempts')
    .addColumn('subject', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_started_at', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'text')
    .execute();
  await db.schema
    .createTable('device_authorizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('device_code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_code', 'text', (c) => c.notNull().unique())
    .addColumn('client_name', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('requested_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('interval_seconds', 'integer', (c) => c.notNull())
    .addColumn('last_polled_at', 'text')
    .addColumn('approved_by_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('org_id', 'text', (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('device_label', 'text')
    .execute();
  await db.schema.alterTable('api_keys').addColumn('created_by_user_id', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('expires_at').execute();
  await db.schema.alterTable('api_keys').dropColumn('created_by_user_id').execute();
  for (const table of ['device_authorizations', 'login_attempts', 'user_sessions', 'memberships', 'users']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
