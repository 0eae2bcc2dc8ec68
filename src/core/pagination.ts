import { sql, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../store/schema.ts';

export interface PageRequest {
  limit: number;
  skip: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  skip: number;
  has_next: boolean;
}

export function toPage<T>(items: T[], total: number, request: PageRequest): Page<T> {
  return { items, total, limit: request.limit, skip: request.skip, has_next: request.skip + items.length < total };
}

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
