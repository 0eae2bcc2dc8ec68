import { PostgresAdapter, sql, type Kysely } from 'kysely';

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * Event totals without the unit. Migration 012 counts an organization's events per unit, scan type,
 * severity and event type: with a few hundred units that is thousands of counter rows, all summed for
 * every page of the org-wide feed. `finding_event_org_counts` keeps the same counts without the unit (a
 * few dozen rows per organization), kept by triggers the same way; a feed filtered by unit still sums
 * that unit's rows of `finding_event_counts`, which an index on (organization, unit) now reaches.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('finding_event_org_counts')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('scan_type', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addColumn('v', 'bigint', (c) => c.notNull())
    .execute();
  if (isPostgres(db)) {
    await db.schema.createIndex('finding_event_org_counts_scope').on('finding_event_org_counts').column('org_id').execute();
    await db.schema.createIndex('finding_event_counts_unit').on('finding_event_counts').columns(['org_id', 'unit_id']).execute();
    await db.schema.dropIndex('finding_event_counts_scope').execute();
    await postgresCounting(db);
  } else {
    await db.schema
      .createIndex('finding_event_org_counts_key')
      .on('finding_event_org_counts')
      .columns(['org_id', 'scan_type', 'severity', 'event_type'])
      .unique()
      .execute();
    await sqliteCounting(db);
  }
  await sql`insert into finding_event_org_counts (org_id, scan_type, severity, event_type, n, v)
    select org_id, scan_type, severity, event_type, sum(n), sum(v) from finding_event_counts
    group by org_id, scan_type, severity, event_type`.execute(db);
}

async function sqliteCounting(db: Kysely<any>): Promise<void> {
  await sql`create trigger finding_events_org_counted_insert after insert on finding_events begin
    insert into finding_event_org_counts (org_id, scan_type, severity, event_type, n, v)
      values (new.org_id, coalesce(new.scan_type, ''), coalesce(new.severity, ''), new.event_type, 1, 1)
      on conflict (org_id, scan_type, severity, event_type) do update set n = n + 1, v = v + 1;
    end`.execute(db);
  await sql`create trigger finding_events_org_counted_delete after delete on finding_events begin
    update finding_event_org_counts set n = n - 1, v = v + 1
      where org_id = old.org_id and scan_type = coalesce(old.scan_type, '')
        and severity = coalesce(old.severity, '') and event_type = old.event_type;
    end`.execute(db);
}

async function postgresCounting(db: Kysely<any>): Promise<void> {
  const key = `org_id, coalesce(scan_type, '') as scan_type, coalesce(severity, '') as severity, event_type`;
  await sql`create function finding_events_org_counted() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into finding_event_org_counts (org_id, scan_type, severity, event_type, n, v)
          select ${sql.raw(key)}, count(*), count(*) from new_rows group by 1, 2, 3, 4;
      else
        insert into finding_event_org_counts (org_id, scan_type, severity, event_type, n, v)
          select ${sql.raw(key)}, -count(*), count(*) from old_rows group by 1, 2, 3, 4;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger finding_events_org_counted_insert after insert on finding_events referencing new table as new_rows for each statement execute function finding_events_org_counted()`.execute(db);
  await sql`create trigger finding_events_org_counted_delete after delete on finding_events referencing old table as old_rows for each statement execute function finding_events_org_counted()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of ['finding_events_org_counted_insert', 'finding_events_org_counted_delete']) {
    if (isPostgres(db)) await sql`drop trigger if exists ${sql.id(name)} on finding_events`.execute(db);
    else await sql`drop trigger if exists ${sql.id(name)}`.execute(db);
  }
  if (isPostgres(db)) {
    await sql`drop function if exists finding_events_org_counted()`.execute(db);
    await db.schema.dropIndex('finding_event_counts_unit').ifExists().execute();
    await db.schema.createIndex('finding_event_counts_scope').on('finding_event_counts').column('org_id').execute();
  }
  await db.schema.dropTable('finding_event_org_counts').ifExists().execute();
}
