import type { Kysely } from 'kysely';
import { newId, nowIso } from '../ids.ts';
import type { Database, Organization } from '../store/schema.ts';

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
  const taken = await db.selectFrom('organizations').select('id').where('slug', '=', slug).executeTakeFirst();
  if (taken) throw new Error(`an organization with slug "${slug}" already exists`);
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
  await db.insertInto('organizations').values(org).execute();
  return org;
}

/** Finds an organization by id or slug, as operators type either on the command line. */
export async function findOrganization(db: Kysely<Database>, idOrSlug: string): Promise<Organization | undefined> {
  return db
    .selectFrom('organizations')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)]))
    .executeTakeFirst();
}

export async function countOrganizations(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('organizations').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
