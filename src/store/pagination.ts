import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { PageRequest } from '../core/pagination.ts';
import type { Database } from './schema.ts';
import { VersionedCache } from './versioned-cache.ts';

type TimeColumn = 'created_at' | 'event_timestamp';

/**
 * One page of a filtered query, newest first (`id` breaks ties so pages never reorder), with the total
 * the filters match, counted row by row: for tables that stay small per scope (units, batches, fixes).
 */
export async function newestFirst<TB extends keyof Database & string>(
  query: SelectQueryBuilder<Database, TB, object>,
  page: PageRequest,
  timeColumn: TimeColumn = 'created_at',
): Promise<{ rows: Selectable<Database[TB]>[]; total: number }> {
  const [rows, count] = await Promise.all([
    ordered(query.selectAll(), timeColumn).limit(page.limit).offset(page.skip).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  // selectAll() of one table is exactly that table's row type; Kysely's generics cannot show it here.
  return { rows: rows as unknown as Selectable<Database[TB]>[], total: Number(count.n) };
}

function ordered<Q extends SelectQueryBuilder<any, any, any>>(query: Q, timeColumn: TimeColumn): Q {
  return query.orderBy(sql.ref(timeColumn), 'desc').orderBy(sql.ref('id'), 'desc') as Q;
}

/** Where a page starts: right after the row with this time and id, in newest-first order. */
interface Cursor {
  time: string;
  id: string;
}

/** The entries of the list that come after `cursor`, newest first. */
function after<Q extends SelectQueryBuilder<any, any, any>>(query: Q, timeColumn: TimeColumn, cursor: Cursor): Q {
  return query.where(sql<boolean>`(${sql.ref(timeColumn)}, ${sql.ref('id')}) < (${cursor.time}, ${cursor.id})`) as Q;
}

/**
 * Where pages of big lists start, so a `skip` seen before (the next page of a walk, or the same deep
 * page asked again) is a seek in the list's index rather than a walk over `skip` entries. An entry is
 * good only while its list's `version` (a sum of change counters the triggers of migration 012 keep)
 * is unchanged: any insert, delete or change of a filtered column in the scope moves it.
 */
const pageStarts = new VersionedCache<Cursor>(20_000);

export interface CountedList {
  /** Names the list: the table, its scope and its filters. */
  key: string;
  /** The list's change counter (see pageStarts). */
  version: number;
}

/**
 * A deep page's walk starts from the nearest start remembered at a multiple of this below it (and
 * remembers that one when it was not), so once a list's starts are known no page walks more than this
 * many entries, wherever its `skip` is.
 */
const CHECKPOINT = 1000;

/**
 * One page of a big list, newest first. The first page, and any page whose start is known for this
 * version of the list, is a range read right after a cursor; another deep page walks the index, reading
 * only the time and id it holds (no table rows), from the nearest checkpoint below it, then fetches its
 * rows by id, and remembers where it and the page after it start.
 */
export async function seekNewestFirst<TB extends 'findings' | 'finding_events'>(
  db: Kysely<Database>,
  table: TB,
  query: SelectQueryBuilder<Database, TB, object>,
  page: PageRequest,
  timeColumn: TimeColumn,
  list: CountedList,
): Promise<Selectable<Database[TB]>[]> {
  const time = sql.ref<string>(timeColumn);
  const id = sql.ref<string>('id');
  const known = page.skip === 0 ? null : pageStarts.get(`${list.key}|${page.skip}`, list.version);
  let rows: Selectable<Database[TB]>[];
  if (page.skip === 0 || known) {
    let seek = query;
    if (known) seek = after(seek, timeColumn, known);
    rows = (await ordered(seek.selectAll(), timeColumn).limit(page.limit).execute()) as unknown as Selectable<Database[TB]>[];
  } else {
    const checkpoint = Math.floor((page.skip - 1) / CHECKPOINT) * CHECKPOINT;
    const from = checkpoint > 0 ? await startOf(query, timeColumn, list, checkpoint) : undefined;
    const walk = from ? after(query, timeColumn, from) : query;
    // The row before the page too: it says where this page starts.
    const positions =
      checkpoint > 0 && !from
        ? []
        : await ordered(walk.select([time.as('time'), id.as('id')]), timeColumn)
            .limit(page.limit + 1)
            .offset(page.skip - 1 - checkpoint)
            .execute();
    const [before, ...wanted] = positions as unknown as Cursor[];
    if (before) pageStarts.set(`${list.key}|${page.skip}`, list.version, before);
    rows = await byIds(db, table, wanted.map((p) => p.id));
  }
  const last = rows.at(-1) as { id: string } | undefined;
  if (last && rows.length === page.limit) {
    const lastTime = (last as Record<string, unknown>)[timeColumn] as string;
    pageStarts.set(`${list.key}|${page.skip + rows.length}`, list.version, { time: lastTime, id: last.id });
  }
  return rows;
}

/**
 * The row right before entry `position` (a multiple of CHECKPOINT) of the list, walked to from the nearest
 * one remembered below it, and remembered; undefined when the list is shorter.
 */
async function startOf<TB extends 'findings' | 'finding_events'>(
  query: SelectQueryBuilder<Database, TB, object>,
  timeColumn: TimeColumn,
  list: CountedList,
  position: number,
): Promise<Cursor | undefined> {
  const known = pageStarts.get(`${list.key}|${position}`, list.version);
  if (known) return known;
  let below = position - CHECKPOINT;
  let from: Cursor | undefined;
  for (; below > 0 && !from; below -= CHECKPOINT) from = pageStarts.get(`${list.key}|${below}`, list.version);
  if (from) below += CHECKPOINT;
  const walk = from ? after(query, timeColumn, from) : query;
  const [start] = (await ordered(walk.select([sql.ref<string>(timeColumn).as('time'), sql.ref<string>('id').as('id')]), timeColumn)
    .limit(1)
    .offset(position - 1 - Math.max(0, below))
    .execute()) as unknown as Cursor[];
  if (start) pageStarts.set(`${list.key}|${position}`, list.version, start);
  return start;
}

/** The rows with these ids, in the order of `ids`: primary-key reads. */
async function byIds<TB extends 'findings' | 'finding_events'>(db: Kysely<Database>, table: TB, ids: string[]): Promise<Selectable<Database[TB]>[]> {
  if (!ids.length) return [];
  const found = (await db.selectFrom(table as 'findings').selectAll().where('id', 'in', ids).execute()) as unknown as { id: string }[];
  const byId = new Map(found.map((row) => [row.id, row]));
  return ids.map((i) => byId.get(i)).filter((row) => row !== undefined) as unknown as Selectable<Database[TB]>[];
}
