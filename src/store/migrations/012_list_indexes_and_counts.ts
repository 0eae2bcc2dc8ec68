import { PostgresAdapter, sql, type Kysely } from 'kysely';

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** Each list filter with the newest-first order after it, so a page is a range read of one index. */
const LIST_INDEXES: [name: string, table: string, columns: string[]][] = [
  ['findings_unit_order', 'findings', ['unit_id', 'created_at', 'id']],
  ['findings_unit_severity_order', 'findings', ['unit_id', 'severity', 'created_at', 'id']],
  ['findings_unit_status_order', 'findings', ['unit_id', 'status', 'created_at', 'id']],
  ['findings_unit_type_order', 'findings', ['unit_id', 'scan_type', 'created_at', 'id']],
  ['findings_unit_batch_order', 'findings', ['unit_id', 'scan_batch_id', 'created_at', 'id']],
  ['finding_events_org_unit_order', 'finding_events', ['org_id', 'unit_id', 'event_timestamp', 'id']],
  ['finding_events_org_type_order', 'finding_events', ['org_id', 'event_type', 'event_timestamp', 'id']],
  ['finding_events_org_severity_order', 'finding_events', ['org_id', 'severity', 'event_timestamp', 'id']],
  ['finding_events_org_scan_type_order', 'finding_events', ['org_id', 'scan_type', 'event_timestamp', 'id']],
  ['finding_events_finding_order', 'finding_events', ['finding_id', 'event_timestamp', 'id']],
  ['scan_batches_unit_order', 'scan_batches', ['unit_id', 'created_at', 'id']],
  ['fixes_unit_order', 'fixes', ['unit_id', 'created_at', 'id']],
];

/** What a findings counter is kept per; a null batch counts under ''. */
const FINDING_KEY = ['unit_id', 'scan_batch_id', 'scan_type', 'severity', 'status'];
/** What an events counter is kept per; a null scan type or severity counts under ''. */
const EVENT_KEY = ['org_id', 'unit_id', 'scan_type', 'severity', 'event_type'];

