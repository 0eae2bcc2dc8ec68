import type { Kysely } from 'kysely';
import type { TokenBox } from '../crypto/token-box.ts';
import { newId, nowIso } from '../ids.ts';
import type { Database, SourceRepoRow, UnitRow } from '../store/schema.ts';
import { notFound } from './errors.ts';
import { newestFirst, type PageRequest } from './pagination.ts';
import { defaultUrls, type SourceSpec } from './source-repos.ts';

/** A monitored unit: shown as a repository in one route family and as an application in the other. */
export interface Unit extends UnitRow {
  sources: SourceRepoRow[];
}

async function attachSources(db: Kysely<Database>, units: UnitRow[]): Promise<Unit[]> {
  if (!units.length) return [];
  const sources = await db
    .selectFrom('source_repos')
    .selectAll()
    .where('unit_id', 'in', units.map((u) => u.id))
    .orderBy('position')
    .execute();
  return units.map((unit) => ({ ...unit, sources: sources.filter((s) => s.unit_id === unit.id) }));
}

export async function listUnits(
  db: Kysely<Database>,
  orgId: string,
  options: PageRequest & { includeArchived: boolean },
): Promise<{ items: Unit[]; total: number }> {
  let query = db.selectFrom('units').where('org_id', '=', orgId);
  if (!options.includeArchived) query = query.where('archived', '=', 0);
  const { rows, total } = await newestFirst(query, options);
  return { items: await attachSources(db, rows), total };
}

/** The unit if it belongs to the organization; otherwise 404, exactly as for an id that does not exist. */
export async function getUnit(db: Kysely<Database>, orgId: string, unitId: string, label = 'Repository'): Promise<Unit> {
  const row = await db.selectFrom('units').selectAll().where('id', '=', unitId).where('org_id', '=', orgId).executeTakeFirst();
  if (!row) throw notFound(label);
  const [unit] = await attachSources(db, [row]);
  return unit;
}

export async function addUnit(
  db: Kysely<Database>,
  tokenBox: TokenBox,
  input: { orgId: string; name: string; description?: string | null; sources: SourceSpec[] },
): Promise<Unit> {
  if (!input.sources.length) throw new Error('a repository or application needs at least one source repository');
  const org = await db.selectFrom('organizations').selectAll().where('id', '=', input.orgId).executeTakeFirstOrThrow();
  const now = nowIso();
  const unit: UnitRow = {
    id: newId(),
    org_id: input.orgId,
    name: input.name,
    description: input.description ?? null,
    archived: 0,
    created_at: now,
    updated_at: now,
  };
  const sources: SourceRepoRow[] = input.sources.map((spec, position) => {
    const urls = defaultUrls(spec.provider, spec.fullName);
    return {
      id: newId(),
      unit_id: unit.id,
      position,
      provider: spec.provider,
      full_name: spec.fullName,
      default_branch: spec.branch,
      html_url: spec.htmlUrl ?? (spec.cloneUrl ? null : urls.htmlUrl),
      clone_url: spec.cloneUrl ?? urls.cloneUrl,
      token_ciphertext: spec.token ? tokenBox.seal(spec.token) : null,
      created_at: now,
    };
  });
  await db.transaction().execute(async (trx) => {
    if (org.max_repositories !== null) {
      const current = await trx
        .selectFrom('units')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('org_id', '=', input.orgId)
        .where('archived', '=', 0)
        .executeTakeFirstOrThrow();
      if (Number(current.n) >= org.max_repositories) {
        throw new Error(`organization "${org.slug}" already has its maximum of ${org.max_repositories} repositories`);
      }
    }
    await trx.insertInto('units').values(unit).execute();
    await trx.insertInto('source_repos').values(sources).execute();
  });
  return { ...unit, sources };
}

export async function setUnitArchived(db: Kysely<Database>, unitId: string, archived: boolean): Promise<UnitRow | undefined> {
  const result = await db
    .updateTable('units')
    .set({ archived: archived ? 1 : 0, updated_at: nowIso() })
    .where('id', '=', unitId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return undefined;
  return db.selectFrom('units').selectAll().where('id', '=', unitId).executeTakeFirst();
}
