import { PostgresAdapter, sql, type Kysely } from 'kysely';

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** The tables whose rows the API answers with: a change to any of them may change a cached read. */
const WATCHED = [
  'organizations', 'api_keys', 'units', 'source_repos', 'quota_plans', 'quota_usage', 'scan_batches', 'scans',
  'findings', 'finding_events', 'finding_counts', 'finding_event_counts', 'finding_event_org_counts',
  'fixes', 'fix_findings', 'fix_refinements', 'fix_pull_requests', 'fix_branches',
];

/** The channel change-epoch.ts listens on, as it was named when this migration was written. */
const CHANGES_CHANNEL = 'bulwark_changes';

const trigger = (table: string) => `${table}_change_notice`;

/**
 * PostgreSQL: a notice on one channel after every statement that changes a watched table, delivered to
 * every listening session when the transaction commits (several in one transaction arrive as one), so
 * each server process knows when its cached reads may be stale (change-epoch.ts). SQLite needs nothing:
 * `PRAGMA data_version` already counts commits.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql
    .raw(
      `create or replace function bulwark_change_notice() returns trigger language plpgsql as $$
       begin perform pg_notify('${CHANGES_CHANNEL}', ''); return null; end $$`,
    )
    .execute(db);
  for (const table of WATCHED) {
    await sql
      .raw(`create trigger ${trigger(table)} after insert or update or delete or truncate on ${table} for each statement execute function bulwark_change_notice()`)
      .execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const table of WATCHED) await sql.raw(`drop trigger if exists ${trigger(table)} on ${table}`).execute(db);
  await sql`drop function if exists bulwark_change_notice()`.execute(db);
}
