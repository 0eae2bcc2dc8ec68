import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The status column of each table and the values its machine allowed when this migration was written
 * (src/core/states/device-authorization-status.ts, job-state.ts), copied, never imported.
 */
const STATUS_COLUMNS = [
  { table: 'device_authorizations', column: 'status', values: ['pending', 'approved', 'denied', 'consumed'] },
  { table: 'jobs', column: 'state', values: ['queued', 'running', 'done', 'dead'] },
] as const;

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;
const listOf = (values: readonly string[]) => sql.join(values.map((v) => sql.lit(v)));

/**
 * The database refuses a device-authorization status or job state no machine knows, as migration 006 does
 * for the others: a CHECK constraint on PostgreSQL, BEFORE INSERT and UPDATE triggers on SQLite (which
 * cannot add a CHECK to an existing table in place).
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const { table, column, values } of STATUS_COLUMNS) {
    if (isPostgres(db)) {
      await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_${column}_check`)} check (${sql.ref(column)} in (${listOf(values)}))`.execute(db);
      continue;
    }
    for (const event of ['insert', 'update']) {
      await sql`create trigger ${sql.id(`${table}_${column}_check_${event}`)} before ${sql.raw(event === 'insert' ? 'insert' : `update of ${column}`)} on ${sql.table(table)}
        when ${sql.raw(`new.${column}`)} not in (${listOf(values)})
        begin select raise(abort, ${sql.lit(`${table}.${column} must be one of ${values.join(', ')}`)}); end`.execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const { table, column } of STATUS_COLUMNS) {
    if (isPostgres(db)) {
      await sql`alter table ${sql.table(table)} drop constraint if exists ${sql.id(`${table}_${column}_check`)}`.execute(db);
      continue;
    }
    for (const event of ['insert', 'update']) await sql`drop trigger if exists ${sql.id(`${table}_${column}_check_${event}`)}`.execute(db);
  }
}
