import { PostgresAdapter, sql, type Kysely } from 'kysely';

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** A person's decisions other than `open` (undecided), as finding-state.ts had them when this was written; copied. */
const DECIDED = ['ignored', 'false_positive', 'needs_manual_review', 'resolved'];

interface Row {
  id: string;
  scan_type: string;
  scan_id: string | null;
  scan_verdict: 'present' | 'gone';
  triage: string;
  resolved_at: string | null;
  first_detected_at: string;
  last_detected_at: string;
  created_at: string;
  updated_at: string;
  group_key: string;
}

function statusOf(verdict: string, triage: string): string {
  if (triage === 'ignored' || triage === 'false_positive') return triage;
  if (verdict === 'gone' || triage === 'resolved') return 'resolved';
  return triage;
}

/**
 * One finding per problem within a unit, whichever scan types find it.
 *
 * - `detected_by`: JSON array of the scan types that have detected the finding, in the order they first
 *   did (`scan_type` stays the first). `seen_by`: JSON object of the scan types whose newest scan sees it,
 *   each with that scan's id; the verdict is `present` while it holds any.
 * - Findings of one unit that are the same problem (same source repository, rule, file, line and match)
 *   stored once per scan type are merged into the oldest: it takes the others' scan types, a person's
 *   decision where it had none (a decision other than `open` wins over `open`), their events and fix links.
 * - The findings counters are kept per `detected_by` instead of `scan_type`, so a list filtered by a scan
 *   type counts every finding that type detected from the counters still.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('findings').addColumn('detected_by', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('findings').addColumn('seen_by', 'text', (c) => c.notNull().defaultTo('{}')).execute();
  await sql`update findings set detected_by = '["' || scan_type || '"]',
    seen_by = case when scan_verdict = 'present' then '{"' || scan_type || '":"' || coalesce(scan_id, '') || '"}' else '{}' end`.execute(db);
  await mergeDuplicates(db);
  await countFindingsBy(db, 'detected_by');
}

/** The findings counters kept per `column` in the place of the scan type: its triggers, and its rows recounted. */
async function countFindingsBy(db: Kysely<any>, column: 'detected_by' | 'scan_type'): Promise<void> {
  if (isPostgres(db)) await postgresCounting(db, column);
  else await sqliteCounting(db, column);
  await sql`delete from finding_counts`.execute(db);
  await sql`insert into finding_counts (unit_id, scan_batch_id, scan_type, severity, status, n, v)
    select unit_id, coalesce(scan_batch_id, ''), ${sql.ref(column)}, severity, status, count(*), count(*) from findings
    group by unit_id, coalesce(scan_batch_id, ''), ${sql.ref(column)}, severity, status`.execute(db);
}

async function mergeDuplicates(db: Kysely<any>): Promise<void> {
  const key = sql`f.unit_id || '|' || coalesce(f.source_repo_id, '') || '|' || f.check_id || '|' || f.file_path || '|'
    || coalesce(cast(f.start_line as text), '') || '|' || coalesce(f.match_hash, f.fingerprint)`;
  const { rows } = await sql<Row>`select f.id, f.scan_type, f.scan_id, f.scan_verdict, f.triage, f.resolved_at, f.first_detected_at, f.last_detected_at,
      f.created_at, f.updated_at, ${key} as group_key
    from findings f
    where exists (select 1 from findings o where o.unit_id = f.unit_id and o.scan_type <> f.scan_type
      and coalesce(o.source_repo_id, '') = coalesce(f.source_repo_id, '') and o.check_id = f.check_id and o.file_path = f.file_path
      and coalesce(o.start_line, -1) = coalesce(f.start_line, -1) and coalesce(o.match_hash, o.fingerprint) = coalesce(f.match_hash, f.fingerprint))
    order by f.created_at, f.id`.execute(db);
  const groups = Map.groupBy(rows, (r) => r.group_key);
  for (const group of groups.values()) {
    const kept = group[0];
    // One finding of each other scan type: the oldest (rows of the kept one's own type stay as they are).
    const merged = [kept];
    for (const row of group) if (!merged.some((m) => m.scan_type === row.scan_type)) merged.push(row);
    if (merged.length < 2) continue;
    const byFirstSeen = [...merged].sort((a, b) => (a.first_detected_at < b.first_detected_at ? -1 : a.first_detected_at > b.first_detected_at ? 1 : 0));
    const detectedBy = [kept.scan_type, ...byFirstSeen.map((r) => r.scan_type).filter((t) => t !== kept.scan_type)];
    const seenBy: Record<string, string> = {};
    for (const r of merged) if (r.scan_verdict === 'present') seenBy[r.scan_type] = r.scan_id ?? '';
    // The strongest decision: the kept one's when it has one, else the most recently made among the others.
    const decided = [...merged].filter((r) => DECIDED.includes(r.triage)).sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1));
    const triage = DECIDED.includes(kept.triage) ? kept.triage : (decided[0]?.triage ?? 'open');
    const verdict = Object.keys(seenBy).length ? 'present' : 'gone';
    const status = statusOf(verdict, triage);
    const resolvedAt = status === 'resolved' ? (merged.map((r) => r.resolved_at).find((at) => at !== null) ?? kept.updated_at) : status === 'open' ? null : kept.resolved_at;
    const lastSeen = merged.map((r) => r.last_detected_at).sort().at(-1)!;
    const others = merged.slice(1).map((r) => r.id);
    await sql`update finding_events set finding_id = ${kept.id} where finding_id in (${sql.join(others)})`.execute(db);
    await sql`delete from fix_findings where finding_id in (${sql.join(others)})
      and fix_id in (select fix_id from fix_findings where finding_id = ${kept.id})`.execute(db);
    await sql`update fix_findings set finding_id = ${kept.id} where finding_id in (${sql.join(others)})`.execute(db);
    await sql`delete from findings where id in (${sql.join(others)})`.execute(db);
    await sql`update findings set detected_by = ${JSON.stringify(detectedBy)}, seen_by = ${JSON.stringify(seenBy)},
      scan_verdict = ${verdict}, triage = ${triage}, status = ${status}, resolved_at = ${resolvedAt}, last_detected_at = ${lastSeen}
      where id = ${kept.id}`.execute(db);
  }
}

