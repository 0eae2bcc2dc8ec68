import { Type, type TSchema } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { getUnit } from '../core/units.ts';
import type { Database } from '../store/schema.ts';
import type { Family } from './family.ts';
import { BareHTTPValidationError, ErrorResponse, HTTPValidationError } from './schemas.ts';

export type TypedApp = ReturnType<typeof typed>;

export function typed(app: FastifyInstance) {
  return app.withTypeProvider<TypeBoxTypeProvider>();
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  401: 'Missing, malformed, unknown or revoked API key',
  403: 'The key lacks the scope this route needs, or a quota is exhausted (OPERATION_FAILED)',
  404: 'No such resource in the calling organization',
  409: 'The resource is not in a state that allows this operation, or a request with the same Idempotency-Key is still in progress (IDEMPOTENCY_KEY_IN_USE)',
  429: 'Too many requests of this API key, per minute or at once (RATE_LIMITED); retry after the Retry-After header\'s seconds',
  502: 'The code host refused or failed (PR_CREATION_FAILED); the fix is marked pr_creation_failed',
  504: 'Opening the pull request ran past its deadline (PR_TIMEOUT); the fix is marked pr_creation_failed and can be retried',
};

/**
 * Success schema, FastAPI-style 422 and the error envelope for the given statuses, as OpenAPI responses.
 * `family` picks the 422 layout of that family's contract; routes outside both families pass none.
 */
export function responses(success: Record<number, TSchema>, errors: number[], family?: Family | false) {
  const result: Record<number, TSchema> = { ...success };
  if (family !== false) {
    const schema = family?.kind === 'application' ? BareHTTPValidationError : HTTPValidationError;
    result[422] = { ...schema, description: 'Validation Error' };
  }
  // Every authenticated route can be refused with 429.
  for (const status of [...errors, ...(errors.includes(401) ? [429] : [])]) {
    result[status] = { ...ErrorResponse, description: ERROR_DESCRIPTIONS[status] };
  }
  return result;
}

export function unitParams(family: Family, ...more: string[]) {
  const props: Record<string, TSchema> = { [family.param]: Type.String({ title: family.label + ' Id' }) };
  for (const name of more) props[name] = Type.String({ title: name.replace(/_/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase()) });
  return Type.Object(props);
}

export function operationId(family: Family, verb: string): string {
  return `${verb}_${family.kind}`;
}

/** What every route under `/api/v1/{family}/{id}/{segment}` needs: the base path, path values and the unit. */
export function unitScope(app: FastifyInstance, db: Kysely<Database>, family: Family, segment: string) {
  const params = (request: FastifyRequest) => request.params as Record<string, string>;
  return {
    api: typed(app),
    base: `/api/v1/${family.collection}/:${family.param}/${segment}`,
    tags: [family.tag],
    params,
    /** The addressed unit of the caller's organization, or 404. */
    unitOf: (request: FastifyRequest) => getUnit(db, request.principal.orgId, params(request)[family.param], family.label),
  };
}
