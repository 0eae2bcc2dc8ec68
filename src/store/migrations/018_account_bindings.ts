import { PostgresAdapter, sql, type Kysely } from 'kysely';

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** Tables added to migration 014's watch list: an API key made by a person acts as that person's account and role are now. */
const WATCHED = ['users', 'memberships'];

const trigger = (table: string) => `${table}_change_notice`;

/**
 * PostgreSQL: disabling a user, or changing or removing a membership, notifies the change channel like the
 * tables of migration 014, so every process's cached key lookups are read again at once (SQLite's
 * `PRAGMA data_version` counts every commit already). A device authorization remembers the client
 * address that asked for it, which the approval page shows and code requests are limited by; attempt
 * counts are found by the start of their window, to forget the stale ones.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    for (const table of WATCHED) {
      await sql
        .raw(`create trigger ${trigger(table)} after insert or update or delete or truncate on ${table} for each statement execute function bulwark_change_notice()`)
        .execute(db);
    }
  }
  await db.schema.alterTable('device_authorizations').addColumn('requested_from', 'text').execute();
  await db.schema.createIndex('device_authorizations_pending_from').on('device_authorizations').columns(['requested_from', 'status']).execute();
  await db.schema.createIndex('login_attempts_window').on('login_attempts').columns(['window_started_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('login_attempts_window').ifExists().execute();
  await db.schema.dropIndex('device_authorizations_pending_from').ifExists().execute();
  await db.schema.alterTable('device_authorizations').dropColumn('requested_from').execute();
  if (isPostgres(db)) {
    for (const table of WATCHED) await sql.raw(`drop trigger if exists ${trigger(table)} on ${table}`).execute(db);
  }
}
