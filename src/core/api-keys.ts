import type { Kysely } from 'kysely';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from '../crypto/api-keys.ts';
import { newId, nowIso } from '../ids.ts';
import type { ApiKeyRow, Database } from '../store/schema.ts';
import type { Principal } from './principal.ts';
import type { Scope } from './scopes.ts';

export interface ApiKeySummary {
  id: string;
  org_id: string;
  name: string;
  key_prefix: string;
  scopes: Scope[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** How stale `last_used_at` may get before a request refreshes it; saves a write on every call. */
const LAST_USED_RESOLUTION_MS = 60_000;

export function summarizeKey(row: ApiKeyRow): ApiKeySummary {
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    key_prefix: row.key_prefix,
    scopes: JSON.parse(row.scopes) as Scope[],
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
  };
}

/** Creates a key; the plaintext is returned here once and never stored. */
export async function createApiKey(
  db: Kysely<Database>,
  input: { orgId: string; name: string; scopes: Scope[] },
): Promise<{ key: string; summary: ApiKeySummary }> {
  const generated = generateApiKey();
  const row: ApiKeyRow = {
    id: newId(),
    org_id: input.orgId,
    name: input.name,
    key_prefix: generated.prefix,
    key_hash: generated.hash,
    scopes: JSON.stringify(input.scopes),
    created_at: nowIso(),
    last_used_at: null,
    revoked_at: null,
  };
  await db.insertInto('api_keys').values(row).execute();
  return { key: generated.key, summary: summarizeKey(row) };
}

export async function listApiKeys(db: Kysely<Database>, orgId: string): Promise<ApiKeySummary[]> {
  const rows = await db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId).orderBy('created_at').execute();
  return rows.map(summarizeKey);
}

/** Revokes by id or visible prefix; returns the revoked key, or undefined when none matched. */
export async function revokeApiKey(db: Kysely<Database>, idOrPrefix: string): Promise<ApiKeySummary | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrPrefix), eb('key_prefix', '=', idOrPrefix)]))
    .executeTakeFirst();
  if (!row) return undefined;
  const revokedAt = row.revoked_at ?? nowIso();
  await db.updateTable('api_keys').set({ revoked_at: revokedAt }).where('id', '=', row.id).execute();
  return summarizeKey({ ...row, revoked_at: revokedAt });
}

export async function getApiKey(db: Kysely<Database>, keyId: string): Promise<ApiKeySummary | undefined> {
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
  return row && summarizeKey(row);
}

/** Resolves a presented key to its principal; undefined for malformed, unknown or revoked keys. */
export async function authenticate(db: Kysely<Database>, presented: string): Promise<Principal | undefined> {
  if (!isWellFormedApiKey(presented)) return undefined;
  const row = await db.selectFrom('api_keys').selectAll().where('key_hash', '=', hashApiKey(presented)).executeTakeFirst();
  if (!row || row.revoked_at) return undefined;
  const now = Date.now();
  if (!row.last_used_at || now - Date.parse(row.last_used_at) > LAST_USED_RESOLUTION_MS) {
    await db.updateTable('api_keys').set({ last_used_at: new Date(now).toISOString() }).where('id', '=', row.id).execute();
  }
  return { orgId: row.org_id, keyId: row.id, scopes: JSON.parse(row.scopes) as Scope[] };
}
