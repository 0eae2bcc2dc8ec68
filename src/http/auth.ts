import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { errors, missingScope, notFound, unauthorized } from '../core/errors.ts';
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

/** A console session acting in an organization (X-Bulwark-Organization), or undefined when not a member. */
export type AuthenticateSession = (request: FastifyRequest, orgId: string) => Promise<Principal | undefined>;

export const ORGANIZATION_HEADER = 'x-bulwark-organization';

/**
 * Every /api/v1 request carries `Authorization: Bearer <key>`, or comes from the console with its session
 * cookie and the organization it acts in; runs before validation, as FastAPI's auth dependency does.
 */
export const authPlugin = fp(async (app: FastifyInstance, options: { authenticate: Authenticate; authenticateSession?: AuthenticateSession }) => {
  app.decorateRequest('principal', null as unknown as Principal);
  const admit = (request: FastifyRequest, principal: Principal | undefined, done: (error?: Error) => void) => {
    if (!principal) return done(unauthorized('Invalid or revoked API key'));
    request.principal = principal;
    const scope = request.routeOptions.config?.scope;
    if (!scope || principal.scopes.includes(scope)) return done();
    // A person's scopes come from their role: say which role the route needs.
    done(principal.userId ? errors.insufficientRole('member') : missingScope(scope));
  };
  // A callback hook, so that a key remembered by `authenticate` costs no promise.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!request.url.startsWith('/api/')) return done();
    const key = presentedKey(request);
    if (!request.headers.authorization && request.consoleSession && options.authenticateSession) {
      const orgId = request.headers[ORGANIZATION_HEADER];
      if (typeof orgId !== 'string' || !orgId) return done(errors.badRequest('A console call names its organization in the X-Bulwark-Organization header'));
      options.authenticateSession(request, orgId).then((principal) => (principal ? admit(request, principal, done) : done(notFound('Organization'))), done);
      return;
    }
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
