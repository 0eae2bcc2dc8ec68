import type { Kysely } from 'kysely';

/**
 * Per source repository and scan type, the newest scan whose findings were ingested (by when it started,
 * then by id). Ingest and auto-resolution first write this row in their transaction, which serializes
 * them per source repository and type (a row lock on PostgreSQL, the write lock on SQLite), and compare
 * their scan with it, so a scan never overrides or resolves what a newer scan saw.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('source_scan_heads')
    .addColumn('source_repo_id', 'text', (c) => c.notNull().references('source_repos.id').onDelete('cascade'))
    .addColumn('scan_type', 'text', (c) => c.notNull())
    .addColumn('scan_id', 'text')
    .addColumn('scan_started_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('source_scan_heads_pk', ['source_repo_id', 'scan_type'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('source_scan_heads').ifExists().execute();
}
