import type { Kysely } from 'kysely';
import type { Database, IdempotencyKeyRow } from './schema.ts';

// All SQL on `idempotency_keys`. What a key's state means and when it may change is decided in core.

type KeyOf = { apiKeyId: string; key: string };

/** Stores a new key; false when the API key already holds this idempotency key. */
export async function insertIdempotencyKey(db: Kysely<Database>, row: IdempotencyKeyRow): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.columns(['api_key_id', 'idempotency_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export function findIdempotencyKey(db: Kysely<Database>, { apiKeyId, key }: KeyOf): Promise<IdempotencyKeyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('api_key_id', '=', apiKeyId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** Replaces a key's row with `row`, only while it is still held by `previousClaimId`; returns whether it did. */
export async function replaceIdempotencyKey(db: Kysely<Database>, row: IdempotencyKeyRow, previousClaimId: string): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set(row)
    .where('api_key_id', '=', row.api_key_id)
    .where('idempotency_key', '=', row.idempotency_key)
    .where('claim_id', '=', previousClaimId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Records the answer of an in-flight key, only for the claim that holds it; returns whether it did. */
export async function completeIdempotencyKey(
  db: Kysely<Database>,
  key: KeyOf & { claimId: string },
  answer: { status: number; body: string },
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ state: 'done', response_status: answer.status, response_body: answer.body })
    .where('api_key_id', '=', key.apiKeyId)
    .where('idempotency_key', '=', key.key)
    .where('claim_id', '=', key.claimId)
    .where('state', '=', 'in_flight')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Forgets an in-flight key, only for the claim that holds it. */
export async function deleteInFlightIdempotencyKey(db: Kysely<Database>, key: KeyOf & { claimId: string }): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('api_key_id', '=', key.apiKeyId)
    .where('idempotency_key', '=', key.key)
    .where('claim_id', '=', key.claimId)
    .where('state', '=', 'in_flight')
    .execute();
}

export async function deleteExpiredIdempotencyKeys(db: Kysely<Database>, now: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).execute();
}
