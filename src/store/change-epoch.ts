import { randomUUID } from 'node:crypto';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, TransactionSettings } from 'kysely';
import { onlyReads } from './dialect.ts';
import { withWellFormedText } from './well-formed-text.ts';

/**
 * A number that moves whenever a commit may have changed what a read returns, by this process or any
 * other sharing the database: what a cache of reads checks its entries against (see http/page-cache.ts).
 * An entry stored with the epoch read before its data was read is good while the epoch stays the same.
 */
export interface ChangeEpoch {
  /** The epoch now; null while this process cannot tell whether the data changed, when nothing may be served from a cache. */
  current(): number | null;
  close(): Promise<void>;
}

/** The channel migration 014's triggers notify on PostgreSQL after every statement that changes an API-visible table. */
export const CHANGES_CHANNEL = 'bulwark_changes';

/** How many statements that may have written this process has seen complete (see countingWrites). */
export interface WriteCount {
  count: number;
}

/**
 * SQLite counts commits for us: `PRAGMA data_version` on a connection changes whenever another
 * connection (the writer thread, another process) has committed since the last time it was asked. The
 * connection is this thread's own, read-only, and asking costs a few microseconds without waiting on any
 * lock (busy_timeout 0: a locked file means "cannot tell", never a stall of the event loop). It is asked
 * once per turn of the event loop, which also answers every request that turn parses; this process's own
 * writes move the epoch as each completes, so a client still reads its own writes at once.
 */
class SqliteChangeEpoch implements ChangeEpoch {
  private readonly file: string;
  private readonly writes: WriteCount;
  private database: DatabaseSync | null = null;
  private statement: StatementSync | null = null;
  private epoch: number | null = null;
  private askedThisTurn = false;
  private readonly nextTurn = () => (this.askedThisTurn = false);

  constructor(file: string, writes: WriteCount) {
    this.file = file;
    this.writes = writes;
  }

  current(): number | null {
    if (!this.askedThisTurn) {
      this.askedThisTurn = true;
      setImmediate(this.nextTurn);
      this.epoch = this.ask();
    }
    return this.epoch === null ? null : this.epoch + this.writes.count;
  }

  private ask(): number | null {
    try {
      if (!this.statement) {
        this.database = new DatabaseSync(this.file, { readOnly: true, timeout: 0 });
        this.statement = this.database.prepare('pragma data_version');
      }
      // A count that only grows, so the sum with this process's own writes moves whenever either does.
      return Number((this.statement.get() as { data_version: number }).data_version);
    } catch {
      return null;
    }
  }

  async close(): Promise<void> {
    this.database?.close();
    this.database = null;
    this.statement = null;
  }
}

const RECONNECT_MS = 1000;

const HEARTBEAT_MS = 5000;
/** Notices whose payload starts so are a listener's heartbeats, not changes. */
const HEARTBEAT_PREFIX = 'heartbeat:';

/**
 * PostgreSQL tells every listening session after each commit that touched a watched table (LISTEN/NOTIFY,
 * migration 014). The notice comes a moment after the commit, so this process's own writes also move the
 * epoch as they complete (a client reads its own writes at once). The listener notifies itself every few
 * seconds: until that heartbeat has come back lately, the epoch is unknown, so a connection that died
 * without a word, or a pooler that does not pass notices on (PgBouncer in transaction mode), turns caching
 * off rather than leaving it stale. A reconnection moves the epoch: notices sent while nobody listened are lost.
 */
class PostgresChangeEpoch implements ChangeEpoch {
  private readonly url: string;
  private readonly writes: WriteCount;
  private epoch = 0;
  private lastHeartbeat = 0;
  private heartbeat: NodeJS.Timeout | null = null;
  private listening = false;
  private client: import('pg').Client | null = null;
  private reconnect: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(url: string, writes: WriteCount) {
    this.url = url;
    this.writes = writes;
    void this.connect();
  }