async function sqliteCounting(db: Kysely<any>, column: string): Promise<void> {
  for (const name of ['findings_counted_insert', 'findings_counted_delete', 'findings_counted_update']) await sql`drop trigger if exists ${sql.id(name)}`.execute(db);
  const findingKey = (row: 'new' | 'old') =>
    sql.raw(`${row}.unit_id, coalesce(${row}.scan_batch_id, ''), ${row}.${column}, ${row}.severity, ${row}.status`);
  const addFinding = (row: 'new' | 'old', delta: 1 | -1) => sql`insert into finding_counts (unit_id, scan_batch_id, scan_type, severity, status, n, v)
      values (${findingKey(row)}, ${sql.raw(String(delta))}, 1)
      on conflict (unit_id, scan_batch_id, scan_type, severity, status) do update set n = n + excluded.n, v = v + 1;`;
  await sql`create trigger findings_counted_insert after insert on findings begin ${addFinding('new', 1)} end`.execute(db);
  await sql`create trigger findings_counted_delete after delete on findings begin ${addFinding('old', -1)} end`.execute(db);
  await sql`create trigger findings_counted_update after update of unit_id, scan_batch_id, ${sql.raw(column)}, severity, status on findings
    when old.unit_id is not new.unit_id or old.scan_batch_id is not new.scan_batch_id or ${sql.raw(`old.${column} is not new.${column}`)}
      or old.severity is not new.severity or old.status is not new.status
    begin ${addFinding('old', -1)} ${addFinding('new', 1)} end`.execute(db);
}

async function postgresCounting(db: Kysely<any>, column: string): Promise<void> {
  const findingKey = (alias: string) =>
    `${alias}.unit_id, coalesce(${alias}.scan_batch_id, '') as scan_batch_id, ${alias}.${column} as scan_type, ${alias}.severity, ${alias}.status`;
  const changed = `(o.unit_id, o.scan_batch_id, o.${column}, o.severity, o.status) is distinct from (r.unit_id, r.scan_batch_id, r.${column}, r.severity, r.status)`;
  await sql`create or replace function findings_counted() returns trigger language plpgsql as $$
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
            select ${sql.raw(findingKey('o'))}, -1 as d from old_rows o join new_rows r using (id) where ${sql.raw(changed)}
            union all
            select ${sql.raw(findingKey('r'))}, 1 as d from old_rows o join new_rows r using (id) where ${sql.raw(changed)}
          ) changed group by 1, 2, 3, 4, 5;
      end if;
      return null;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  // Merged findings stay merged; the counters go back to one per first scan type.
  await countFindingsBy(db, 'scan_type');
  await db.schema.alterTable('findings').dropColumn('seen_by').execute();
  await db.schema.alterTable('findings').dropColumn('detected_by').execute();
}
