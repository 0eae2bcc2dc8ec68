import type { Kysely } from 'kysely';
import type { Database, FindingAliasRow, SarifImportRow } from './schema.ts';

// All SQL on `sarif_imports` and `finding_aliases` (migration 027).

export async function insertSarifImport(db: Kysely<Database>, row: SarifImportRow): Promise<void> {
  await db.insertInto('sarif_imports').values(row).execute();
}

export function sarifImportById(db: Kysely<Database>, unitId: string, importId: string): Promise<SarifImportRow | undefined> {
  return db.selectFrom('sarif_imports').selectAll().where('unit_id', '=', unitId).where('id', '=', importId).executeTakeFirst();
}

/** How `sighter` knows findings of one source repository of a unit that another sighter describes. */
export function aliasesOfSource(db: Kysely<Database>, scope: { unitId: string; sourceRepoId: string; sighter: string }): Promise<FindingAliasRow[]> {
  return db
    .selectFrom('finding_aliases as a')
    .innerJoin('findings as f', 'f.id', 'a.finding_id')
    .selectAll('a')
    .where('f.unit_id', '=', scope.unitId)
    .where('f.source_repo_id', '=', scope.sourceRepoId)
    .where('a.sighter', '=', scope.sighter)
    .execute();
}

/** Records (or replaces) how a sighter knows a finding. */
export async function saveFindingAlias(db: Kysely<Database>, alias: FindingAliasRow): Promise<void> {
  const { finding_id: _id, sighter: _sighter, ...rest } = alias;
  await db
    .insertInto('finding_aliases')
    .values(alias)
    .onConflict((oc) => oc.columns(['finding_id', 'sighter']).doUpdateSet(rest))
    .execute();
}
