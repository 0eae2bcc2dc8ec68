import crypto from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { claimIdempotencyKey, recordIdempotentAnswer, releaseIdempotencyKey, type OnCommit } from '../core/idempotency.ts';
import type { Database } from '../store/schema.ts';

/**
 * The `Idempotency-Key` request header of POSTs that create something. The draft makes it a structured
 * string (`"…"`); a bare token is accepted too.
 */
export const IdempotencyKeyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 257,
      pattern: '^[!-~](?:[ -~]*[!-~])?$',
      description:
        'Makes the POST safe to retry (IETF httpapi Idempotency-Key draft): the same key with the same request, ' +
        'from the same API key within 24 hours, gets the first answer again and is charged once. The same key ' +
        'with a different request: 422; while the first is still running: 409 IDEMPOTENCY_KEY_IN_USE.',
    }),
  ),
});

function keyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (typeof raw !== 'string') return undefined;
  const quoted = /^"(.*)"$/.exec(raw);
  return quoted ? quoted[1] : raw;
}

/** JSON with object keys sorted, so a retry that orders its fields differently is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function fingerprintOf(request: FastifyRequest): string {
  const path = request.url.split('?')[0].replace(/\/+$/, '');
  return crypto.createHash('sha256').update(`${request.method} ${path}\n${canonicalJson(request.body)}`).digest('hex');
}

export interface IdempotentRoute<T> {
  /** The success status. */
  status: number;
  /** How long the operation may take before a retry may take its key over. */
  leaseSeconds: number;
  /** Carries out the operation, calling `onCommit` inside the transaction that commits its result. */
  run: (onCommit: OnCommit<T> | undefined) => Promise<T>;
  serialize: (result: T) => unknown;
}

/**
 * Answers a creating POST, honouring its Idempotency-Key: the first request with a key runs and records
 * its answer in the same transaction as what it created; a retry gets that answer back (same status and
 * body, `Idempotent-Replayed: true`). A refused or failed request lets its key go, so a retry runs afresh.
 * Without the header the operation simply runs.
 */
export async function answerIdempotently<T>(db: Kysely<Database>, request: FastifyRequest, reply: FastifyReply, route: IdempotentRoute<T>) {
  const key = keyOf(request);
  if (key === undefined) return reply.status(route.status).send(route.serialize(await route.run(undefined)));
  const claim = await claimIdempotencyKey(db, {
    apiKeyId: request.principal.keyId,
    key,
    fingerprint: fingerprintOf(request),
    leaseSeconds: route.leaseSeconds,
  });
  if ('replay' in claim) {
    return reply.status(claim.replay.status).header('idempotent-replayed', 'true').type('application/json; charset=utf-8').send(claim.replay.body);
  }
  let body: string | undefined;
  try {
    const result = await route.run(async (trx, result) => {
      body = JSON.stringify(route.serialize(result));
      await recordIdempotentAnswer(trx, claim.held, { status: route.status, body });
    });
    body ??= JSON.stringify(route.serialize(result));
  } catch (error) {
    // The refusal is the answer that matters; a key left held by a failed release frees itself at its lease.
    await releaseIdempotencyKey(db, claim.held).catch(() => undefined);
    throw error;
  }
  return reply.status(route.status).type('application/json; charset=utf-8').send(body);
}
