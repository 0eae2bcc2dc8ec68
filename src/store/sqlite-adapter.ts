import os from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';
import { onlyReads } from './dialect.ts';
import { currentBulkRead, currentReadLane, FairTurns, type BulkRead } from './read-lanes.ts';
import type { SharedBytes, SqliteReply, SqliteRequest } from './sqlite-worker.js';

// node:sqlite is synchronous: run on the event loop, one slow query would stall every request. So each
// SQLite connection lives in a worker thread (sqlite-worker.js): one writer, which runs every write and
// every transaction, one at a time as SQLite allows, and a few readers (WAL mode lets them read while
// the writer writes) that share the reads made outside transactions. Kysely talks to them through this
// dialect; parameters are converted here as node:sqlite wants them (no booleans, no Dates).

function toSqlite(value: unknown) {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  return value as never;
}

interface Pending {
  resolve: (reply: SqliteReply) => void;
}

/** The rows with each value the thread placed in `into` (see sqlite-worker.js) made a Buffer view of it. */
function viewsOfPlacedValues(rows: Record<string, unknown>[], { buffer, column }: NonNullable<BulkRead['into']>) {
  for (const row of rows) {
    const value = row[column];
    if (value === null || typeof value !== 'object' || !('sharedOffset' in value)) continue;
    const { sharedOffset, sharedLength } = value as SharedBytes;
    row[column] = Buffer.from(buffer, sharedOffset, sharedLength);
  }
  return rows;
}

/** One worker thread holding one connection; statements queue in order. */
class SqliteThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  /** Why the thread is gone, once it is: it answers nothing more, and the driver replaces it. */
  failure: string | null = null;

  constructor(filename: string, reader: boolean) {
    // Every page a reader hands over is garbage at once; a small young generation collects it early
    // instead of letting each thread's dead pages grow to V8's default tens of megabytes.
    this.worker = new Worker(new URL('./sqlite-worker.js', import.meta.url), {
      workerData: { filename, reader },
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
    this.worker.on('message', (reply: SqliteReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) this.worker.unref();
      waiting?.resolve(reply);
    });
    this.worker.on('error', (error) => this.fail(`SQLite worker failed: ${error.message}`));
    this.worker.on('exit', (code) => this.fail(`SQLite worker exited (code ${code})`));
    // An idle worker must not keep the process alive; one with statements to answer must.
    this.worker.unref();
  }

  private fail(reason: string) {
    this.failure ??= reason;
    for (const waiting of this.pending.values()) waiting.resolve({ id: -1, error: { message: this.failure } });
    this.pending.clear();
  }

  /** Statements sent but not answered yet. */
  get load(): number {
    return this.pending.size;
  }

  async run(query: CompiledQuery, into?: BulkRead['into']): Promise<QueryResult<unknown>> {
    if (this.failure) throw new Error(this.failure);
    const id = this.nextId++;
    const request: SqliteRequest = { id, sql: query.sql, parameters: query.parameters.map(toSqlite), into };
    const reply = await new Promise<SqliteReply>((resolve) => {
      this.pending.set(id, { resolve });
      this.worker.ref();
      this.worker.postMessage(request);
    });
    if (reply.error) throw Object.assign(new Error(reply.error.message), reply.error);
    if (reply.rows) return { rows: into ? viewsOfPlacedValues(reply.rows as Record<string, unknown>[], into) : reply.rows };
    return { rows: [], numAffectedRows: BigInt(reply.changes ?? 0), insertId: BigInt(reply.lastInsertRowid ?? 0) };
  }

  async close(): Promise<void> {
    if (this.failure) return;
    const exited = new Promise((resolve) => this.worker.once('exit', resolve));
    this.worker.ref();
    this.worker.postMessage('close');
    await exited;
  }
}

/** A FIFO lock: the writer runs one transaction (or one lone write) at a time. */
class Lock {
  private tail: Promise<void> = Promise.resolve();

  acquire(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const ready = this.tail.then(() => release);
    this.tail = this.tail.then(() => held);
    return ready;
  }
}

