import type { Kysely } from 'kysely';

/**
 * Scans of pull requests: one per repository, pull request and head commit, what it found new against the
 * branch the pull request merges into, and what was published on the pull request (the host's ids, so the
 * next report updates it instead of adding another).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('pull_request_scans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('unit_id', 'text', (c) => c.notNull().references('units.id').onDelete('cascade'))
    .addColumn('source_repo_id', 'text', (c) => c.notNull().references('source_repos.id').onDelete('cascade'))
    .addColumn('pr_number', 'integer', (c) => c.notNull())
    .addColumn('head_sha', 'text', (c) => c.notNull())
    .addColumn('pr_url', 'text')
    .addColumn('scan_types', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('new_findings', 'integer')
    .addColumn('summary', 'text')
    .addColumn('report', 'text')
    .addColumn('error_message', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addUniqueConstraint('pull_request_scans_once', ['unit_id', 'pr_number', 'head_sha'])
    .execute();
  await db.schema.createIndex('pull_request_scans_of_pull_request').on('pull_request_scans').columns(['unit_id', 'pr_number', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('pull_request_scans').execute();
}
