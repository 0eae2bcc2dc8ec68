import type { Kysely } from 'kysely';

/** What a fix run records besides its status: model token usage and the verification outcome. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('fixes').addColumn('agent_input_tokens', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('fixes').addColumn('agent_output_tokens', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('fixes').addColumn('verification', 'text').execute();
  // The applicable diff, sealed: it removes committed credentials, so it holds them.
  await db.schema.alterTable('fixes').addColumn('diff_ciphertext', 'text').execute();
  await db.schema.alterTable('fixes').addColumn('runs', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // Set while a request opens the fix's pull request, so a second request cannot open another.
  await db.schema.alterTable('fixes').addColumn('pr_opening_since', 'text').execute();
  // The job attempt that owns the running run: an attempt that lost its lease can no longer change the fix.
  await db.schema.alterTable('fixes').addColumn('run_attempt', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // Fixes stored before fixes ran have no job and never will: end them with a reason instead of leaving them pending.
  const now = new Date().toISOString();
  await db.updateTable('fixes').set({ runs: 1 }).execute();
  await db
    .updateTable('fixes')
    .set({
      status: 'failed',
      error_message: 'This fix was created before this server ran fixes; create it again to run it.',
      completed_at: now,
      updated_at: now,
    })
    .where('status', 'in', ['pending', 'running'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['pr_opening_since', 'run_attempt', 'runs', 'diff_ciphertext', 'verification', 'agent_output_tokens', 'agent_input_tokens']) {
    await db.schema.alterTable('fixes').dropColumn(column).execute();
  }
}
