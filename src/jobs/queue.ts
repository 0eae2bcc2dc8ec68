import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';

/**
 * What kinds of work the service hands to workers; each job names one record by id. A batch job plans
 * its scans, each scan (one source repository) is a job of its own, and the last scan to end queues
 * the batch's conclusion. A code host's webhook delivery is applied by a job of its own, and a scan of a
 * pull request it reports is one too.
 */
export const JOB_KINDS = ['scan-batch', 'scan', 'scan-batch-conclude', 'fix-run', 'code-host-delivery', 'pull-request-scan'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export interface JobContext {
  /** 1 for the first run; a job whose worker died is run again with the next number. */
  attempt: number;
  /** Aborted when the job's lease is lost or the worker stops; long steps should give up. */
  signal: AbortSignal;
}

export interface JobHandlers {
  run(key: string, context: JobContext): Promise<void>;
  /** Called once when a job will not be tried again, so its record can be ended cleanly. */
  giveUp(key: string, reason: string): Promise<void>;
}

export interface EnqueueOptions {
  /** Jobs of one group (an organization) share a cap on how many run at once, so no group starves the others. */
  group?: string;
}

export interface WorkerOptions {
  concurrency: number;
  /** At most this many jobs of one group run at once, across every worker sharing the queue. */
  groupConcurrency?: number;
}

/**
 * Durable work distribution. `enqueue` joins the caller's transaction, so a job exists exactly when the
 * record it names was committed. A job whose worker dies is run again after its lease lapses, and given
 * up after its last attempt.
 */
export interface JobQueue {
  readonly name: string;
  enqueue(trx: Kysely<Database>, kind: JobKind, key: string, options?: EnqueueOptions): Promise<void>;
  work(kind: JobKind, handlers: JobHandlers, options: WorkerOptions): Promise<void>;
  /** Jobs waiting and running now, by kind, across every process sharing the queue. */
  depth(): Promise<{ kind: string; state: 'queued' | 'running'; count: number }[]>;
  stop(): Promise<void>;
}

export interface QueueSettings {
  /** Seconds a running job may go without a heartbeat before another worker takes it over. */
  leaseSeconds: number;
  maxAttempts: number;
}
