import { statusMachine } from './machine.ts';

export type JobState = 'queued' | 'running' | 'done' | 'dead';

/**
 * A job of the embedded queue: queued → running when a worker claims it; running → done, → queued again
 * (a retry after a failure, or handed back by a stopping worker), or → dead once its attempts are spent.
 * A running job whose lease lapsed is claimed again (running → running). Done and dead jobs are final.
 */
export const JOB_STATE = statusMachine<JobState>('job', {
  queued: ['running'],
  running: ['running', 'queued', 'done', 'dead'],
  done: [],
  dead: [],
});
