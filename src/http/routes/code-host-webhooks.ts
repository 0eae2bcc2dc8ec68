import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createWebhook, listWebhooks, receiveDelivery, recentDeliveries, removeWebhook, webhookPath, type Enqueue, type WebhookSetup } from '../../core/code-host-webhooks.ts';
import { notFound } from '../../core/errors.ts';
import type { TokenBox } from '../../crypto/token-box.ts';
import type { Store } from '../../store/database.ts';
import {
  CodeHostDeliveryList,
  CodeHostWebhookList,
  CreateCodeHostWebhookRequest,
  CreatedCodeHostWebhook,
  NoContent,
  OrgParams,
  WebhookParams,
} from '../console-schemas.ts';
import { publicAddress } from '../public-address.ts';
import { responses, typed } from '../route-kit.ts';
import { requireManager } from './console/access.ts';

/** Code hosts send up to 25 MB (GitHub); Bulwark reads pull-request events, far smaller. */
const DELIVERY_BODY_LIMIT = 5 * 1024 * 1024;
/** Deliveries a hook's log shows. */
const DELIVERY_LOG_LENGTH = 50;

export interface WebhookRouteDeps {
  store: Store;
  tokenBox: TokenBox | null;
  /** Queues the job that applies a delivery; without one (the API alone) deliveries are kept and wait. */
  dispatchDelivery: Enqueue;
  publicUrl: string | null;
}

/**
 * Where code hosts deliver (outside /api: they prove the hook's secret, not an API key) and, in the console,
 * an organization's webhooks for its admins: made (the secret shown once), listed with their setup, their
 * latest deliveries, removed.
 */
export async function codeHostWebhookRoutes(app: FastifyInstance, deps: WebhookRouteDeps) {
  const api = typed(app);
  const view = (request: FastifyRequest, { hook, setup }: WebhookSetup) => ({
    id: hook.id,
    provider: hook.provider,
    repository_id: hook.unit_id,
    url: publicAddress(request, deps.publicUrl, webhookPath(hook.id)),
    setup,
    created_at: hook.created_at,
    last_delivery_at: hook.last_delivery_at,
  });
  const tokenBox = () => {
    if (!deps.tokenBox) throw notFound('Webhook');
    return deps.tokenBox;
  };

  // The signature covers the bytes as sent: this route reads the body raw, whatever its content type.
  await app.register(async (hooks) => {
    hooks.removeAllContentTypeParsers();
    hooks.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: DELIVERY_BODY_LIMIT }, (_request, body, done) => done(null, body));
    hooks.post<{ Params: { hook_id: string }; Body: Buffer | undefined }>(
      '/hooks/code-hosts/:hook_id',
      { schema: { hide: true } as never, bodyLimit: DELIVERY_BODY_LIMIT },
      async (request, reply) => {
        const answer = await receiveDelivery(deps.store.db, tokenBox(), deps.dispatchDelivery, {
          hookId: request.params.hook_id,
          headers: request.headers,
          body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
        });
        return reply.status(answer.status).send({ detail: answer.message });
      },
    );
  });

  const tags = ['console'];
  api.get(
    '/console/api/organizations/:org_id/code-host-webhooks',
    { schema: { tags, summary: "The organization's code-host webhooks", operationId: 'list_code_host_webhooks', params: OrgParams, response: responses({ 200: CodeHostWebhookList }, [401, 403, 404]), security: [] } },
    async (request) => {
      await requireManager(deps.store, request, request.params.org_id);
      return { items: (await listWebhooks(deps.store.db, request.params.org_id)).map((hook) => view(request, hook)) };
    },
  );

  api.post(
    '/console/api/organizations/:org_id/code-host-webhooks',
    {
      schema: {
        tags,
        summary: 'Make a code-host webhook; its secret is in this answer only',
        operationId: 'create_code_host_webhook',
        params: OrgParams,
        body: CreateCodeHostWebhookRequest,
        response: responses({ 201: CreatedCodeHostWebhook }, [401, 403, 404]),
        security: [],
      },
    },
    async (request, reply) => {
      const session = await requireManager(deps.store, request, request.params.org_id);
      const made = await createWebhook(deps.store.db, tokenBox(), {
        orgId: request.params.org_id,
        provider: request.body.provider,
        unitId: request.body.repository_id ?? null,
        userId: session.user.id,
      });
      return reply.status(201).send({ webhook: view(request, made), secret: made.secret });
    },
  );

  api.get(
    '/console/api/organizations/:org_id/code-host-webhooks/:hook_id/deliveries',
    { schema: { tags, summary: "A webhook's latest deliveries, newest first", operationId: 'list_code_host_deliveries', params: WebhookParams, response: responses({ 200: CodeHostDeliveryList }, [401, 403, 404]), security: [] } },
    async (request) => {
      await requireManager(deps.store, request, request.params.org_id);
      const rows = await recentDeliveries(deps.store.db, request.params.org_id, request.params.hook_id, DELIVERY_LOG_LENGTH);
      return { items: rows.map(({ delivery_id, event, received_at, applied_at, outcome }) => ({ delivery_id, event, received_at, applied_at, outcome })) };
    },
  );

  api.delete(
    '/console/api/organizations/:org_id/code-host-webhooks/:hook_id',
    { schema: { tags, summary: 'Remove a code-host webhook', operationId: 'delete_code_host_webhook', params: WebhookParams, response: responses({ 204: NoContent }, [401, 403, 404]), security: [] } },
    async (request, reply) => {
      await requireManager(deps.store, request, request.params.org_id);
      await removeWebhook(deps.store.db, request.params.org_id, request.params.hook_id);
      return reply.status(204).send();
    },
  );
}
