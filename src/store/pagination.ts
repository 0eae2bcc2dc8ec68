import { sql, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { PageRequest } from '../core/pagination.ts';
import type { Database } from './schema.ts';

/**
 * One page of a filtered query, newest first (`id` breaks ties so pages never reorder), with the total
 * the filters match.
 */
export async function newestFirst<TB extends keyof Database & string>(
  query: SelectQueryBuilder<Database, TB, object>,
  page: PageRequest,
  timeColumn: 'created_at' | 'event_timestamp' = 'created_at',
): Promise<{ rows: Selectable<Database[TB]>[]; total: number }> {
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy(sql.ref(timeColumn), 'desc')
      .orderBy(sql.ref('id'), 'desc')
      .limit(page.limit)
      .offset(page.skip)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  // selectAll() of one table is exactly that table's row type; Kysely's generics cannot show it here.
  return { rows: rows as unknown as Selectable<Database[TB]>[], total: Number(count.n) };
}