class WorkerConnection implements DatabaseConnection {
  private readonly driver: WorkerSqliteDriver;
  /** Set while this connection holds the writer for a transaction. */
  releaseWriter: (() => void) | null = null;

  constructor(driver: WorkerSqliteDriver) {
    this.driver = driver;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.releaseWriter) return (await this.driver.writer.run(query)) as QueryResult<R>;
    // Reads may go to a reader when outside a transaction.
    if (onlyReads(query)) {
      const bulk = currentBulkRead();
      const read = () => this.driver.leastBusyReader(bulk !== undefined).run(query, bulk?.into);
      // A bulk read takes its turns in a lane of its own, beside its organization's short reads.
      const lane = bulk ? `${currentReadLane()}\0bulk` : currentReadLane();
      return (await this.driver.readTurns.run(lane, read)) as QueryResult<R>;
    }
    const release = await this.driver.writerLock.acquire();
    try {
      return (await this.driver.liveWriter().run(query)) as QueryResult<R>;
    } finally {
      release();
    }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported on SQLite: read in keyset pages');
  }
}

class WorkerSqliteDriver implements Driver {
  private readonly filename: string;
  private readonly readerCount: number;
  writer!: SqliteThread;
  readonly writerLock = new Lock();
  private readers: SqliteThread[] = [];
  /**
   * One read per reader thread at a time, shared between organizations: a thread runs its statements
   * one after another, so a read sent to a busy thread would wait behind everything sent before it.
   */
  readonly readTurns: FairTurns;

  constructor(filename: string, readerCount: number) {
    this.filename = filename;
    this.readerCount = readerCount;
    this.readTurns = new FairTurns(readerCount);
  }

  async init(): Promise<void> {
    this.writer = new SqliteThread(this.filename, false);
    // The writer switches the file to WAL before any reader opens it.
    await this.writer.run(CompiledQuery.raw('select 1'));
    this.readers = Array.from({ length: this.readerCount }, () => new SqliteThread(this.filename, true));
  }

  /** The writer, replaced first if its thread is gone (a transaction it held has failed with it). */
  liveWriter(): SqliteThread {
    if (this.writer.failure) this.writer = new SqliteThread(this.filename, false);
    return this.writer;
  }

  /** The reader with the fewest statements waiting; a bulk read leaves the first reader to other reads. */
  leastBusyReader(bulk: boolean): SqliteThread {
    const first = bulk && this.readers.length > 1 ? 1 : 0;
    let best = this.readers[first];
    for (let i = first; i < this.readers.length; i++) {
      if (this.readers[i].failure) this.readers[i] = new SqliteThread(this.filename, true);
      if (this.readers[i].load < best.load || best.failure) best = this.readers[i];
    }
    return best;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new WorkerConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as WorkerConnection;
    c.releaseWriter = await this.writerLock.acquire();
    try {
      // IMMEDIATE takes SQLite's write lock now, waiting up to busy_timeout for another process's writer;
      // a deferred transaction that read first could not wait when it came to write (SQLITE_BUSY_SNAPSHOT).
      await this.liveWriter().run(CompiledQuery.raw('begin immediate'));
    } catch (error) {
      this.endTransaction(c);
      throw error;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.writer.run(CompiledQuery.raw('commit'));
    } finally {
      this.endTransaction(connection as WorkerConnection);
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.writer.run(CompiledQuery.raw('rollback'));
    } finally {
      this.endTransaction(connection as WorkerConnection);
    }
  }

  private endTransaction(connection: WorkerConnection) {
    connection.releaseWriter?.();
    connection.releaseWriter = null;
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    await Promise.all([this.writer, ...this.readers].map((thread) => thread.close()));
  }
}

/** How many reader threads a database gets: enough to keep every core busy, at least two. */
const defaultReaders = () => Math.max(2, Math.min(4, os.availableParallelism()));

/** Kysely's SQLite dialect with its connections in worker threads (one writer, `readers` readers). */
export function sqliteWorkerDialect(filename: string, readers = defaultReaders()): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new WorkerSqliteDriver(filename, readers),
    createIntrospector: (db: Kysely<any>) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}
