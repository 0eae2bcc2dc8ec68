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

/** A key's principal: known at once when remembered, otherwise after a read of the store. */
export type Authenticate = (presented: string) => Principal | undefined | Promise<Principal | undefined>;

/** Every /api/v1 request carries `Authorization: Bearer <key>`; runs before validation, as FastAPI's auth dependency does. */
export const authPlugin = fp(async (app: FastifyInstance, options: { authenticate: Authenticate }) => {
  app.decorateRequest('principal', null as unknown as Principal);
  const admit = (request: FastifyRequest, principal: Principal | undefined, done: (error?: Error) => void) => {
    if (!principal) return done(unauthorized('Invalid or revoked API key'));
    request.principal = principal;
    const scope = request.routeOptions.config?.scope;
    done(scope && !principal.scopes.includes(scope) ? missingScope(scope) : undefined);
  };
  // A callback hook, so that a key remembered by `authenticate` costs no promise.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!request.url.startsWith('/api/')) return done();
    const key = presentedKey(request);
    if (!request.headers.authorization) return done(unauthorized('Missing Authorization header: send "Authorization: Bearer <API key>"'));
    if (!key) return done(unauthorized('Malformed Authorization header: expected "Bearer <API key>"'));
    let found: ReturnType<Authenticate>;
    try {
      found = options.authenticate(key);
    } catch (error) {
      return done(error as Error);
    }
    if (found instanceof Promise) found.then((principal) => admit(request, principal, done), done);
    else admit(request, found, done);
  });
});
