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
import { checkCloneUrl, CloneUrlError, validateCloneUrl, type CloneUrlPolicy } from '../scm/clone-url.ts';
import { invalidState, notFound } from './errors.ts';
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

/** A source repository whose clone URL this server refuses; nothing was stored. */
export class SourceUrlRefused extends Error {}

/**
 * Registers a unit and its source repositories. Every clone URL (given or defaulted) is checked against
 * the server's clone URL rules first: https only unless local repositories are allowed, local paths only
 * inside the organization's folder, no internal addresses unless allowed.
 */
export async function addUnit(
  db: Kysely<Database>,
  tokenBox: TokenBox,
  input: { orgId: string; name: string; description?: string | null; sources: SourceSpec[] },
  policy: CloneUrlPolicy,
): Promise<Unit> {
  if (!input.sources.length) throw new Error('a repository or application needs at least one source repository');
  const org = await organizationById(db, input.orgId);
  if (!org) throw new Error(`no organization with id ${input.orgId}`);
  for (const spec of input.sources) {
    const url = spec.cloneUrl ?? defaultUrls(spec.provider, spec.fullName).cloneUrl;
    try {
      // The providers' own default URLs need no name resolution; a URL given by hand is resolved and checked.
      if (spec.cloneUrl) await validateCloneUrl(url, policy, org.slug);
      else checkCloneUrl(url, policy, org.slug);
    } catch (error) {
      if (error instanceof CloneUrlError) throw new SourceUrlRefused(`clone URL of ${spec.provider}:${spec.fullName} refused: ${error.message}`);
      throw error;
    }
  }
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
      token_changed_at: spec.token ? now : null,
      created_at: now,
    };
  });
  await db.transaction().execute(async (trx) => {
    if (org.max_repositories !== null) {
      if ((await countActiveUnits(trx, input.orgId)) >= org.max_repositories) {
        throw invalidState(`organization "${org.slug}" already has its maximum of ${org.max_repositories} repositories`);
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
