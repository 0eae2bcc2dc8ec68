import type { FastifyInstance } from 'fastify';
import { invalidState } from '../../../core/errors.ts';
import {
  changeEndpoint,
  createEndpoint,
  deliveryView,
  endpointView,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  redeliver,
  removeEndpoint,
  rotateSecret,
} from '../../../core/outbound-webhooks.ts';
import type { Store } from '../../../store/database.ts';
import type { Deps } from '../../deps.ts';
import {
  CreateWebhookEndpointRequest,
  EndpointDeliveryParams,
  EndpointParams,
  NoContent,
  OrgParams,
  UpdateWebhookEndpointRequest,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookDeliveryQuery,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
} from '../../console-schemas.ts';
import { responses, typed } from '../../route-kit.ts';
import { requireManager } from './access.ts';

const tags = ['console'];

/**
 * An organization's outbound webhooks, for its admins: endpoints that receive its finding events (made with
 * a signing secret shown once, listed, changed, removed, the secret rotated) and each one's deliveries,
 * any of which can be sent again.
 */
export async function consoleOutboundWebhookRoutes(app: FastifyInstance, { store, registration }: { store: Store; registration: Deps['registration'] }) {
  const api = typed(app);
  const base = '/console/api/organizations/:org_id/webhook-endpoints';
  const needsRegistration = () => {
    if (!registration) throw invalidState('This server cannot keep webhook secrets (no encryption key is set up for the console)');
    return registration;
  };

  api.get(
    base,
    { schema: { tags, summary: "The organization's webhook endpoints", operationId: 'list_webhook_endpoints', params: OrgParams, response: responses({ 200: WebhookEndpointList }, [401, 403, 404]), security: [] } },
    async (request) => {
      await requireManager(store, request, request.params.org_id);
      return { items: (await listEndpoints(store.db, request.params.org_id)).map(endpointView) };
    },
  );

  api.post(
    base,
    {
      schema: {
        tags,
        summary: 'Register a webhook endpoint; its signing secret is in this answer only',
        operationId: 'create_webhook_endpoint',
        params: OrgParams,
        body: CreateWebhookEndpointRequest,
        response: responses({ 201: WebhookEndpointWithSecret }, [401, 403, 404, 409]),
        security: [],
      },
    },
    async (request, reply) => {
      const session = await requireManager(store, request, request.params.org_id);
      const { tokenBox, cloneUrlPolicy } = needsRegistration();
      const made = await createEndpoint(store.db, tokenBox, cloneUrlPolicy, { ...request.body, orgId: request.params.org_id, userId: session.user.id });
      return reply.status(201).send({ endpoint: endpointView(made.endpoint), secret: made.secret });
    },
  );

  api.get(
    `${base}/:endpoint_id`,
    { schema: { tags, summary: 'A webhook endpoint', operationId: 'get_webhook_endpoint', params: EndpointParams, response: responses({ 200: WebhookEndpoint }, [401, 403, 404]), security: [] } },
    async (request) => {
      await requireManager(store, request, request.params.org_id);
      return endpointView(await getEndpoint(store.db, request.params.org_id, request.params.endpoint_id));
    },
  );

  api.patch(
    `${base}/:endpoint_id`,
    {
      schema: {
        tags,
        summary: "Change a webhook endpoint's URL, event types, description or whether it is enabled",
        operationId: 'update_webhook_endpoint',
        params: EndpointParams,
        body: UpdateWebhookEndpointRequest,
        response: responses({ 200: WebhookEndpoint }, [401, 403, 404]),
        security: [],
      },
    },
    async (request) => {
      await requireManager(store, request, request.params.org_id);
      const policy = registration?.cloneUrlPolicy ?? { allowLocal: false, localRoot: null, allowPrivateHosts: false };
      return endpointView(await changeEndpoint(store.db, policy, request.params.org_id, request.params.endpoint_id, request.body));
    },
  );

  api.delete(
    `${base}/:endpoint_id`,
    { schema: { tags, summary: 'Remove a webhook endpoint and its deliveries', operationId: 'delete_webhook_endpoint', params: EndpointParams, response: responses({ 204: NoContent }, [401, 403, 404]), security: [] } },
    async (request, reply) => {
      await requireManager(store, request, request.params.org_id);
      await removeEndpoint(store.db, request.params.org_id, request.params.endpoint_id);
      return reply.status(204).send();
    },
  );

  api.post(
    `${base}/:endpoint_id/rotate-secret`,
    {
      schema: {
        tags,
        summary: 'A new signing secret, in this answer only; the previous one also signs for 24 hours',
        operationId: 'rotate_webhook_endpoint_secret',
        params: EndpointParams,
        response: responses({ 200: WebhookEndpointWithSecret }, [401, 403, 404, 409]),
        security: [],
      },
    },
    async (request) => {
      await requireManager(store, request, request.params.org_id);
      const { tokenBox } = needsRegistration();
      const rotated = await rotateSecret(store.db, tokenBox, request.params.org_id, request.params.endpoint_id);
      return { endpoint: endpointView(rotated.endpoint), secret: rotated.secret };
    },
  );

  api.get(
    `${base}/:endpoint_id/deliveries`,
    {
      schema: {
        tags,
        summary: "A webhook endpoint's latest deliveries, newest first",
        operationId: 'list_webhook_deliveries',
        params: EndpointParams,
        querystring: WebhookDeliveryQuery,
        response: responses({ 200: WebhookDeliveryList }, [401, 403, 404]),
        security: [],
      },
    },
    async (request) => {
      await requireManager(store, request, request.params.org_id);
      const rows = await listDeliveries(store.db, request.params.org_id, request.params.endpoint_id, request.query.limit ?? 50, request.query.status);
      return { items: rows.map(deliveryView) };
    },
  );

  api.post(
    `${base}/:endpoint_id/deliveries/:delivery_id/redeliver`,
    {
      schema: {
        tags,
        summary: 'Send a delivery again now (same webhook-id); a redelivery that fails is not retried',
        operationId: 'redeliver_webhook_delivery',
        params: EndpointDeliveryParams,
        response: responses({ 202: WebhookDelivery }, [401, 403, 404, 409]),
        security: [],
      },
    },
    async (request, reply) => {
      await requireManager(store, request, request.params.org_id);
      const delivery = await redeliver(store.db, request.params.org_id, request.params.endpoint_id, request.params.delivery_id);
      return reply.status(202).send(deliveryView(delivery));
    },
  );
}
