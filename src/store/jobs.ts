import { sql, type Kysely } from 'kysely';
import { JOB_STATE, type JobState } from '../core/states/job-state.ts';
import type { Database, JobRow } from './schema.ts';

type NewJob = Pick<JobRow, 'id' | 'kind' | 'key' | 'max_attempts' | 'group_key'>;

/** Queues a job unless one with the same kind and key exists (a job per batch or fix, never two). */
export async function insertJobOnce(db: Kysely<Database>, job: NewJob, now: string): Promise<void> {
  await db
    .insertInto('jobs')
    .values({ ...job, state: 'queued', attempts: 0, run_after: now, lease_until: null, last_error: null, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['kind', 'key']).doNothing())
    .execute();
}

/**
 * Takes a runnable job of a kind, queued and due or running with a lapsed lease, in one UPDATE, so
 * several processes sharing one database never take the same job. Jobs of the group with the fewest
 * running go first (then the oldest), and a group with `groupCap` running waits, so one group's backlog
 * never holds back another's.
 */
export async function claimJob(
  db: Kysely<Database>,
  kind: string,
  now: string,
  leaseUntil: string,
  groupCap?: number,
): Promise<JobRow | undefined> {
  const runningOfGroup = sql<number>`(select count(*) from jobs r where r.kind = ${kind} and r.group_key = j.group_key and r.state = 'running' and r.lease_until >= ${now})`;
  let candidate = db
    .selectFrom('jobs as j')
    .select('j.id')
    .where('j.kind', '=', kind)
    .where((eb) =>
      eb.or([
        eb.and([eb('j.state', '=', 'queued'), eb('j.run_after', '<=', now)]),
        eb.and([eb('j.state', '=', 'running'), eb('j.lease_until', '<', now)]),
      ]),
    );
  if (groupCap !== undefined) candidate = candidate.where((eb) => eb.or([eb('j.group_key', 'is', null), eb(runningOfGroup, '<', groupCap)]));
  const first = candidate.orderBy(sql`coalesce(${runningOfGroup}, 0)`).orderBy('j.created_at').limit(1);
  return db
    .updateTable('jobs')
    .set({ state: 'running', attempts: sql`attempts + 1`, lease_until: leaseUntil, updated_at: now })
    .where('id', '=', first)
    .where('state', 'in', JOB_STATE.sourcesOf('running'))
    .where((eb) => eb.or([eb('state', '=', 'queued'), eb('lease_until', '<', now)]))
    .returningAll()
    .executeTakeFirst();
}

/**
 * Records the outcome of one attempt, moving the job to `to` from a state the machine allows; a later
 * attempt that took the job over is left alone. Returns whether it moved.
 */
export async function settleJobAttempt(
  db: Kysely<Database>,
  job: JobRow,
  to: JobState,
  changes: Partial<Omit<JobRow, 'state'>>,
  now: string,
): Promise<boolean> {
  const sources = JOB_STATE.sourcesOf(to);
  if (!sources.length) return false;
  const result = await db
    .updateTable('jobs')
    .set({ ...changes, state: to, updated_at: now })
    .where('id', '=', job.id)
    .where('attempts', '=', job.attempts)
    .where('state', 'in', sources)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Extends the lease of this attempt; false when another attempt owns the job now. */
export async function extendJobLease(db: Kysely<Database>, job: JobRow, leaseUntil: string): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ lease_until: leaseUntil })
    .where('id', '=', job.id)
    .where('attempts', '=', job.attempts)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Jobs waiting (queued) and running, by kind. */
export async function countOpenJobs(db: Kysely<Database>): Promise<{ kind: string; state: 'queued' | 'running'; count: number }[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['kind', 'state', (eb) => eb.fn.countAll<number>().as('count')])
    .where('state', 'in', ['queued', 'running'])
    .groupBy(['kind', 'state'])
    .execute();
  return rows.map((r) => ({ kind: r.kind, state: r.state as 'queued' | 'running', count: Number(r.count) }));
}
