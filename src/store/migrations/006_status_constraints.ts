import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The status column of each table and the statuses its machine allowed when this migration was written,
 * copied here so that later changes to the machines never change what this migration did.
 */
const STATUS_COLUMNS = [
  { table: 'scan_batches', statuses: ['queued', 'creating_scans', 'scanning', 'assessing', 'completed', 'partial_failure', 'failed'] },
  { table: 'scans', statuses: ['pending', 'cloning', 'scanning', 'completed', 'failed'] },
  { table: 'fixes', statuses: ['pending', 'running', 'completed', 'pr_creation_failed', 'failed', 'cancelled'] },
  { table: 'findings', statuses: ['open', 'resolved', 'ignored', 'false_positive', 'needs_manual_review'] },
] as const;

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;
const listOf = (statuses: readonly string[]) => sql.join(statuses.map((s) => sql.lit(s)));

/**
 * The database refuses a status no machine knows, whatever code writes it. PostgreSQL gets a CHECK
 * constraint. SQLite cannot add a CHECK to an existing table; rebuilding the tables would mean copying
 * them with foreign keys switched off, which SQLite does not allow inside the migration's transaction,
 * so it gets BEFORE INSERT and BEFORE UPDATE triggers that abort the statement instead: the same refusal,
 * added in place.
 *
 * Also: the moment a batch or fix gave its credit back (set once, by a guarded update in the same
 * transaction as the refund, so a retried or restarted run cannot refund twice), and the quota period
 * a fix's credit was taken from.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const { table, statuses } of STATUS_COLUMNS) {
    if (isPostgres(db)) {
      await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_status_check`)} check (status in (${listOf(statuses)}))`.execute(db);
      continue;
    }
    for (const event of ['insert', 'update']) {
      await sql`create trigger ${sql.id(`${table}_status_check_${event}`)} before ${sql.raw(event === 'insert' ? 'insert' : 'update of status')} on ${sql.table(table)}
        when new.status not in (${listOf(statuses)})
        begin select raise(abort, ${sql.lit(`${table}.status must be one of ${statuses.join(', ')}`)}); end`.execute(db);
    }
  }
  await db.schema.alterTable('scan_batches').addColumn('credit_refunded_at', 'text').execute();
  await db.schema.alterTable('fixes').addColumn('credit_refunded_at', 'text').execute();
  await db.schema.alterTable('fixes').addColumn('quota_period_start', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('fixes').dropColumn('quota_period_start').execute();
  await db.schema.alterTable('fixes').dropColumn('credit_refunded_at').execute();
  await db.schema.alterTable('scan_batches').dropColumn('credit_refunded_at').execute();
  for (const { table } of STATUS_COLUMNS) {
    if (isPostgres(db)) {
      await sql`alter table ${sql.table(table)} drop constraint if exists ${sql.id(`${table}_status_check`)}`.execute(db);
      continue;
    }
    for (const event of ['insert', 'update']) await sql`drop trigger if exists ${sql.id(`${table}_status_check_${event}`)}`.execute(db);
  }
}
