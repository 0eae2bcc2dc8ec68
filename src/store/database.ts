import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect, sql, type KyselyPlugin } from 'kysely';
import type { Settings } from '../config.ts';
import type { Database } from './schema.ts';
import { currentCancelSignal, RequestCancelledError } from '../core/cancellation.ts';
import { countingWrites, postgresChangeEpoch, sqliteChangeEpoch, type ChangeEpoch, type WriteCount } from './change-epoch.ts';
import { sqliteWorkerDialect } from './sqlite-adapter.ts';
import { introspectingCurrentSchema } from './current-schema-introspector.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Where the data lives, for humans: the SQLite file or the PostgreSQL URL without credentials. */
  location: string;
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  /** Starts following commits to this database, by any process (see change-epoch.ts); the caller closes it. */
  watchChanges(): ChangeEpoch;
  close(): Promise<void>;
}

async function ping(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}

/**
 * Brings the query planner's statistics up to date (and, on PostgreSQL, the visibility map that lets
 * index-only scans skip the table): worth running after a bulk load.
 */
export async function refreshPlannerStatistics(store: Store): Promise<void> {
  await sql.raw(store.dialect === 'postgres' ? 'vacuum analyze' : 'analyze').execute(store.db);
}

export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparseable url)';
  }
}

/** Refuses to send a query for a request whose client has gone (src/core/cancellation.ts). */
const skipCancelled: KyselyPlugin = {
  transformQuery(args) {
    if (currentCancelSignal()?.aborted) throw new RequestCancelledError();
    return args.node;
  },
  transformResult: async (args) => args.result,
};

export function openStore(settings: Pick<Settings, 'databaseUrl' | 'dataDir'>): Store {
  if (settings.databaseUrl) {
    const databaseUrl = settings.databaseUrl;
    // The driver is loaded with the first query, so a process on SQLite never holds it.
    const pool = async () => {
      const { default: pg } = await import('pg');
      // COUNT(*) and BIGINT come back from pg as strings; every count here fits a JS number.
      pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
      const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
      // An idle client losing its connection must not crash the process; the pool replaces it.
      pool.on('error', () => {});
      return pool;
    };
    const writes: WriteCount = { count: 0 };
    const db = new Kysely<Database>({ dialect: countingWrites(introspectingCurrentSchema(new PostgresDialect({ pool })), writes), plugins: [skipCancelled] });
    return {
      db,
      dialect: 'postgres',
      location: redactDatabaseUrl(databaseUrl),
      ping: () => ping(db),
      watchChanges: () => postgresChangeEpoch(databaseUrl, writes),
      close: () => db.destroy(),
    };
  }
  fs.mkdirSync(settings.dataDir, { recursive: true });
  const file = path.join(settings.dataDir, 'bulwark.db');
  const writes: WriteCount = { count: 0 };
  const db = new Kysely<Database>({ dialect: countingWrites(sqliteWorkerDialect(file), writes), plugins: [skipCancelled] });
  return { db, dialect: 'sqlite', location: file, ping: () => ping(db), watchChanges: () => sqliteChangeEpoch(file, writes), close: () => db.destroy() };
}
