import type { Kysely } from 'kysely';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from '../crypto/api-keys.ts';
import { newId, nowIso } from '../ids.ts';
import {
  apiKeyByHash,
  apiKeyByIdOrPrefix,
  apiKeysOf,
  insertApiKey,
  setApiKeyLastUsedAt,
  setApiKeyRevokedAt,
  type KeyCreator,
  type StoredApiKey,
} from '../store/api-keys.ts';
import type { ChangeEpoch } from '../store/change-epoch.ts';
import type { Database } from '../store/schema.ts';
import { VersionedCache } from '../store/versioned-cache.ts';
import type { Principal } from './principal.ts';
import { scopesOf } from './roles.ts';
import type { Scope } from './scopes.ts';

/** What is shown of a key: everything but its hash. */
export type ApiKeySummary = StoredApiKey;

/** How stale `last_used_at` may get before a request refreshes it; saves a write on every call. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Creates a key; the plaintext is returned here once and never stored. */
export async function createApiKey(
  db: Kysely<Database>,
  input: { orgId: string; name: string; scopes: Scope[]; createdByUserId?: string | null; expiresAt?: string | null },
): Promise<{ key: string; summary: ApiKeySummary }> {
  const generated = generateApiKey();
  const summary = await insertApiKey(db, {
    id: newId(),
    org_id: input.orgId,
    name: input.name,
    key_prefix: generated.prefix,
    key_hash: generated.hash,
    scopes: input.scopes,
    created_at: nowIso(),
    last_used_at: null,
    revoked_at: null,
    created_by_user_id: input.createdByUserId ?? null,
    expires_at: input.expiresAt ?? null,
  });
  return { key: generated.key, summary };
}

export const listApiKeys = apiKeysOf;

/** Revokes by id or visible prefix; returns the revoked key, or undefined when none matched. */
export async function revokeApiKey(db: Kysely<Database>, idOrPrefix: string): Promise<ApiKeySummary | undefined> {
  const key = await apiKeyByIdOrPrefix(db, idOrPrefix);
  if (!key) return undefined;
  const revokedAt = key.revoked_at ?? nowIso();
  await setApiKeyRevokedAt(db, key.id, revokedAt);
  return { ...key, revoked_at: revokedAt };
}

/** Resolves a presented key to its principal; undefined for malformed, unknown or revoked keys. */
export async function authenticate(db: Kysely<Database>, presented: string): Promise<Principal | undefined> {
  if (!isWellFormedApiKey(presented)) return undefined;
  return principalOf(db, hashApiKey(presented));
}

async function principalOf(db: Kysely<Database>, hash: string): Promise<Principal | undefined> {
  const found = await apiKeyByHash(db, hash);
  if (!found || !usable(found.key, Date.now())) return undefined;
  const { organization, creator } = found;
  const scopes = effectiveScopes(found.key.scopes, creator);
  if (!scopes) return undefined;
  const key = { ...found.key, scopes };
  const now = Date.now();
  if (lastUseDue(key, now)) await setApiKeyLastUsedAt(db, key.id, new Date(now).toISOString());
  return { orgId: key.org_id, keyId: key.id, scopes, apiKey: key, organization };
}

/**
 * A key a person made acts for that person as they are now: refused (undefined) once their account is
 * disabled or gone or they have left the organization, and holding no more than their current role
 * allows. A key made by the operator (the admin CLI, no person) keeps its scopes.
 */
function effectiveScopes(scopes: Scope[], creator: KeyCreator | null): Scope[] | undefined {
  if (!creator) return scopes;
  if (!creator.exists || creator.disabled || !creator.role) return undefined;
  const allowed = scopesOf(creator.role);
  return scopes.filter((scope) => allowed.includes(scope));
}

/** Not revoked, and not past its expiry. */
function usable(key: StoredApiKey, now: number): boolean {
  return !key.revoked_at && (!key.expires_at || Date.parse(key.expires_at) > now);
}

function lastUseDue(key: StoredApiKey, now: number): boolean {
  return !key.last_used_at || now - Date.parse(key.last_used_at) > LAST_USED_RESOLUTION_MS;
}

/**
 * authenticate(), with each key's principal kept while the database's change epoch stays the same: a
 * revocation, a change of scopes or organization, by this process or another, moves the epoch, and the
 * next request reads the key again; so does a request that finds its `last_used_at` due for a refresh.
 * Unknown and revoked keys are never kept, and a kept key stops working the moment it expires.
 */
export function cachedAuthentication(db: Kysely<Database>, changes: ChangeEpoch): (presented: string) => Principal | undefined | Promise<Principal | undefined> {
  const known = new VersionedCache<Principal>(10_000);
  return (presented) => {
    if (!isWellFormedApiKey(presented)) return undefined;
    const hash = hashApiKey(presented);
    const epoch = changes.current();
    const kept = epoch === null ? undefined : known.get(hash, epoch);
    if (kept && !usable(kept.apiKey, Date.now())) return undefined;
    if (kept && !lastUseDue(kept.apiKey, Date.now())) return kept;
    return principalOf(db, hash).then((principal) => {
      if (principal && epoch !== null) known.set(hash, epoch, principal);
      return principal;
    });
  };
}
