import type { FastifyInstance } from 'fastify';
import { membershipsOf, signIn, signOut, signOutEverywhere, type SessionPrincipal } from '../../../core/accounts.ts';
import type { Store } from '../../../store/database.ts';
import { NoContent, SessionResponse, SignInRequest } from '../../console-schemas.ts';
import { responses, typed } from '../../route-kit.ts';
import { clearSessionCookie, requireSession, setSessionCookie } from '../../session.ts';

const tags = ['console'];

async function sessionBody(store: Store, session: SessionPrincipal) {
  const memberships = await membershipsOf(store.db, session.user.id);
  return {
    user: { id: session.user.id, email: session.user.email, name: session.user.name },
    csrf_token: session.csrfToken,
    organizations: memberships.map((m) => ({ ...m.organization, role: m.role })),
  };
}

/** The console's session: signing in with a password, who is signed in, signing out here or everywhere. */
export async function consoleSessionRoutes(app: FastifyInstance, { store }: { store: Store }) {
  const api = typed(app);

  api.post(
    '/console/api/session',
    {
      schema: {
        tags,
        summary: 'Sign in with email and password; sets the session cookie',
        operationId: 'sign_in',
        body: SignInRequest,
        response: responses({ 200: SessionResponse }, [401, 429]),
        security: [],
      },
    },
    async (request, reply) => {
      const { token, session } = await signIn(store.db, { ...request.body, address: request.ip });
      setSessionCookie(reply, token);
      return sessionBody(store, session);
    },
  );

  api.get(
    '/console/api/session',
    { schema: { tags, summary: 'The signed-in user, their organizations and the CSRF token', operationId: 'get_session', response: responses({ 200: SessionResponse }, [401], false), security: [] } },
    async (request) => sessionBody(store, requireSession(request)),
  );

  api.delete(
    '/console/api/session',
    { schema: { tags, summary: 'Sign this browser out', operationId: 'sign_out', response: responses({ 204: NoContent }, [401, 403], false), security: [] } },
    async (request, reply) => {
      await signOut(store.db, requireSession(request).sessionId);
      clearSessionCookie(reply);
      return reply.status(204).send();
    },
  );

  api.delete(
    '/console/api/sessions',
    { schema: { tags, summary: 'Sign the user out everywhere', operationId: 'sign_out_everywhere', response: responses({ 204: NoContent }, [401, 403], false), security: [] } },
    async (request, reply) => {
      await signOutEverywhere(store.db, requireSession(request).user.id);
      clearSessionCookie(reply);
      return reply.status(204).send();
    },
  );
}