/**
 * Lists at scale.
 *
 * - An index per list filter, each ending in the list's order (time, then id), so a page reads a few
 *   index entries whatever the table's size; they replace the old ones without the id.
 * - `finding_counts` and `finding_event_counts`: how many findings (per unit, batch, scan type, severity,
 *   status) and events (per organization, unit, scan type, severity, event type) there are, kept by
 *   triggers so every write counts, whoever makes it. A list's exact `total` is a sum over a handful of
 *   counter rows instead of a count of every matching row. `v` counts the changes a counter has seen:
 *   its sum over a unit (or organization) changes whenever the membership of any of its lists does.
 *   SQLite has one writer, so its triggers update one row per key in place. PostgreSQL writers run at
 *   once, so its statement-level triggers append delta rows instead (no row lock is shared between
 *   two transactions, so none can wait on or deadlock with another), and the store folds a unit's or
 *   organization's deltas back into one row per key now and then.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, table, columns] of LIST_INDEXES) await db.schema.createIndex(name).on(table).columns(columns).execute();
  await db.schema.dropIndex('findings_unit_created').execute();
  await db.schema.dropIndex('finding_events_org_time').execute();
  await db.schema.createIndex('finding_events_org_order').on('finding_events').columns(['org_id', 'event_timestamp', 'id']).execute();
  await db.schema.dropIndex('scan_batches_unit').execute();
  await db.schema.dropIndex('fixes_unit_created').execute();

  for (const [table, key] of [['finding_counts', FINDING_KEY], ['finding_event_counts', EVENT_KEY]] as const) {
    let create = db.schema.createTable(table);
    for (const column of key) create = create.addColumn(column, 'text', (c) => c.notNull());
    await create.addColumn('n', 'bigint', (c) => c.notNull()).addColumn('v', 'bigint', (c) => c.notNull()).execute();
    if (isPostgres(db)) await db.schema.createIndex(`${table}_scope`).on(table).column(key[0]).execute();
    else await db.schema.createIndex(`${table}_key`).on(table).columns([...key]).unique().execute();
  }
  if (isPostgres(db)) await postgresCounting(db);
  else await sqliteCounting(db);

  // Rows stored before the counters existed.
  await sql`insert into finding_counts (unit_id, scan_batch_id, scan_type, severity, status, n, v)
    select unit_id, coalesce(scan_batch_id, ''), scan_type, severity, status, count(*), count(*) from findings
    group by unit_id, coalesce(scan_batch_id, ''), scan_type, severity, status`.execute(db);
  await sql`insert into finding_event_counts (org_id, unit_id, scan_type, severity, event_type, n, v)
    select org_id, unit_id, coalesce(scan_type, ''), coalesce(severity, ''), event_type, count(*), count(*) from finding_events
    group by org_id, unit_id, coalesce(scan_type, ''), coalesce(severity, ''), event_type`.execute(db);
}

async function sqliteCounting(db: Kysely<any>): Promise<void> {
  const findingKey = (row: 'new' | 'old') =>
    sql.raw(`${row}.unit_id, coalesce(${row}.scan_batch_id, ''), ${row}.scan_type, ${row}.severity, ${row}.status`);
  const addFinding = (row: 'new' | 'old', delta: 1 | -1) => sql`insert into finding_counts (unit_id, scan_batch_id, scan_type, severity, status, n, v)
      values (${findingKey(row)}, ${sql.raw(String(delta))}, 1)
      on conflict (unit_id, scan_batch_id, scan_type, severity, status) do update set n = n + excluded.n, v = v + 1;`;
  await sql`create trigger findings_counted_insert after insert on findings begin ${addFinding('new', 1)} end`.execute(db);
  await sql`create trigger findings_counted_delete after delete on findings begin ${addFinding('old', -1)} end`.execute(db);
  await sql`create trigger findings_counted_update after update of unit_id, scan_batch_id, scan_type, severity, status on findings
    when old.unit_id is not new.unit_id or old.scan_batch_id is not new.scan_batch_id or old.scan_type is not new.scan_type
      or old.severity is not new.severity or old.status is not new.status
    begin ${addFinding('old', -1)} ${addFinding('new', 1)} end`.execute(db);
  await sql`create trigger finding_events_counted_insert after insert on finding_events begin
    insert into finding_event_counts (org_id, unit_id, scan_type, severity, event_type, n, v)
      values (new.org_id, new.unit_id, coalesce(new.scan_type, ''), coalesce(new.severity, ''), new.event_type, 1, 1)
      on conflict (org_id, unit_id, scan_type, severity, event_type) do update set n = n + 1, v = v + 1;
    end`.execute(db);
  await sql`create trigger finding_events_counted_delete after delete on finding_events begin
    update finding_event_counts set n = n - 1, v = v + 1
      where org_id = old.org_id and unit_id = old.unit_id and scan_type = coalesce(old.scan_type, '')
        and severity = coalesce(old.severity, '') and event_type = old.event_type;
    end`.execute(db);
}

async function postgresCounting(db: Kysely<any>): Promise<void> {
  const findingKey = (alias: string) =>
    `${alias}.unit_id, coalesce(${alias}.scan_batch_id, '') as scan_batch_id, ${alias}.scan_type, ${alias}.severity, ${alias}.status`;
  await sql`create function findings_counted() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into finding_counts (unit_id, scan_batch_id, scan_type, severity, status, n, v)
          select ${sql.raw(findingKey('r'))}, count(*), count(*) from new_rows r group by 1, 2, 3, 4, 5;
      elsif tg_op = 'DELETE' then
        insert into finding_counts (unit_id, scan_batch_id, scan_type, severity, status, n, v)
          select ${sql.raw(findingKey('r'))}, -count(*), count(*) from old_rows r group by 1, 2, 3, 4, 5;
      else
        insert into finding_counts (unit_id, scan_batch_id, scan_type, severity, status, n, v)
          select unit_id, scan_batch_id, scan_type, severity, status, sum(d), count(*) from (
            select ${sql.raw(findingKey('o'))}, -1 as d from old_rows o join new_rows r using (id)
              where (o.unit_id, o.scan_batch_id, o.scan_type, o.severity, o.status) is distinct from (r.unit_id, r.scan_batch_id, r.scan_type, r.severity, r.status)
            union all
            select ${sql.raw(findingKey('r'))}, 1 as d from old_rows o join new_rows r using (id)
              where (o.unit_id, o.scan_batch_id, o.scan_type, o.severity, o.status) is distinct from (r.unit_id, r.scan_batch_id, r.scan_type, r.severity, r.status)
          ) changed group by 1, 2, 3, 4, 5;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger findings_counted_insert after insert on findings referencing new table as new_rows for each statement execute function findings_counted()`.execute(db);
  await sql`create trigger findings_counted_delete after delete on findings referencing old table as old_rows for each statement execute function findings_counted()`.execute(db);
  await sql`create trigger findings_counted_update after update on findings referencing old table as old_rows new table as new_rows for each statement execute function findings_counted()`.execute(db);

  const eventKey = `org_id, unit_id, coalesce(scan_type, '') as scan_type, coalesce(severity, '') as severity, event_type`;
  await sql`create function finding_events_counted() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into finding_event_counts (org_id, unit_id, scan_type, severity, event_type, n, v)
          select ${sql.raw(eventKey)}, count(*), count(*) from new_rows group by 1, 2, 3, 4, 5;
      else
        insert into finding_event_counts (org_id, unit_id, scan_type, severity, event_type, n, v)
          select ${sql.raw(eventKey)}, -count(*), count(*) from old_rows group by 1, 2, 3, 4, 5;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger finding_events_counted_insert after insert on finding_events referencing new table as new_rows for each statement execute function finding_events_counted()`.execute(db);
  await sql`create trigger finding_events_counted_delete after delete on finding_events referencing old table as old_rows for each statement execute function finding_events_counted()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const triggers = [
    ['findings', ['findings_counted_insert', 'findings_counted_delete', 'findings_counted_update']],
    ['finding_events', ['finding_events_counted_insert', 'finding_events_counted_delete']],
  ] as const;
  for (const [table, names] of triggers) {
    for (const name of names) {
      if (isPostgres(db)) await sql`drop trigger if exists ${sql.id(name)} on ${sql.table(table)}`.execute(db);
      else await sql`drop trigger if exists ${sql.id(name)}`.execute(db);
    }
  }
  if (isPostgres(db)) {
    await sql`drop function if exists findings_counted()`.execute(db);
    await sql`drop function if exists finding_events_counted()`.execute(db);
  }
  await db.schema.dropTable('finding_event_counts').ifExists().execute();
  await db.schema.dropTable('finding_counts').ifExists().execute();
  await db.schema.dropIndex('finding_events_org_order').ifExists().execute();
  for (const [name] of LIST_INDEXES) await db.schema.dropIndex(name).ifExists().execute();
  await db.schema.createIndex('findings_unit_created').on('findings').columns(['unit_id', 'created_at']).execute();
  await db.schema.createIndex('finding_events_org_time').on('finding_events').columns(['org_id', 'event_timestamp', 'id']).execute();
  await db.schema.createIndex('scan_batches_unit').on('scan_batches').columns(['unit_id', 'created_at']).execute();
  await db.schema.createIndex('fixes_unit_created').on('fixes').columns(['unit_id', 'created_at']).execute();
}
