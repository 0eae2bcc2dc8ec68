import crypto from 'node:crypto';
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import { SESSION_IDLE_MS, sessionOf, type SessionPrincipal } from '../core/accounts.ts';
import { errors } from '../core/errors.ts';
import type { Database } from '../store/schema.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in browser this request came from, when it carries a live session cookie. */
    consoleSession: SessionPrincipal | null;
  }
}

export const SESSION_COOKIE = 'bulwark_session';
export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Paths where a session cookie counts; everywhere else (the console's pages, /docs) it is ignored. */
const SESSION_PATHS = /^\/(?:api|console\/api|device-authorizations)\//;
/** Signing in starts a session, so it cannot show one's CSRF token (SameSite=Strict and the JSON body guard it). */
const SIGN_IN = '/console/api/session';

/** The cookie that carries a session's token: never readable by scripts, never sent by other sites. */
export function setSessionCookie(reply: FastifyReply, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'strict', path: '/', secure: 'auto', maxAge: SESSION_IDLE_MS / 1000 });
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'strict', path: '/', secure: 'auto' });
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/**
 * Reads the session cookie on API and console calls, and refuses a change made with it (not with an API
 * key) that lacks the session's CSRF token in `X-CSRF-Token`. Runs before the API's key check, which
 * then admits the session in place of a key.
 */
export const sessionPlugin = fp(async (app: FastifyInstance, options: { db: Kysely<Database> }) => {
  await app.register(cookie);
  app.decorateRequest('consoleSession', null);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const path = request.url.split('?')[0];
    if (!SESSION_PATHS.test(path)) return;
    // Another site's form can post text/plain, never application/json: so it cannot sign a browser in
    // to an account of the attacker's choosing (login CSRF).
    const signingIn = path === SIGN_IN && request.method === 'POST';
    if (signingIn && !/^application\/json\b/i.test(request.headers['content-type'] ?? '')) {
      throw errors.badRequest('Sign in with a JSON body (Content-Type: application/json)');
    }
    const token = request.cookies[SESSION_COOKIE];
    if (!token || request.headers.authorization) return;
    request.consoleSession = (await sessionOf(options.db, token)) ?? null;
    if (!request.consoleSession || SAFE_METHODS.has(request.method) || signingIn) return;
    const presented = request.headers[CSRF_HEADER];
    if (typeof presented !== 'string' || !sameToken(presented, request.consoleSession.csrfToken)) throw errors.csrfFailed();
  });
});

/** The request's session, or 401. */
export function requireSession(request: FastifyRequest): SessionPrincipal {
  if (!request.consoleSession) throw errors.unauthorized('Not signed in, or the session has expired: sign in again');
  return request.consoleSession;
}
