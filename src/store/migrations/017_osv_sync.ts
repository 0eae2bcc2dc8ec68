import { sql, type Kysely } from 'kysely';

/**
 * Keeping vulnerability records fresh: per ecosystem, when its records were last known current and what
 * the OSV bucket answered (ETag, Last-Modified, the newest record seen) so the next sync asks only for
 * changes; a lease so one process of many runs the scheduled refresh; and the warnings a scan leaves for
 * its reader (dependency records missing or stale).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('osv_ecosystems')
    .addColumn('ecosystem', 'text', (c) => c.primaryKey())
    .addColumn('refreshed_at', 'text', (c) => c.notNull())
    .addColumn('export_etag', 'text')
    .addColumn('export_last_modified', 'text')
    .addColumn('index_etag', 'text')
    .addColumn('index_last_modified', 'text')
    .addColumn('newest_modified', 'text')
    .execute();
  // Records imported before this table existed count as current when they were imported.
  await sql`insert into osv_ecosystems (ecosystem, refreshed_at)
    select a.ecosystem, max(v.imported_at) from osv_affected a join osv_advisories v on v.id = a.advisory_id group by a.ecosystem`.execute(db);

  await db.schema
    .createTable('task_leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('last_started_at', 'text')
    .addColumn('last_finished_at', 'text')
    .addColumn('last_error', 'text')
    .execute();

  await db.schema.alterTable('scans').addColumn('warnings', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('scans').dropColumn('warnings').execute();
  await db.schema.dropTable('task_leases').ifExists().execute();
  await db.schema.dropTable('osv_ecosystems').ifExists().execute();
}
