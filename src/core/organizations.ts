import type { Kysely } from 'kysely';
import { newId, nowIso } from '../ids.ts';
import { insertOrganization, organizationByIdOrSlug, organizationBySlug } from '../store/organizations.ts';
import type { Database, Organization } from '../store/schema.ts';

export { countOrganizations, listOrganizations } from '../store/organizations.ts';

export function slugify(name: string): string {
  const slug = name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
  return slug || 'org';
}

export async function createOrganization(
  db: Kysely<Database>,
  input: { name: string; slug?: string },
): Promise<Organization> {
  const name = input.name.trim();
  if (!name) throw new Error('an organization needs a name');
  const slug = input.slug ? slugify(input.slug) : slugify(name);
  if (await organizationBySlug(db, slug)) throw new Error(`an organization with slug "${slug}" already exists`);
  const now = nowIso();
  const org: Organization = {
    id: newId(),
    name,
    slug,
    quota_period: 'monthly',
    max_repositories: null,
    created_at: now,
    updated_at: now,
  };
  await insertOrganization(db, org);
  return org;
}

/** Finds an organization by id or slug, as operators type either on the command line. */
export const findOrganization = organizationByIdOrSlug;
