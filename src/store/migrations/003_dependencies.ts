import type { Kysely } from 'kysely';

/** Vulnerability records imported from OSV exports, and the documents (SBOMs) scans produce. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('osv_advisories')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('modified', 'text', (c) => c.notNull())
    .addColumn('published', 'text')
    .addColumn('withdrawn', 'text')
    .addColumn('summary', 'text')
    .addColumn('aliases', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('database_severity', 'text')
    .addColumn('cwe_ids', 'text', (c) => c.notNull())
    .addColumn('references', 'text', (c) => c.notNull())
    .addColumn('imported_at', 'text', (c) => c.notNull())
    .execute();

  // One row per affected package of an advisory, found by ecosystem and normalized package name.
  await db.schema
    .createTable('osv_affected')
    .addColumn('advisory_id', 'text', (c) => c.notNull().references('osv_advisories.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('ecosystem', 'text', (c) => c.notNull())
    .addColumn('package_key', 'text', (c) => c.notNull())
    .addColumn('package_name', 'text', (c) => c.notNull())
    .addColumn('ranges', 'text', (c) => c.notNull())
    .addColumn('versions', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('osv_affected_pk', ['advisory_id', 'position'])
    .execute();
  await db.schema.createIndex('osv_affected_package').on('osv_affected').columns(['ecosystem', 'package_key']).execute();

  await db.schema
    .createTable('scan_artifacts')
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scans.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_artifacts_pk', ['scan_id', 'kind'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('scan_artifacts').ifExists().execute();
  await db.schema.dropTable('osv_affected').ifExists().execute();
  await db.schema.dropTable('osv_advisories').ifExists().execute();
}
