import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { signInWithIdentity } from '../../core/accounts.ts';
import { OidcError, type OidcSignIn, type PendingSignIn } from '../../identity/oidc.ts';
import type { Store } from '../../store/database.ts';
import { publicAddress } from '../public-address.ts';
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

/** A console path only: never another site (`//evil.example`, `https://…`). */
const consolePath = (value: unknown) => (typeof value === 'string' && /^\/(?![/\\])/.test(value) ? value : '/');

/** The sign-in page's choices, and OpenID Connect sign-in when BULWARK_OIDC_* is set. */
export async function oidcRoutes(app: FastifyInstance, { store, oidc, publicUrl }: { store: Store; oidc: OidcSignIn | null; publicUrl: string | null }) {
  const api = typed(app);
  const redirectUri = (request: FastifyRequest) => publicAddress(request, publicUrl, CALLBACK);
  const backToSignIn = (reply: FastifyReply, message: string) => reply.redirect(`/login?error=${encodeURIComponent(message)}`);

  api.get(
    '/console/api/sign-in-methods',
    { schema: { tags, summary: 'How people can sign in here', operationId: 'get_sign_in_methods', response: responses({ 200: SignInMethods }, [], false), security: [] } },
    async () => ({ password: true, oidc: oidc ? { name: oidc.name, start_url: '/console/api/oidc/start' } : null }),
  );

  if (!oidc) return;

  app.get('/console/api/oidc/start', { schema: { hide: true } }, async (request, reply) => {
    try {
      const { url, pending } = await oidc.start(redirectUri(request), consolePath((request.query as Record<string, unknown>).return_to));
      reply.setCookie(PENDING_COOKIE, Buffer.from(JSON.stringify(pending)).toString('base64url'), pendingCookie);
      return reply.redirect(url);
    } catch (error) {
      if (!(error instanceof OidcError)) throw error;
      request.log.warn({ err: error }, 'OpenID Connect sign-in could not start');
      return backToSignIn(reply, error.message);
    }
  });

  app.get(CALLBACK, { schema: { hide: true } }, async (request, reply) => {
    const raw = request.cookies[PENDING_COOKIE];
    reply.clearCookie(PENDING_COOKIE, pendingCookie);
    let pending: PendingSignIn;
    try {
      pending = JSON.parse(Buffer.from(raw ?? '', 'base64url').toString('utf8'));
    } catch {
      return backToSignIn(reply, 'The sign-in took too long or was started in another browser; try again');
    }
    if (!pending?.state) return backToSignIn(reply, 'The sign-in took too long or was started in another browser; try again');
    try {
      const identity = await oidc.finish(new URL(request.url, redirectUri(request)), redirectUri(request), pending);
      const { token } = await signInWithIdentity(store.db, identity);
      setSessionCookie(reply, token);
      return reply.redirect(consolePath(pending.returnTo));
    } catch (error) {
      if (!(error instanceof OidcError) && (error as { statusCode?: number }).statusCode !== 401) throw error;
      request.log.warn({ err: error }, 'OpenID Connect sign-in refused');
      return backToSignIn(reply, (error as Error).message);
    }
  });
}
