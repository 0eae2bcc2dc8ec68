import { sql, type Kysely } from 'kysely';

// The values as finding-state.ts had them when this migration was written; copied, never imported.
const VERDICTS = ['present', 'gone'];
const TRIAGES = ['open', 'ignored', 'false_positive', 'needs_manual_review', 'resolved'];

const listOf = (values: string[]) => sql.join(values.map((v) => sql.lit(v)));

/**
 * A finding's state split in two: `scan_verdict` (what the scans say) and `triage` (what a person decided),
 * from which `status` is derived and kept for list filters and counters. Filled from `status`: every status
 * is also a decision, except a finding a scan resolved (its latest status event is `resolved_auto`), which
 * is gone with the decision it had before (open or needs_manual_review).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('findings')
    .addColumn('scan_verdict', 'text', (col) => col.notNull().defaultTo('present').check(sql`scan_verdict in (${listOf(VERDICTS)})`))
    .execute();
  await db.schema
    .alterTable('findings')
    .addColumn('triage', 'text', (col) => col.notNull().defaultTo('open').check(sql`triage in (${listOf(TRIAGES)})`))
    .execute();
  await sql`update findings set triage = status where status <> 'open'`.execute(db);
  const latestStatusEvent = (column: string) => sql`(select ${sql.ref(`e.${column}`)} from finding_events e
    where e.finding_id = findings.id and e.new_status is not null
    order by e.event_timestamp desc, e.created_at desc, e.id desc limit 1)`;
  await sql`update findings
    set scan_verdict = 'gone',
        triage = case when ${latestStatusEvent('previous_status')} = 'needs_manual_review' then 'needs_manual_review' else 'open' end
    where status = 'resolved' and ${latestStatusEvent('event_type')} = 'resolved_auto'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('findings').dropColumn('triage').execute();
  await db.schema.alterTable('findings').dropColumn('scan_verdict').execute();
}
