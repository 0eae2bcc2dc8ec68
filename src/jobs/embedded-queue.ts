import { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import { newId } from '../ids.ts';
import type { Store } from '../store/database.ts';
import { claimJob, countOpenJobs, extendJobLease, insertJobOnce, settleJobAttempt } from '../store/jobs.ts';
import type { Database, JobRow } from '../store/schema.ts';
import { JOB_KINDS, type EnqueueOptions, type JobContext, type JobHandlers, type JobKind, type JobQueue, type QueueSettings, type WorkerOptions } from './queue.ts';

const POLL_MS = 500;

/**
 * Jobs kept in the service's own database (the `jobs` table), for the embedded single-node setup.
 * Claims are single UPDATE statements, so several processes sharing one SQLite file never take the
 * same job; a lease kept fresh by heartbeats lets another worker take over from one that died.
 */
export class EmbeddedQueue implements JobQueue {
  readonly name = 'embedded';
  private readonly db: Kysely<Database>;
  private readonly settings: QueueSettings;
  private readonly wake = new EventEmitter();
  private readonly running = new Set<Promise<void>>();
  private readonly controllers = new Set<AbortController>();
  private stopped = false;

  constructor(store: Store, settings: QueueSettings) {
    this.db = store.db;
    this.settings = settings;
    this.wake.setMaxListeners(0);
  }

  async enqueue(trx: Kysely<Database>, kind: JobKind, key: string, options: EnqueueOptions = {}): Promise<void> {
    const job = { id: newId(), kind, key, max_attempts: this.settings.maxAttempts, group_key: options.group ?? null };
    await insertJobOnce(trx, job, new Date().toISOString());
    this.wake.emit(kind);
  }

  async work(kind: JobKind, handlers: JobHandlers, options: WorkerOptions): Promise<void> {
    for (let i = 0; i < Math.max(1, options.concurrency); i++) {
      const loop = this.loop(kind, handlers, options.groupConcurrency);
      this.running.add(loop);
      loop.finally(() => this.running.delete(loop));
    }
  }

  async depth() {
    const counted = await countOpenJobs(this.db);
    return JOB_KINDS.flatMap((kind) =>
      (['queued', 'running'] as const).map((state) => ({ kind, state, count: counted.find((c) => c.kind === kind && c.state === state)?.count ?? 0 })),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const controller of this.controllers) controller.abort(new Error('worker stopping'));
    this.wake.emit('stop');
    await Promise.allSettled([...this.running]);
  }

  private leaseUntil(): string {
    return new Date(Date.now() + this.settings.leaseSeconds * 1000).toISOString();
  }

  private async claim(kind: JobKind, groupCap?: number): Promise<JobRow | undefined> {
    return claimJob(this.db, kind, new Date().toISOString(), this.leaseUntil(), groupCap);
  }

  private async settle(job: JobRow, { state, ...changes }: Partial<JobRow> & Pick<JobRow, 'state'>): Promise<void> {
    await settleJobAttempt(this.db, job, state, changes, new Date().toISOString());
  }

  private async loop(kind: JobKind, handlers: JobHandlers, groupCap?: number): Promise<void> {
    while (!this.stopped) {
      let job: JobRow | undefined;
      try {
        job = await this.claim(kind, groupCap);
      } catch {
        job = undefined; // a busy database or a closing store: try again on the next tick
      }
      if (!job) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, POLL_MS);
          function done() {
            clearTimeout(timer);
            resolve();
          }
          this.wake.once(kind, done);
          this.wake.once('stop', done);
        });
        continue;
      }
      await this.execute(job, handlers);
    }
  }

  private async execute(job: JobRow, handlers: JobHandlers): Promise<void> {
    if (job.attempts > job.max_attempts) {
      const reason = `gave up after ${job.max_attempts} attempts: ${job.last_error ?? 'the worker stopped before finishing'}`;
      await handlers.giveUp(job.key, reason).catch(() => {});
      await this.settle(job, { state: 'dead', lease_until: null, last_error: reason });
      return;
    }
    const controller = new AbortController();
    this.controllers.add(controller);
    const heartbeat = setInterval(async () => {
      const stillOwned = await extendJobLease(this.db, job, this.leaseUntil()).catch(() => true);
      if (!stillOwned) controller.abort(new Error('lease lost'));
    }, (this.settings.leaseSeconds * 1000) / 3);
    const context: JobContext = { attempt: job.attempts, signal: controller.signal };
    try {
      await handlers.run(job.key, context);
      await this.settle(job, { state: 'done', lease_until: null, last_error: null });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (this.stopped) {
        // Stopping mid-job (SIGTERM): hand the job back at once, without counting the interrupted attempt,
        // so another worker takes it now instead of after the lease. A store already closing leaves it to the lease.
        await this.settle(job, { state: 'queued', lease_until: null, attempts: job.attempts - 1, run_after: new Date().toISOString() }).catch(() => {});
      } else if (job.attempts >= job.max_attempts) {
        await handlers.giveUp(job.key, message).catch(() => {});
        await this.settle(job, { state: 'dead', lease_until: null, last_error: message });
      } else {
        const backoffMs = 1000 * 2 ** (job.attempts - 1);
        await this.settle(job, {
          state: 'queued',
          lease_until: null,
          last_error: message,
          run_after: new Date(Date.now() + backoffMs).toISOString(),
        });
      }
    } finally {
      clearInterval(heartbeat);
      this.controllers.delete(controller);
    }
  }
}
