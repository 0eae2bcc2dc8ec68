import { PostgresAdapter, sql, type CompiledQuery, type Kysely, type KyselyPlugin, type RootOperationNode } from 'kysely';
import type { Database } from './schema.ts';

/** A Kysely plugin that keeps every query it sees, so their plans can be read afterwards. */
export function queryRecorder(): { plugin: KyselyPlugin; queries: RootOperationNode[] } {
  const queries: RootOperationNode[] = [];
  return {
    queries,
    plugin: {
      transformQuery: (args) => {
        queries.push(args.node);
        return args.node;
      },
      transformResult: async (args) => args.result,
    },
  };
}

/**
 * The plan the database picks for a query, one line per step. On PostgreSQL sequential scans and sorts
 * are priced out first (`enable_seqscan`, `enable_sort` off, for this transaction only), so a tiny test
 * table cannot hide a missing index: a plan that still scans or sorts has no index that serves it.
 */
export async function planOf(db: Kysely<Database>, node: RootOperationNode): Promise<string[]> {
  const compiled: CompiledQuery = db.getExecutor().compileQuery(node, { queryId: 'plan' } as never);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    return db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_sort = off`.execute(trx);
      const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>({ ...compiled, sql: `explain ${compiled.sql}` });
      return rows.map((r) => r['QUERY PLAN']);
    });
  }
  const { rows } = await db.executeQuery<{ detail: string }>({ ...compiled, sql: `explain query plan ${compiled.sql}` });
  return rows.map((r) => r.detail);
}
