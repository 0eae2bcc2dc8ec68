import type { Kysely } from 'kysely';
import type { Database, Organization } from './schema.ts';

export async function insertOrganization(db: Kysely<Database>, org: Organization): Promise<void> {
  await db.insertInto('organizations').values(org).execute();
}

export async function organizationBySlug(db: Kysely<Database>, slug: string): Promise<Organization | undefined> {
  return db.selectFrom('organizations').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export async function organizationById(db: Kysely<Database>, id: string): Promise<Organization | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** By id or slug, as operators type either on the command line. */
export async function organizationByIdOrSlug(db: Kysely<Database>, idOrSlug: string): Promise<Organization | undefined> {
  return db
    .selectFrom('organizations')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)]))
    .executeTakeFirst();
}

export async function listOrganizations(db: Kysely<Database>): Promise<Organization[]> {
  return db.selectFrom('organizations').selectAll().orderBy('created_at').execute();
}

export async function countOrganizations(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('organizations').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
