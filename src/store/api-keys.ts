import type { Kysely } from 'kysely';
import type { Scope } from '../core/scopes.ts';
import { decodeJson, encodeJson } from './json-columns.ts';
import type { ApiKeyRow, Database, Organization, Role } from './schema.ts';

/** A stored key with its scopes decoded; the hash stays in the store. */
export interface StoredApiKey extends Omit<ApiKeyRow, 'scopes' | 'key_hash'> {
  scopes: Scope[];
}

const decode = ({ key_hash: _hash, ...row }: ApiKeyRow): StoredApiKey => ({ ...row, scopes: decodeJson<Scope[]>(row.scopes, []) });

export async function insertApiKey(db: Kysely<Database>, key: Omit<ApiKeyRow, 'scopes'> & { scopes: Scope[] }): Promise<StoredApiKey> {
  const row: ApiKeyRow = { ...key, scopes: encodeJson(key.scopes) };
  await db.insertInto('api_keys').values(row).execute();
  return decode(row);
}

export async function apiKeysOf(db: Kysely<Database>, orgId: string): Promise<StoredApiKey[]> {
  const rows = await db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId).orderBy('created_at').execute();
  return rows.map(decode);
}

export async function apiKeyByIdOrPrefix(db: Kysely<Database>, idOrPrefix: string): Promise<StoredApiKey | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrPrefix), eb('key_prefix', '=', idOrPrefix)]))
    .executeTakeFirst();
  return row && decode(row);
}

/** How an organization is named to its callers. */
export type OrganizationName = Pick<Organization, 'id' | 'name' | 'slug'>;

/** The person who made a key, as they stand now: whether their account exists and is enabled, and their role in the key's organization. */
export interface KeyCreator {
  exists: boolean;
  disabled: boolean;
  role: Role | null;
}

/**
 * The key with this hash, its organization and, for a key a person made, that person's account and
 * current role in the organization, in one query: every authenticated request starts here.
 */
export async function apiKeyByHash(
  db: Kysely<Database>,
  keyHash: string,
): Promise<{ key: StoredApiKey; organization: OrganizationName; creator: KeyCreator | null } | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('organizations', 'organizations.id', 'api_keys.org_id')
    .leftJoin('users', 'users.id', 'api_keys.created_by_user_id')
    .leftJoin('memberships', (join) => join.onRef('memberships.org_id', '=', 'api_keys.org_id').onRef('memberships.user_id', '=', 'api_keys.created_by_user_id'))
    .selectAll('api_keys')
    .select([
      'organizations.name as organization_name',
      'organizations.slug as organization_slug',
      'users.id as creator_id',
      'users.disabled_at as creator_disabled_at',
      'memberships.role as creator_role',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const { organization_name, organization_slug, creator_id, creator_disabled_at, creator_role, ...key } = row;
  const creator = key.created_by_user_id === null ? null : { exists: creator_id !== null, disabled: creator_disabled_at !== null, role: creator_role };
  return { key: decode(key), organization: { id: key.org_id, name: organization_name, slug: organization_slug }, creator };
}

export async function setApiKeyRevokedAt(db: Kysely<Database>, keyId: string, revokedAt: string): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: revokedAt }).where('id', '=', keyId).execute();
}

export async function setApiKeyLastUsedAt(db: Kysely<Database>, keyId: string, usedAt: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: usedAt }).where('id', '=', keyId).execute();
}
