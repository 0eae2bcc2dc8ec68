import type { Kysely } from 'kysely';
import type { TokenBox } from '../crypto/token-box.ts';
import { newId, nowIso } from '../ids.ts';
import { organizationById } from '../store/organizations.ts';
import type { Database, SourceRepoRow, UnitRow } from '../store/schema.ts';
import {
  countActiveUnits,
  insertUnit,
  setUnitArchivedFlag,
  unitOfOrganization,
  unitsPage,
  type UnitWithSources,
} from '../store/units.ts';
import { notFound } from './errors.ts';
import { defaultUrls, type SourceSpec } from './source-repos.ts';

/** A monitored unit: shown as a repository in one route family and as an application in the other. */
export type Unit = UnitWithSources;

export const listUnits = unitsPage;

/** The unit if it belongs to the organization; otherwise 404, exactly as for an id that does not exist. */
export async function getUnit(db: Kysely<Database>, orgId: string, unitId: string, label = 'Repository'): Promise<Unit> {
  const unit = await unitOfOrganization(db, orgId, unitId);
  if (!unit) throw notFound(label);
  return unit;
}

export async function addUnit(
  db: Kysely<Database>,
  tokenBox: TokenBox,
  input: { orgId: string; name: string; description?: string | null; sources: SourceSpec[] },
): Promise<Unit> {
  if (!input.sources.length) throw new Error('a repository or application needs at least one source repository');
  const org = await organizationById(db, input.orgId);
  if (!org) throw new Error(`no organization with id ${input.orgId}`);
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
      if ((await countActiveUnits(trx, input.orgId)) >= org.max_repositories) {
        throw new Error(`organization "${org.slug}" already has its maximum of ${org.max_repositories} repositories`);
      }
    }
    await insertUnit(trx, unit, sources);
  });
  return { ...unit, sources };
}

export async function setUnitArchived(db: Kysely<Database>, unitId: string, archived: boolean): Promise<UnitRow | undefined> {
  return setUnitArchivedFlag(db, unitId, archived, nowIso());
}

export { unitsOf as listOrganizationUnits } from '../store/units.ts';
