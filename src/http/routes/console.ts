import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  addMember,
  changeMemberRole,
  membersOf,
  membershipsOf,
  removeMember,
  requireRole,
  signIn,
  signOut,
  signOutEverywhere,
  userById,
  type SessionPrincipal,
} from '../../core/accounts.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../../core/api-keys.ts';
import { BodyValueError, invalidState, notFound } from '../../core/errors.ts';
import { InvalidTokenError, parseSourceSpec, setSourceToken, sourceTokenState } from '../../core/source-repos.ts';
import { addUnit, getUnit, setUnitArchived, SourceUrlRefused } from '../../core/units.ts';
import type { Deps } from '../deps.ts';
import { MANAGES_ORGANIZATION, scopesOf } from '../../core/roles.ts';
import type { StoredApiKey } from '../../store/api-keys.ts';
import type { SourceRepoRow } from '../../store/schema.ts';
import type { Store } from '../../store/database.ts';
import {
  AddMemberRequest,
  ApiKeyList,
  ArchivedUnit,
  ArchiveRequest,
  ChangeRoleRequest,
  ConsoleApiKey,
  CreateApiKeyRequest,
  CreatedApiKey,
  Member,
  MemberList,
  KeyParams,
  MemberParams,
  NoContent,
  OrgParams,
  RegisteredRepository,
  RegisterRepositoryRequest,
  SessionResponse,
  SetSourceTokenRequest,
  SignInRequest,
  SourceParams,
  SourceRepository,
  SourceRepositoryList,
  UnitParams,
} from '../console-schemas.ts';
import { responses, typed } from '../route-kit.ts';
import { clearSessionCookie, requireSession, setSessionCookie } from '../session.ts';

const tags = ['console'];

async function sessionBody(store: Store, session: SessionPrincipal) {
  const memberships = await membershipsOf(store.db, session.user.id);
  return {
    user: { id: session.user.id, email: session.user.email, name: session.user.name },
    csrf_token: session.csrfToken,
    organizations: memberships.map((m) => ({ ...m.organization, role: m.role })),
  };
}

async function serializeKeys(store: Store, keys: StoredApiKey[]) {
  const creators = new Map<string, { id: string; email: string } | null>();
  for (const id of new Set(keys.map((k) => k.created_by_user_id).filter((id) => id !== null))) {
    const user = await userById(store.db, id);
    creators.set(id, user ? { id: user.id, email: user.email } : null);
  }
  return keys.map((k) => ({
    id: k.id,
    name: k.name,
    prefix: k.key_prefix,
    scopes: k.scopes,
    created_by: k.created_by_user_id ? (creators.get(k.created_by_user_id) ?? null) : null,
    created_at: k.created_at,
    last_used_at: k.last_used_at,
    expires_at: k.expires_at,
    revoked_at: k.revoked_at,
  }));
}

function serializeSource(source: SourceRepoRow) {
  const { id, provider, full_name, default_branch, clone_url } = source;
  return { id, provider, full_name, default_branch, clone_url, ...sourceTokenState(source) };
}

/**
 * The console's own routes: signing in and out, and an organization's settings (API keys, members) for
 * its admins and owners. The organization's data the console reads through /api/v1 with the session.
 */
