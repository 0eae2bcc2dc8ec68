import type { Kysely } from 'kysely';
import type { Database, TaskLeasesTable } from './schema.ts';
import type { Selectable } from 'kysely';

export type TaskLeaseRow = Selectable<TaskLeasesTable>;

/**
 * Takes the named task for `holder` until `leaseUntil` when no one holds it (or the holder's lease
 * lapsed) and its last start is at or before `dueBefore`; true when this holder has it. One statement,
 * so of several processes asking at once exactly one gets it.
 */
export async function takeTaskLease(
  db: Kysely<Database>,
  name: string,
  holder: string,
  now: string,
  leaseUntil: string,
  dueBefore: string,
): Promise<boolean> {
  await db
    .insertInto('task_leases')
    .values({ name, holder: null, lease_until: null, last_started_at: null, last_finished_at: null, last_error: null })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const taken = await db
    .updateTable('task_leases')
    .set({ holder, lease_until: leaseUntil, last_started_at: now })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .where((eb) => eb.or([eb('last_started_at', 'is', null), eb('last_started_at', '<=', dueBefore)]))
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

/** Keeps the lease while the task runs; false when it was lost. */
export async function renewTaskLease(db: Kysely<Database>, name: string, holder: string, leaseUntil: string): Promise<boolean> {
  const renewed = await db
    .updateTable('task_leases')
    .set({ lease_until: leaseUntil })
    .where('name', '=', name)
    .where('holder', '=', holder)
    .executeTakeFirst();
  return Number(renewed.numUpdatedRows) === 1;
}

/** Ends the run: the lease is released and how it went recorded. */
export async function releaseTaskLease(db: Kysely<Database>, name: string, holder: string, finishedAt: string, error: string | null): Promise<void> {
  await db
    .updateTable('task_leases')
    .set({ holder: null, lease_until: null, last_finished_at: finishedAt, last_error: error })
    .where('name', '=', name)
    .where('holder', '=', holder)
    .execute();
}

export async function taskLease(db: Kysely<Database>, name: string): Promise<TaskLeaseRow | undefined> {
  return db.selectFrom('task_leases').selectAll().where('name', '=', name).executeTakeFirst();
}