  private async connect() {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: this.url, keepAlive: true, application_name: 'bulwark change listener' });
    this.client = client;
    const beat = `${HEARTBEAT_PREFIX}${randomUUID()}`;
    client.on('notification', ({ payload }) => {
      if (payload === beat) this.lastHeartbeat = Date.now();
      else if (!payload?.startsWith(HEARTBEAT_PREFIX)) this.epoch++;
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    const sendBeat = () => client.query('select pg_notify($1, $2)', [CHANGES_CHANNEL, beat]).catch(() => this.lost(client));
    try {
      await client.connect();
      await client.query(`listen ${CHANGES_CHANNEL}`);
    } catch {
      this.lost(client);
      return;
    }
    if (this.client !== client) return;
    this.epoch++;
    this.listening = true;
    void sendBeat();
    this.heartbeat = setInterval(sendBeat, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  private lost(client: import('pg').Client) {
    if (this.client !== client) return;
    this.client = null;
    this.listening = false;
    this.lastHeartbeat = 0;
    this.epoch++;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    client.end().catch(() => {});
    if (this.closed || this.reconnect) return;
    this.reconnect = setTimeout(() => {
      this.reconnect = null;
      if (!this.closed) void this.connect();
    }, RECONNECT_MS);
    this.reconnect.unref();
  }

  current(): number | null {
    if (!this.listening || Date.now() - this.lastHeartbeat > 3 * HEARTBEAT_MS) return null;
    return this.epoch + this.writes.count;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnect) clearTimeout(this.reconnect);
    if (this.heartbeat) clearInterval(this.heartbeat);
    const client = this.client;
    this.client = null;
    this.listening = false;
    await client?.end().catch(() => {});
  }
}

export function sqliteChangeEpoch(file: string, writes: WriteCount): ChangeEpoch {
  return new SqliteChangeEpoch(file, writes);
}

export function postgresChangeEpoch(url: string, writes: WriteCount): ChangeEpoch {
  return new PostgresChangeEpoch(url, writes);
}

/**
 * A dialect whose connections count every statement but a read once it has completed, a COMMIT included;
 * an UPDATE or DELETE that matched no row (an idle job poll) is not counted. Every statement's text
 * parameters pass through withWellFormedText on the way (well-formed-text.ts).
 */
export function countingWrites(dialect: Dialect, writes: WriteCount): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => countingDriver(dialect.createDriver(), writes),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  };
}

class CountingConnection implements DatabaseConnection {
  readonly inner: DatabaseConnection;
  private readonly writes: WriteCount;

  constructor(inner: DatabaseConnection, writes: WriteCount) {
    this.inner = inner;
    this.writes = writes;
  }

  async executeQuery<R>(query: CompiledQuery) {
    const result = await this.inner.executeQuery<R>(withWellFormedText(query));
    if (!onlyReads(query) && result.numAffectedRows !== 0n) this.writes.count++;
    return result;
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number) {
    return this.inner.streamQuery<R>(withWellFormedText(query), chunkSize);
  }
}

/** The dialect's own driver, handed its own connections; COMMIT, sent by it, is counted here. */
class CountingDriver implements Driver {
  private readonly inner: Driver;
  private readonly writes: WriteCount;

  constructor(inner: Driver, writes: WriteCount) {
    this.inner = inner;
    this.writes = writes;
  }

  init() {
    return this.inner.init();
  }

  async acquireConnection() {
    return new CountingConnection(await this.inner.acquireConnection(), this.writes);
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    return this.inner.beginTransaction(innerOf(connection), settings);
  }

  async commitTransaction(connection: DatabaseConnection) {
    await this.inner.commitTransaction(innerOf(connection));
    this.writes.count++;
  }

  rollbackTransaction(connection: DatabaseConnection) {
    return this.inner.rollbackTransaction(innerOf(connection));
  }

  releaseConnection(connection: DatabaseConnection) {
    return this.inner.releaseConnection(innerOf(connection));
  }

  destroy() {
    return this.inner.destroy();
  }
}

/** The counting driver, with savepoints where the dialect's own driver has them (Kysely asks which it has). */
function countingDriver(inner: Driver, writes: WriteCount): Driver {
  const driver: Driver = new CountingDriver(inner, writes);
  for (const method of ['savepoint', 'rollbackToSavepoint', 'releaseSavepoint'] as const) {
    const own = inner[method];
    if (own) driver[method] = (connection, name, compileQuery) => own.call(inner, innerOf(connection), name, compileQuery);
  }
  return driver;
}

function innerOf(connection: DatabaseConnection): DatabaseConnection {
  return connection instanceof CountingConnection ? connection.inner : connection;
}