export async function consoleRoutes(app: FastifyInstance, { store, registration }: { store: Store; registration: Deps['registration'] }) {
  const api = typed(app);
  /** The session, with at least the role that manages the organization in the path. */
  const manager = async (request: FastifyRequest, orgId: string) => {
    const session = requireSession(request);
    await requireRole(store.db, orgId, session.user.id, MANAGES_ORGANIZATION);
    return session;
  };

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

  api.get(
    '/console/api/organizations/:org_id/api-keys',
    { schema: { tags, summary: "The organization's API keys", operationId: 'list_org_api_keys', params: OrgParams, response: responses({ 200: ApiKeyList }, [401, 403, 404]), security: [] } },
    async (request) => {
      await manager(request, request.params.org_id);
      return { items: await serializeKeys(store, await listApiKeys(store.db, request.params.org_id)) };
    },
  );

  api.post(
    '/console/api/organizations/:org_id/api-keys',
    {
      schema: {
        tags,
        summary: 'Create an API key; the key is in this answer only',
        operationId: 'create_org_api_key',
        params: OrgParams,
        body: CreateApiKeyRequest,
        response: responses({ 201: CreatedApiKey }, [401, 403, 404]),
        security: [],
      },
    },
    async (request, reply) => {
      const session = await manager(request, request.params.org_id);
      const role = await requireRole(store.db, request.params.org_id, session.user.id, MANAGES_ORGANIZATION);
      const allowed = scopesOf(role);
      const beyond = request.body.scopes.filter((s) => !allowed.includes(s));
      if (beyond.length) throw new BodyValueError(['body', 'scopes'], `Your role cannot grant ${beyond.join(', ')}`, request.body.scopes);
      const expiresAt = request.body.expires_at ?? null;
      if (expiresAt && Date.parse(expiresAt) <= Date.now()) throw new BodyValueError(['body', 'expires_at'], 'The expiry must be in the future', expiresAt);
      const { key, summary } = await createApiKey(store.db, {
        orgId: request.params.org_id,
        name: request.body.name,
        scopes: request.body.scopes,
        createdByUserId: session.user.id,
        expiresAt: expiresAt && new Date(expiresAt).toISOString(),
      });
      const [shown] = await serializeKeys(store, [summary]);
      return reply.status(201).send({ api_key: shown, key });
    },
  );

  api.delete(
    '/console/api/organizations/:org_id/api-keys/:key_id',
    {
      schema: {
        tags,
        summary: 'Revoke an API key',
        operationId: 'revoke_org_api_key',
        params: KeyParams,
        response: responses({ 200: ConsoleApiKey }, [401, 403, 404]),
        security: [],
      },
    },
    async (request) => {
      const { org_id, key_id } = request.params;
      await manager(request, org_id);
      const key = (await listApiKeys(store.db, org_id)).find((k) => k.id === key_id);
      if (!key) throw notFound('API key');
      const revoked = await revokeApiKey(store.db, key.id);
      return (await serializeKeys(store, [revoked!]))[0];
    },
  );

  api.get(
    '/console/api/organizations/:org_id/members',
    { schema: { tags, summary: "The organization's members and their roles", operationId: 'list_members', params: OrgParams, response: responses({ 200: MemberList }, [401, 403, 404]), security: [] } },
    async (request) => {
      await requireRole(store.db, request.params.org_id, requireSession(request).user.id, 'viewer');
      return { items: await membersOf(store.db, request.params.org_id) };
    },
  );

  api.post(
    '/console/api/organizations/:org_id/members',
    {
      schema: { tags, summary: 'Add an existing user to the organization', operationId: 'add_member', params: OrgParams, body: AddMemberRequest, response: responses({ 201: Member }, [401, 403, 404, 409]), security: [] },
    },
    async (request, reply) => {
      const session = await manager(request, request.params.org_id);
      // Only an owner makes another owner.
      if (request.body.role === 'owner') await requireRole(store.db, request.params.org_id, session.user.id, 'owner');
      return reply.status(201).send(await addMember(store.db, request.params.org_id, request.body.email, request.body.role));
    },
  );

  api.patch(
    '/console/api/organizations/:org_id/members/:user_id',
    { schema: { tags, summary: "Change a member's role", operationId: 'change_member_role', params: MemberParams, body: ChangeRoleRequest, response: responses({ 200: Member }, [401, 403, 404, 409]), security: [] } },
    async (request) => {
      const { org_id, user_id } = request.params;
      const session = await manager(request, org_id);
      const target = (await membersOf(store.db, org_id)).find((m) => m.user.id === user_id);
      if (!target) throw notFound('Member');
      // Owners are made and unmade by owners.
      if (request.body.role === 'owner' || target.role === 'owner') await requireRole(store.db, org_id, session.user.id, 'owner');
      return changeMemberRole(store.db, org_id, user_id, request.body.role);
    },
  );

  api.delete(
    '/console/api/organizations/:org_id/members/:user_id',
    { schema: { tags, summary: 'Remove a member from the organization', operationId: 'remove_member', params: MemberParams, response: responses({ 204: NoContent }, [401, 403, 404, 409]), security: [] } },
    async (request, reply) => {
      const { org_id, user_id } = request.params;
      const session = await manager(request, org_id);
      const target = (await membersOf(store.db, org_id)).find((m) => m.user.id === user_id);
      if (!target) throw notFound('Member');
      if (target.role === 'owner') await requireRole(store.db, org_id, session.user.id, 'owner');
      await removeMember(store.db, org_id, user_id);
      return reply.status(204).send();
    },
  );

  api.post(
    '/console/api/organizations/:org_id/repositories',
    {
      schema: {
        tags,
        summary: 'Register a repository; its access token is stored encrypted and never shown again',
        operationId: 'register_repository',
        params: OrgParams,
        body: RegisterRepositoryRequest,
        response: responses({ 201: RegisteredRepository }, [401, 403, 404, 409]),
        security: [],
      },
    },
    async (request, reply) => {
      await manager(request, request.params.org_id);
      if (!registration) throw invalidState('This server cannot register repositories from the console');
      const body = request.body;
      let spec;
      try {
        spec = parseSourceSpec(`${body.provider}:${body.full_name}@${body.default_branch ?? 'main'}`);
      } catch (error) {
        throw new BodyValueError(['body', 'full_name'], (error as Error).message, body.full_name);
      }
      let unit;
      try {
        unit = await addUnit(
          store.db,
          registration.tokenBox,
          { orgId: request.params.org_id, name: body.name ?? spec.fullName, sources: [{ ...spec, cloneUrl: body.clone_url ?? undefined, token: body.access_token ?? undefined }] },
          registration.cloneUrlPolicy,
        );
      } catch (error) {
        if (error instanceof SourceUrlRefused) throw new BodyValueError(['body', 'clone_url'], error.message, body.clone_url ?? null);
        throw error;
      }
      const [source] = unit.sources;
      return reply.status(201).send({
        id: unit.id,
        name: unit.name,
        provider: source.provider,
        full_name: source.full_name,
        default_branch: source.default_branch,
        clone_url: source.clone_url,
        has_token: source.token_ciphertext !== null,
      });
    },
  );

  api.patch(
    '/console/api/organizations/:org_id/units/:unit_id',
    {
      schema: { tags, summary: 'Archive a repository or application, or bring it back', operationId: 'archive_unit', params: UnitParams, body: ArchiveRequest, response: responses({ 200: ArchivedUnit }, [401, 403, 404]), security: [] },
    },
    async (request) => {
      await manager(request, request.params.org_id);
      const unit = await getUnit(store.db, request.params.org_id, request.params.unit_id);
      await setUnitArchived(store.db, unit.id, request.body.archived);
      return { id: unit.id, archived: request.body.archived };
    },
  );
  api.get(
    '/console/api/organizations/:org_id/units/:unit_id/sources',
    {
      schema: {
        tags,
        summary: "A repository's (or application's) source repositories: whether each has an access token, and when it last changed",
        operationId: 'list_unit_sources',
        params: UnitParams,
        response: responses({ 200: SourceRepositoryList }, [401, 403, 404]),
        security: [],
      },
    },
    async (request) => {
      await manager(request, request.params.org_id);
      const unit = await getUnit(store.db, request.params.org_id, request.params.unit_id);
      return { items: unit.sources.map(serializeSource) };
    },
  );

  /** Sets, replaces or removes a source's token and logs who did it (never the token). */
  const changeToken = async (request: FastifyRequest, params: { org_id: string; unit_id: string; source_id: string }, token: string | null) => {
    const { org_id, unit_id, source_id } = params;
    const session = await manager(request, org_id);
    if (!registration) throw invalidState('This server cannot change access tokens from the console');
    const unit = await getUnit(store.db, org_id, unit_id);
    let source;
    try {
      source = await setSourceToken(store.db, registration.tokenBox, unit, source_id, token);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw new BodyValueError(['body', 'token'], `Value error, ${error.message}`, '[redacted]');
      throw error;
    }
    request.log.info(
      { action: token === null ? 'source_token_removed' : 'source_token_set', org_id, unit_id, source_id, repository: source.full_name, user_id: session.user.id, user_email: session.user.email },
      token === null ? 'access token removed' : 'access token set',
    );
    return serializeSource(source);
  };

  api.put(
    '/console/api/organizations/:org_id/units/:unit_id/sources/:source_id/token',
    {
      schema: {
        tags,
        summary: "Set or replace a source repository's access token; it is stored encrypted and never shown",
        operationId: 'set_source_token',
        params: SourceParams,
        body: SetSourceTokenRequest,
        response: responses({ 200: SourceRepository }, [401, 403, 404]),
        security: [],
      },
    },
    async (request) => changeToken(request, request.params, request.body.token),
  );

  api.delete(
    '/console/api/organizations/:org_id/units/:unit_id/sources/:source_id/token',
    {
      schema: {
        tags,
        summary: "Remove a source repository's access token",
        operationId: 'remove_source_token',
        params: SourceParams,
        response: responses({ 200: SourceRepository }, [401, 403, 404]),
        security: [],
      },
    },
    async (request) => changeToken(request, request.params, null),
  );
}
