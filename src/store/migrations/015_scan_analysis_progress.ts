import type { Kysely } from 'kysely';

/**
 * How far the engine has got through a checked-out scan (0–1), as its phases report it: a deep scan's
 * static analysis, application model and model phases move the batch's progress bar, not only its end.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('scans').addColumn('analysis_progress', 'real', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('scans').dropColumn('analysis_progress').execute();
}
