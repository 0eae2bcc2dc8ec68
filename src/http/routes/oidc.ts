import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { signInWithIdentity } from '../../core/accounts.ts';
import { OidcError, type OidcFailure, type OidcSignIn, type PendingSignIn } from '../../identity/oidc.ts';
import type { Store } from '../../store/database.ts';
import { publicAddress } from '../public-address.ts';
import { safeReturnPath } from '../return-path.ts';
import { responses, typed } from '../route-kit.ts';
import { setSessionCookie } from '../session.ts';

const tags = ['console'];
const PENDING_COOKIE = 'bulwark_oidc';
const CALLBACK = '/console/api/oidc/callback';
/** The provider's redirect back is a top-level navigation from another site: Lax lets the cookie come along. */
const pendingCookie = { httpOnly: true, sameSite: 'lax', path: '/console/api/oidc', secure: 'auto', maxAge: 600 } as const;

export const SignInMethods = Type.Object(
  { password: Type.Boolean(), oidc: Type.Union([Type.Object({ name: Type.String(), start_url: Type.String() }), Type.Null()]) },
  { title: 'SignInMethods' },
);

/**
 * What the sign-in page is told when single sign-on fails: a code, never text, so nobody can write on the
 * page with a link (console/src/lib/sign-in-errors.ts holds the message of each).
 */
export type SignInFailure = OidcFailure | 'sign_in_expired' | 'account_disabled';

/** The sign-in page's choices, and OpenID Connect sign-in when BULWARK_OIDC_* is set. */
export async function oidcRoutes(app: FastifyInstance, { store, oidc, publicUrl }: { store: Store; oidc: OidcSignIn | null; publicUrl: string | null }) {
  const api = typed(app);
  const redirectUri = (request: FastifyRequest) => publicAddress(request, publicUrl, CALLBACK);
  const backToSignIn = (reply: FastifyReply, failure: SignInFailure) => reply.redirect(`/login?error=${failure}`);

  api.get(
    '/console/api/sign-in-methods',
    { schema: { tags, summary: 'How people can sign in here', operationId: 'get_sign_in_methods', response: responses({ 200: SignInMethods }, [], false), security: [] } },
    async () => ({ password: true, oidc: oidc ? { name: oidc.name, start_url: '/console/api/oidc/start' } : null }),
  );

  if (!oidc) return;

  app.get('/console/api/oidc/start', { schema: { hide: true } }, async (request, reply) => {
    try {
      const { url, pending } = await oidc.start(redirectUri(request), safeReturnPath((request.query as Record<string, unknown>).return_to));
      reply.setCookie(PENDING_COOKIE, Buffer.from(JSON.stringify(pending)).toString('base64url'), pendingCookie);
      return reply.redirect(url);
    } catch (error) {
      if (!(error instanceof OidcError)) throw error;
      request.log.warn({ err: error }, 'OpenID Connect sign-in could not start');
      return backToSignIn(reply, error.reason);
    }
  });

  app.get(CALLBACK, { schema: { hide: true } }, async (request, reply) => {
    const raw = request.cookies[PENDING_COOKIE];
    reply.clearCookie(PENDING_COOKIE, pendingCookie);
    let pending: PendingSignIn;
    try {
      pending = JSON.parse(Buffer.from(raw ?? '', 'base64url').toString('utf8'));
    } catch {
      return backToSignIn(reply, 'sign_in_expired');
    }
    if (!pending?.state) return backToSignIn(reply, 'sign_in_expired');
    try {
      const identity = await oidc.finish(new URL(request.url, redirectUri(request)), redirectUri(request), pending);
      const { token } = await signInWithIdentity(store.db, identity);
      setSessionCookie(reply, token);
      return reply.redirect(safeReturnPath(pending.returnTo));
    } catch (error) {
      if (!(error instanceof OidcError) && (error as { statusCode?: number }).statusCode !== 401) throw error;
      request.log.warn({ err: error }, 'OpenID Connect sign-in refused');
      return backToSignIn(reply, error instanceof OidcError ? error.reason : 'account_disabled');
    }
  });
}
