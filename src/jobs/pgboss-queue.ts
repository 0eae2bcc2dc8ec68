import { CompiledQuery, sql, type Kysely } from 'kysely';
import { PgBoss } from 'pg-boss';
import type { Store } from '../store/database.ts';
import type { Database } from '../store/schema.ts';
import { JOB_KINDS, type EnqueueOptions, type JobHandlers, type JobKind, type JobQueue, type QueueSettings, type WorkerOptions } from './queue.ts';

const deadLetterOf = (kind: JobKind) => `${kind}-given-up`;
const MAX_JOB_SECONDS = 6 * 3600;

/** pg-boss's database adapter shape, through which it writes a job inside the caller's transaction. */
interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

function inTransaction(trx: Kysely<Database>): SqlExecutor {
  return {
    async executeSql(text: string, values: unknown[] = []) {
      const result = await trx.executeQuery(CompiledQuery.raw(text, values));
      return { rows: result.rows as unknown[] };
    },
  };
}

/**
 * Jobs distributed through pg-boss on the service's PostgreSQL database, so `bulwark worker` processes
 * on any number of machines share the work. A job whose worker stops sending heartbeats is retried;
 * one that exhausts its retries lands in a dead-letter queue whose handler ends its record.
 */
export class PgBossQueue implements JobQueue {
  readonly name = 'pg-boss';
  private readonly boss: PgBoss;
  private readonly settings: QueueSettings;
  private readonly ready: Promise<void>;
  private readonly created = new Set<string>();

  private constructor(boss: PgBoss, settings: QueueSettings) {
    this.boss = boss;
    this.settings = settings;
    this.boss.on('error', () => {}); // surfaced through failed jobs; an idle connection error must not crash the process
    this.ready = this.boss.start().then(() => undefined);
  }

  /** pg-boss keeps its tables in a schema named after the service's own, so several deployments can share a server. */
  static async open(store: Store, databaseUrl: string, settings: QueueSettings): Promise<PgBossQueue> {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db);
    const schema = `${rows[0]?.schema ?? 'public'}_jobs`;
    // How soon a dead worker's job is noticed: the supervisor and monitor passes run at half the lease.
    const passSeconds = Math.max(1, Math.min(30, Math.floor(settings.leaseSeconds / 2)));
    const boss = new PgBoss({
      connectionString: databaseUrl,
      schema,
      max: 4,
      superviseIntervalSeconds: passSeconds,
      monitorIntervalSeconds: passSeconds,
    });
    const queue = new PgBossQueue(boss, settings);
    await queue.ready;
    return queue;
  }

  private async ensureQueue(kind: JobKind): Promise<void> {
    if (this.created.has(kind)) return;
    await this.ready;
    await this.boss.createQueue(deadLetterOf(kind));
    await this.boss.createQueue(kind, {
      // One queued or running job per key: a scan or a batch's conclusion queued twice runs once.
      policy: kind === 'scan' || kind === 'scan-batch-conclude' ? 'exclusive' : 'standard',
      retryLimit: this.settings.maxAttempts - 1,
      retryDelay: 1,
      retryBackoff: true,
      heartbeatSeconds: Math.max(10, this.settings.leaseSeconds),
      // Heartbeats catch dead workers; this only bounds a live one that never finishes.
      expireInSeconds: MAX_JOB_SECONDS,
      deadLetter: deadLetterOf(kind),
    });
    this.created.add(kind);
  }

  async enqueue(trx: Kysely<Database>, kind: JobKind, key: string, options: EnqueueOptions = {}): Promise<void> {
    await this.ensureQueue(kind);
    // Retries travel with the job, so the enqueuing node's settings decide them.
    await this.boss.send(kind, { key }, {
      singletonKey: key,
      retryLimit: this.settings.maxAttempts - 1,
      ...(options.group ? { group: { id: options.group } } : {}),
      db: inTransaction(trx),
    });
  }

  async work(kind: JobKind, handlers: JobHandlers, options: WorkerOptions): Promise<void> {
    await this.ensureQueue(kind);
    await this.boss.work<{ key: string }>(kind, {
        localConcurrency: Math.max(1, options.concurrency),
        batchSize: 1,
        pollingIntervalSeconds: 0.5,
        // Counted in the database, so the cap holds across every worker process.
        ...(options.groupConcurrency ? { groupConcurrency: options.groupConcurrency } : {}),
      }, async ([job]) => {
      await handlers.run(job.data.key, { attempt: job.retryCount + 1, signal: job.signal });
    });
    await this.boss.work<{ key: string }>(deadLetterOf(kind), { batchSize: 1 }, async ([job]) => {
      await handlers.giveUp(job.data.key, `gave up after ${this.settings.maxAttempts} attempts`);
    });
  }

  /** pg-boss's own queue counts, which its monitor refreshes every pass. */
  async depth() {
    await this.ready;
    const rows: { kind: string; state: 'queued' | 'running'; count: number }[] = [];
    for (const kind of JOB_KINDS) {
      const queue = await this.boss.getQueue(kind);
      if (!queue) continue;
      rows.push({ kind, state: 'queued', count: queue.queuedCount }, { kind, state: 'running', count: queue.activeCount });
    }
    return rows;
  }

  async stop(): Promise<void> {
    await this.ready.catch(() => {});
    await this.boss.stop({ graceful: true, timeout: 10_000 });
  }
}
