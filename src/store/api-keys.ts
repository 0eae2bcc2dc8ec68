import type { Kysely } from 'kysely';
import type { Scope } from '../core/scopes.ts';
import { decodeJson, encodeJson } from './json-columns.ts';
import type { ApiKeyRow, Database } from './schema.ts';

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

export async function apiKeyById(db: Kysely<Database>, keyId: string): Promise<StoredApiKey | undefined> {
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
  return row && decode(row);
}

export async function apiKeyByIdOrPrefix(db: Kysely<Database>, idOrPrefix: string): Promise<StoredApiKey | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrPrefix), eb('key_prefix', '=', idOrPrefix)]))
    .executeTakeFirst();
  return row && decode(row);
}

export async function apiKeyByHash(db: Kysely<Database>, keyHash: string): Promise<StoredApiKey | undefined> {
  const row = await db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
  return row && decode(row);
}

export async function setApiKeyRevokedAt(db: Kysely<Database>, keyId: string, revokedAt: string): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: revokedAt }).where('id', '=', keyId).execute();
}

export async function setApiKeyLastUsedAt(db: Kysely<Database>, keyId: string, usedAt: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: usedAt }).where('id', '=', keyId).execute();
}
