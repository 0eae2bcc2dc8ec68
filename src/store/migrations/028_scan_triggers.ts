import type { Kysely } from 'kysely';

/**
 * Which scan types a repository runs by itself when its code host (through a code-host webhook) reports a
 * push to the branch it scans, and a pull request into that branch: one row per unit that has any, each a
 * JSON array of scan types.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scan_triggers')
    .addColumn('unit_id', 'text', (c) => c.primaryKey().references('units.id').onDelete('cascade'))
    .addColumn('on_push', 'text', (c) => c.notNull())
    .addColumn('on_pull_request', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('updated_by_user_id', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('scan_triggers').execute();
}
