import { PostgresAdapter, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** Whether `db` talks to PostgreSQL (otherwise SQLite), for the few statements the two spell differently. */
export const isPostgres = (db: Kysely<Database>) => db.getExecutor().adapter instanceof PostgresAdapter;
