import type { Kysely } from 'kysely';
import type { PageRequest } from '../core/pagination.ts';
import { newestFirst } from './pagination.ts';
import type { Database, SourceRepoRow, UnitRow } from './schema.ts';

/** A monitored unit with its source repositories in their declared order. */
export interface UnitWithSources extends UnitRow {
  sources: SourceRepoRow[];
}

async function attachSources(db: Kysely<Database>, units: UnitRow[]): Promise<UnitWithSources[]> {
  if (!units.length) return [];
  const sources = await db
    .selectFrom('source_repos')
    .selectAll()
    .where('unit_id', 'in', units.map((u) => u.id))
    .orderBy('position')
    .execute();
  return units.map((unit) => ({ ...unit, sources: sources.filter((s) => s.unit_id === unit.id) }));
}

export async function unitsPage(
  db: Kysely<Database>,
  orgId: string,
  options: PageRequest & { includeArchived: boolean },
): Promise<{ items: UnitWithSources[]; total: number }> {
  let query = db.selectFrom('units').where('org_id', '=', orgId);
  if (!options.includeArchived) query = query.where('archived', '=', 0);
  const { rows, total } = await newestFirst(query, options);
  return { items: await attachSources(db, rows), total };
}

/** Every unit of an organization, oldest first, without sources (operator listings). */
export async function unitsOf(db: Kysely<Database>, orgId: string): Promise<UnitRow[]> {
  return db.selectFrom('units').selectAll().where('org_id', '=', orgId).orderBy('created_at').execute();
}

export async function unitOfOrganization(db: Kysely<Database>, orgId: string, unitId: string): Promise<UnitWithSources | undefined> {
  const row = await db.selectFrom('units').selectAll().where('id', '=', unitId).where('org_id', '=', orgId).executeTakeFirst();
  return row && (await attachSources(db, [row]))[0];
}

/** A unit of any organization by its id (operator commands). */
export async function unitById(db: Kysely<Database>, unitId: string): Promise<UnitWithSources | undefined> {
  const row = await db.selectFrom('units').selectAll().where('id', '=', unitId).executeTakeFirst();
  return row && (await attachSources(db, [row]))[0];
}

export async function countActiveUnits(db: Kysely<Database>, orgId: string): Promise<number> {
  const row = await db
    .selectFrom('units')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('org_id', '=', orgId)
    .where('archived', '=', 0)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertUnit(db: Kysely<Database>, unit: UnitRow, sources: SourceRepoRow[]): Promise<void> {
  await db.insertInto('units').values(unit).execute();
  if (sources.length) await db.insertInto('source_repos').values(sources).execute();
}

/** Sets the archived flag; the updated unit, or undefined when no unit has that id. */
export async function setUnitArchivedFlag(db: Kysely<Database>, unitId: string, archived: boolean, at: string): Promise<UnitRow | undefined> {
  const result = await db.updateTable('units').set({ archived: archived ? 1 : 0, updated_at: at }).where('id', '=', unitId).executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return undefined;
  return db.selectFrom('units').selectAll().where('id', '=', unitId).executeTakeFirst();
}

/** Stores a source repository's sealed access token (null removes it); the updated row, or undefined when the source is not the unit's. */
export async function setSourceTokenCiphertext(
  db: Kysely<Database>,
  unitId: string,
  sourceId: string,
  ciphertext: string | null,
  at: string,
): Promise<SourceRepoRow | undefined> {
  const result = await db
    .updateTable('source_repos')
    .set({ token_ciphertext: ciphertext, token_changed_at: at })
    .where('id', '=', sourceId)
    .where('unit_id', '=', unitId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return undefined;
  return db.selectFrom('source_repos').selectAll().where('id', '=', sourceId).executeTakeFirst();
}
