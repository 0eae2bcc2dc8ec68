import type { Kysely } from 'kysely';
import { newId } from '../ids.ts';
import {
  completeIdempotencyKey,
  deleteExpiredIdempotencyKeys,
  deleteInFlightIdempotencyKey,
  findIdempotencyKey,
  insertIdempotencyKey,
  replaceIdempotencyKey,
} from '../store/idempotency.ts';
import type { Database, IdempotencyKeyRow } from '../store/schema.ts';
import { BodyValueError, errors } from './errors.ts';

// Idempotency-Key (the IETF httpapi draft): a POST that carries a key is carried out once per API key;
// a retry with the same key and the same request gets the first answer, and charges nothing again.

/** How long a key's answer is kept. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Work done inside the transaction that commits an operation's result, so both commit or neither: how
 * an idempotent request's answer is recorded with the batch, fix or pull requests it made.
 */
export type OnCommit<T> = (trx: Kysely<Database>, result: T) => Promise<void>;

export interface IdempotentRequest {
  apiKeyId: string;
  key: string;
  /** What the request asks for (method, path and body); a key reused for anything else is refused. */
  fingerprint: string;
  /** How long this request may take; past it, its claim is taken to belong to a request that died. */
  leaseSeconds: number;
}

/** A key this request holds until it records its answer or lets it go. */
export interface HeldKey {
  apiKeyId: string;
  key: string;
  claimId: string;
}

export type Claim = { held: HeldKey } | { replay: { status: number; body: string } };

let nextPurge = 0;

/** Expired keys are deleted now and then, by whichever request comes by. */
async function purgeExpired(db: Kysely<Database>, now: number): Promise<void> {
  if (now < nextPurge) return;
  nextPurge = now + 60_000;
  await deleteExpiredIdempotencyKeys(db, new Date(now).toISOString());
}

/**
 * Claims `request.key` for this request, or gives the answer it already got. Refuses the key when it was
 * used for another request (422, as the draft says: the key cannot be processed for this content) or
 * while the first request with it is still running (409).
 */
export async function claimIdempotencyKey(db: Kysely<Database>, request: IdempotentRequest): Promise<Claim> {
  const now = Date.now();
  await purgeExpired(db, now);
  const row: IdempotencyKeyRow = {
    api_key_id: request.apiKeyId,
    idempotency_key: request.key,
    fingerprint: request.fingerprint,
    state: 'in_flight',
    claim_id: newId(),
    locked_until: new Date(now + request.leaseSeconds * 1000).toISOString(),
    response_status: null,
    response_body: null,
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + IDEMPOTENCY_KEY_TTL_MS).toISOString(),
  };
  const held = { held: { apiKeyId: row.api_key_id, key: row.idempotency_key, claimId: row.claim_id } };
  // A few rounds: another request may release, finish or take over the key between the reads.
  for (let round = 0; round < 3; round++) {
    if (await insertIdempotencyKey(db, row)) return held;
    const existing = await findIdempotencyKey(db, { apiKeyId: request.apiKeyId, key: request.key });
    if (!existing) continue;
    const expired = Date.parse(existing.expires_at) <= now;
    if (!expired && existing.fingerprint !== request.fingerprint) {
      throw new BodyValueError(
        ['header', 'idempotency-key'],
        'This Idempotency-Key was already used with a different request; use a new key for a new request',
        request.key,
        'idempotency_key_reused',
      );
    }
    const abandoned = existing.state === 'in_flight' && Date.parse(existing.locked_until) <= now;
    if (expired || abandoned) {
      if (await replaceIdempotencyKey(db, row, existing.claim_id)) return held;
      continue;
    }
    if (existing.state === 'in_flight') throw errors.idempotencyKeyInUse();
    return { replay: { status: existing.response_status!, body: existing.response_body! } };
  }
  throw errors.idempotencyKeyInUse();
}

/**
 * Records the answer of a held key inside the transaction of the work it answers. When the claim was lost
 * (the request outlived its lease and another took the key over), throws, so that work rolls back.
 */
export async function recordIdempotentAnswer(trx: Kysely<Database>, held: HeldKey, answer: { status: number; body: string }): Promise<void> {
  if (!(await completeIdempotencyKey(trx, held, answer))) throw errors.idempotencyKeyInUse();
}

/** Lets a held key go when its request was refused or failed, so a retry runs afresh. */
export async function releaseIdempotencyKey(db: Kysely<Database>, held: HeldKey): Promise<void> {
  await deleteInFlightIdempotencyKey(db, held);
}
