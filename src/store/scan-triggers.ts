import { sql, type Kysely } from 'kysely';
import type { Database, ScanTriggersTable } from './schema.ts';

// Which scan types each unit runs by itself when a push to the branch it scans, or a pull request into it,
// is reported.

export async function triggersOf(db: Kysely<Database>, unitId: string): Promise<ScanTriggersTable | undefined> {
  return db.selectFrom('scan_triggers').selectAll().where('unit_id', '=', unitId).executeTakeFirst();
}

export async function saveTriggers(db: Kysely<Database>, row: ScanTriggersTable): Promise<void> {
  await db
    .insertInto('scan_triggers')
    .values(row)
    .onConflict((oc) => oc.column('unit_id').doUpdateSet({ on_push: row.on_push, on_pull_request: row.on_pull_request, updated_by_user_id: row.updated_by_user_id, updated_at: row.updated_at }))
    .execute();
}

/**
 * The organization's units (not archived; `unitId` alone when given) that scan this host's repository at
 * this branch: each with the source repository and its scan types on a push and on a pull request (JSON).
 */
export async function unitsWithTriggers(
  db: Kysely<Database>,
  input: { orgId: string; provider: string; repoFullName: string; branch: string; unitId: string | null },
): Promise<{ unit_id: string; source_repo_id: string; on_push: string; on_pull_request: string }[]> {
  let query = db
    .selectFrom('scan_triggers')
    .innerJoin('units', 'units.id', 'scan_triggers.unit_id')
    .innerJoin('source_repos', 'source_repos.unit_id', 'units.id')
    .select(['scan_triggers.unit_id', 'source_repos.id as source_repo_id', 'scan_triggers.on_push', 'scan_triggers.on_pull_request'])
    .where('units.org_id', '=', input.orgId)
    .where('units.archived', '=', 0)
    .where('source_repos.provider', '=', input.provider)
    .where(sql<boolean>`lower(source_repos.full_name) = ${input.repoFullName.toLowerCase()}`)
    .where('source_repos.default_branch', '=', input.branch);
  if (input.unitId) query = query.where('units.id', '=', input.unitId);
  return query.execute();
}

/** Whether a batch of this type waits to start for the unit (a push then needs no second one). */
export async function hasQueuedBatch(db: Kysely<Database>, unitId: string, scanType: string): Promise<boolean> {
  const row = await db.selectFrom('scan_batches').select('id').where('unit_id', '=', unitId).where('scan_type', '=', scanType).where('status', '=', 'queued').executeTakeFirst();
  return !!row;
}
