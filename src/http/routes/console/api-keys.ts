import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireRole, userById } from '../../../core/accounts.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../../../core/api-keys.ts';
import { BodyValueError, notFound } from '../../../core/errors.ts';
import { MANAGES_ORGANIZATION, scopesOf } from '../../../core/roles.ts';
import type { StoredApiKey } from '../../../store/api-keys.ts';
import type { Store } from '../../../store/database.ts';
import { ApiKeyList, ConsoleApiKey, CreateApiKeyRequest, CreatedApiKey, KeyParams, OrgParams } from '../../console-schemas.ts';
import { responses, typed } from '../../route-kit.ts';
import { requireManager } from './access.ts';

const tags = ['console'];

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

/** An organization's API keys, for its admins and owners: listed, created (with the scopes the creator's role may grant) and revoked. */
export async function consoleApiKeyRoutes(app: FastifyInstance, { store }: { store: Store }) {
  const api = typed(app);
  const manager = (request: FastifyRequest, orgId: string) => requireManager(store, request, orgId);

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
}
