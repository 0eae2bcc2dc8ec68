import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { missingScope, unauthorized } from '../core/errors.ts';
import type { Principal } from '../core/principal.ts';
import type { Scope } from '../core/scopes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** The scope a key needs for this route; routes under /api/v1 without one need only a valid key. */
    scope?: Scope;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  return BEARER.exec(header)?.[1];
}

/** Every /api/v1 request carries `Authorization: Bearer <key>`; runs before validation, as FastAPI's auth dependency does. */
export const authPlugin = fp(async (app: FastifyInstance, options: { authenticate: (presented: string) => Promise<Principal | undefined> }) => {
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/api/')) return;
    const key = presentedKey(request);
    if (!request.headers.authorization) throw unauthorized('Missing Authorization header: send "Authorization: Bearer <API key>"');
    if (!key) throw unauthorized('Malformed Authorization header: expected "Bearer <API key>"');
    const principal = await options.authenticate(key);
    if (!principal) throw unauthorized('Invalid or revoked API key');
    request.principal = principal;
    const scope = request.routeOptions.config?.scope;
    if (scope && !principal.scopes.includes(scope)) throw missingScope(scope);
  });
});
