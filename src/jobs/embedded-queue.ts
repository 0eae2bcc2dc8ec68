import { EventEmitter } from 'node:events';
import { sql, type Kysely } from 'kysely';
import { newId } from '../ids.ts';
import type { Store } from '../store/database.ts';
import type { Database, JobRow } from '../store/schema.ts';
import type { JobContext, JobHandlers, JobKind, JobQueue, QueueSettings, WorkerOptions } from './queue.ts';

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

  async enqueue(trx: Kysely<Database>, kind: JobKind, key: string): Promise<void> {
    const now = new Date().toISOString();
    await trx
      .insertInto('jobs')
      .values({
        id: newId(),
        kind,
        key,
        state: 'queued',
        attempts: 0,
        max_attempts: this.settings.maxAttempts,
        run_after: now,
        lease_until: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(['kind', 'key']).doNothing())
      .execute();
    this.wake.emit(kind);
  }

  async work(kind: JobKind, handlers: JobHandlers, options: WorkerOptions): Promise<void> {
    for (let i = 0; i < Math.max(1, options.concurrency); i++) {
      const loop = this.loop(kind, handlers);
      this.running.add(loop);
      loop.finally(() => this.running.delete(loop));
    }
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

  /** Takes the oldest runnable job: queued and due, or running with a lapsed lease. */
  private async claim(kind: JobKind): Promise<JobRow | undefined> {
    const now = new Date().toISOString();
    const candidate = this.db
      .selectFrom('jobs')
      .select('id')
      .where('kind', '=', kind)
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'queued'), eb('run_after', '<=', now)]),
          eb.and([eb('state', '=', 'running'), eb('lease_until', '<', now)]),
        ]),
      )
      .orderBy('created_at')
      .limit(1);
    return this.db
      .updateTable('jobs')
      .set({ state: 'running', attempts: sql`attempts + 1`, lease_until: this.leaseUntil(), updated_at: now })
      .where('id', '=', candidate)
      .where((eb) => eb.or([eb('state', '=', 'queued'), eb('lease_until', '<', now)]))
      .returningAll()
      .executeTakeFirst();
  }

  private async settle(job: JobRow, changes: Partial<JobRow>): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set({ ...changes, updated_at: new Date().toISOString() })
      .where('id', '=', job.id)
      .where('attempts', '=', job.attempts)
      .execute();
  }

  private async loop(kind: JobKind, handlers: JobHandlers): Promise<void> {
    while (!this.stopped) {
      let job: JobRow | undefined;
      try {
        job = await this.claim(kind);
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
      const result = await this.db
        .updateTable('jobs')
        .set({ lease_until: this.leaseUntil() })
        .where('id', '=', job.id)
        .where('attempts', '=', job.attempts)
        .executeTakeFirst()
        .catch(() => undefined);
      if (result && Number(result.numUpdatedRows) === 0) controller.abort(new Error('lease lost'));
    }, (this.settings.leaseSeconds * 1000) / 3);
    const context: JobContext = { attempt: job.attempts, signal: controller.signal };
    try {
      await handlers.run(job.key, context);
      await this.settle(job, { state: 'done', lease_until: null, last_error: null });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (this.stopped) {
        // Stopping mid-job: leave it to the lease, so the next worker picks it up.
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
