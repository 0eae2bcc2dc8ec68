import { PostgresAdapter, type CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** Whether `db` talks to PostgreSQL (otherwise SQLite), for the few statements the two spell differently. */
export const isPostgres = (db: Kysely<Database>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** Statements that only read: a SELECT, built or raw (a raw `WITH` may write, so it does not count). */
export function onlyReads(query: CompiledQuery): boolean {
  return query.query.kind === 'SelectQueryNode' || (query.query.kind === 'RawNode' && /^\s*(select|explain)\b/i.test(query.sql));
}
