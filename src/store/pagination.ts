import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { PageRequest } from '../core/pagination.ts';
import { isPostgres } from './dialect.ts';
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
  ranges?: MergedRanges,
): Promise<Selectable<Database[TB]>[]> {
  const source: ListSource = { db, table, query, timeColumn, ranges };
  const known = page.skip === 0 ? null : pageStarts.get(`${list.key}|${page.skip}`, list.version);
  let rows: Selectable<Database[TB]>[];
  if (page.skip === 0 || known) {
    rows = (await readList(source, { selection: 'rows', cursor: known ?? undefined, limit: page.limit, offset: 0 })) as unknown as Selectable<Database[TB]>[];
  } else {
    const checkpoint = Math.floor((page.skip - 1) / CHECKPOINT) * CHECKPOINT;
    const from = checkpoint > 0 ? await startOf(source, list, checkpoint) : undefined;
    // The row before the page too: it says where this page starts.
    const positions =
      checkpoint > 0 && !from
        ? []
        : await readList(source, { selection: 'positions', cursor: from, limit: page.limit + 1, offset: page.skip - 1 - checkpoint });
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
async function startOf(source: ListSource, list: CountedList, position: number): Promise<Cursor | undefined> {
  const known = pageStarts.get(`${list.key}|${position}`, list.version);
  if (known) return known;
  let below = position - CHECKPOINT;
  let from: Cursor | undefined;
  for (; below > 0 && !from; below -= CHECKPOINT) from = pageStarts.get(`${list.key}|${below}`, list.version);
  if (from) below += CHECKPOINT;
  const [start] = (await readList(source, { selection: 'positions', cursor: from, limit: 1, offset: position - 1 - Math.max(0, below) })) as unknown as Cursor[];
  if (start) pageStarts.set(`${list.key}|${position}`, list.version, start);
  return start;
}

/**
 * A list that is several ranges of one index: the rows of a query whose `column` holds one of `values`,
 * each value a range of an index that goes on with the list's order (time, then id).
 */
export interface MergedRanges {
  column: string;
  values: readonly string[];
}

/** What seekNewestFirst() reads from: a filtered query of a table, in its time column's order, maybe as merged ranges. */
interface ListSource {
  db: Kysely<Database>;
  table: 'findings' | 'finding_events';
  query: SelectQueryBuilder<any, any, object>;
  timeColumn: TimeColumn;
  ranges?: MergedRanges;
}

interface ListRead {
  /** Whole rows, or only each row's time and id (a walk to a page start, read from the index alone). */
  selection: 'rows' | 'positions';
  /** Read the entries after this one. */
  cursor?: Cursor;
  limit: number;
  offset: number;
}

function selected<Q extends SelectQueryBuilder<any, any, any>>(query: Q, timeColumn: TimeColumn, selection: ListRead['selection']) {
  return selection === 'rows' ? query.selectAll() : query.select([sql.ref<string>(timeColumn).as('time'), sql.ref<string>('id').as('id')]);
}

/**
 * `limit` entries of the list from `offset` on (after the cursor when there is one), newest first. Merged
 * ranges are a UNION ALL of one term per value, ordered above it; each database then reads every term in
 * its index's order and merges them, never sorting: SQLite flattens the union into the outer query and
 * steps through each term only as far as the merge needs, while PostgreSQL merges only terms that are
 * ordered and bounded themselves (an unbounded term is planned for full retrieval, a sort), so there each
 * term is ordered and limited to what the page can take from it (offset + limit).
 */
async function readList(source: ListSource, read: ListRead): Promise<unknown[]> {
  const { db, table, timeColumn, ranges } = source;
  const from = (query: SelectQueryBuilder<any, any, object>) => (read.cursor ? after(query, timeColumn, read.cursor) : query);
  if (!ranges || ranges.values.length < 2) {
    const query = ranges?.values.length === 1 ? source.query.where(sql.ref(ranges.column), '=', ranges.values[0]) : source.query;
    return ordered(selected(from(query), timeColumn, read.selection), timeColumn).limit(read.limit).offset(read.offset).execute();
  }
  const columns = (query: SelectQueryBuilder<any, any, object>): SelectQueryBuilder<any, any, any> =>
    read.selection === 'rows' ? query.selectAll() : query.select([sql.ref(timeColumn).as(timeColumn), 'id']);
  const terms = ranges.values.map((value): SelectQueryBuilder<any, any, any> => {
    const term = columns(from(source.query.where(sql.ref(ranges.column), '=', value)));
    return isPostgres(db) ? db.selectFrom(ordered(term, timeColumn).limit(read.offset + read.limit).as('term')).selectAll() : term;
  });
  const union = terms.slice(1).reduce((all, term) => all.unionAll(term), terms[0]);
  const merged = db.selectFrom(union.as(table)) as unknown as SelectQueryBuilder<any, any, object>;
  return ordered(selected(merged, timeColumn, read.selection), timeColumn).limit(read.limit).offset(read.offset).execute();
}

/** The rows with these ids, in the order of `ids`: primary-key reads. */
async function byIds<TB extends 'findings' | 'finding_events'>(db: Kysely<Database>, table: TB, ids: string[]): Promise<Selectable<Database[TB]>[]> {
  if (!ids.length) return [];
  const found = (await db.selectFrom(table as 'findings').selectAll().where('id', 'in', ids).execute()) as unknown as { id: string }[];
  const byId = new Map(found.map((row) => [row.id, row]));
  return ids.map((i) => byId.get(i)).filter((row) => row !== undefined) as unknown as Selectable<Database[TB]>[];
}
