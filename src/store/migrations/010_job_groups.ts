import type { Kysely } from 'kysely';

/**
 * The group a job belongs to (a scan's organization): the embedded queue caps how many jobs of one group
 * run at once and claims for the group with the fewest running first, so no organization starves another.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('group_key', 'text').execute();
  await db.schema.createIndex('jobs_running_groups').on('jobs').columns(['kind', 'state', 'group_key']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_running_groups').ifExists().execute();
  await db.schema.alterTable('jobs').dropColumn('group_key').execute();
}
