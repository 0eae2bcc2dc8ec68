import type { Kysely } from 'kysely';

/**
 * What a fix run tells its caller besides the diff: the actions left to them (`notes`, a JSON array of
 * sentences), whether each finding was fixed and why not (`finding_outcomes`, JSON), and the step a
 * running fix is on (`current_step`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('fixes').addColumn('notes', 'text').execute();
  await db.schema.alterTable('fixes').addColumn('finding_outcomes', 'text').execute();
  await db.schema.alterTable('fixes').addColumn('current_step', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['current_step', 'finding_outcomes', 'notes']) await db.schema.alterTable('fixes').dropColumn(column).execute();
}
