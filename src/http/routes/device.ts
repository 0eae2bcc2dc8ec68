import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  collectDeviceToken,
  decideDeviceAuthorization,
  DEVICE_GRANT_TYPE,
  DeviceTokenError,
  deviceAuthorizationView,
  requestDeviceCode,
  type DeviceLookup,
} from '../../core/device-flow.ts';
import type { Store } from '../../store/database.ts';
import {
  DeviceApprovalRequest,
  DeviceApprovalResponse,
  DeviceAuthorizationView,
  DeviceCodeRequest,
  DeviceCodeResponse,
  DeviceTokenError as DeviceTokenErrorSchema,
  DeviceTokenRequest,
  DeviceTokenResponse,
  UserCodeParams,
} from '../console-schemas.ts';
import { publicAddress } from '../public-address.ts';
import { responses, typed } from '../route-kit.ts';
import { requireSession } from '../session.ts';

const tags = ['device flow'];

/** The signed-in session looking a user code up, and its address: what look-ups are limited by. */
const lookup = (request: FastifyRequest): DeviceLookup => ({ sessionId: requireSession(request).sessionId, address: request.ip });

/**
 * The OAuth 2.0 device authorization grant (RFC 8628) at the server root, as the published CLI's
 * `auth login` speaks it, and the console's approval of a code.
 */
export async function deviceRoutes(app: FastifyInstance, { store, publicUrl }: { store: Store; publicUrl: string | null }) {
  const api = typed(app);

  api.post(
    '/oauth/device/code',
    {
      schema: { tags, summary: 'Start a device login (RFC 8628 §3.1)', operationId: 'request_device_code', body: DeviceCodeRequest, response: responses({ 200: DeviceCodeResponse }, [429], false), security: [] },
    },
    async (request, reply) => {
      const code = await requestDeviceCode(store.db, { clientName: request.body?.client_name ?? null, address: request.ip });
      const verification = publicAddress(request, publicUrl, '/device');
      reply.header('cache-control', 'no-store');
      return {
        device_code: code.deviceCode,
        user_code: code.userCode,
        verification_uri: verification,
        verification_uri_complete: `${verification}?user_code=${encodeURIComponent(code.userCode)}`,
        expires_in: code.expiresIn,
        interval: code.interval,
      };
    },
  );

  api.post(
    '/oauth/token',
    {
      schema: {
        tags,
        summary: 'Collect the access token of an approved device code (RFC 8628 §3.4); form-encoded',
        operationId: 'device_token',
        consumes: ['application/x-www-form-urlencoded'],
        body: DeviceTokenRequest,
        response: { 200: DeviceTokenResponse, 400: DeviceTokenErrorSchema },
        security: [],
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      const { grant_type, device_code } = request.body ?? {};
      try {
        if (grant_type !== DEVICE_GRANT_TYPE) throw new DeviceTokenError('unsupported_grant_type', `grant_type must be ${DEVICE_GRANT_TYPE}`);
        if (!device_code) throw new DeviceTokenError('invalid_request', 'device_code is required');
        const token = await collectDeviceToken(store.db, device_code);
        return { access_token: token.accessToken, token_type: 'Bearer' as const, scope: token.scope };
      } catch (error) {
        if (!(error instanceof DeviceTokenError)) throw error;
        return reply.status(400).send({ error: error.error, error_description: error.message });
      }
    },
  );

  api.get(
    '/device-authorizations/:user_code',
    {
      schema: { tags, summary: 'A device login waiting for approval, for the approval page', operationId: 'get_device_authorization', params: UserCodeParams, response: responses({ 200: DeviceAuthorizationView }, [401, 404, 429], false), security: [] },
    },
    async (request) => {
      const row = await deviceAuthorizationView(store.db, request.params.user_code, lookup(request));
      return {
        user_code: row.user_code,
        client_name: row.client_name,
        status: row.status,
        requested_at: row.requested_at,
        expires_at: row.expires_at,
        requested_from: row.requested_from,
      };
    },
  );

  api.post(
    '/device-authorizations/:user_code/approve',
    {
      schema: {
        tags,
        summary: "Approve a device login: it receives an API key of the organization with the approving user's role's scopes",
        operationId: 'approve_device_authorization',
        params: UserCodeParams,
        body: DeviceApprovalRequest,
        response: responses({ 200: DeviceApprovalResponse }, [401, 403, 404, 409, 429]),
        security: [],
      },
    },
    async (request) => {
      const session = requireSession(request);
      const status = await decideDeviceAuthorization(
        store.db,
        request.params.user_code,
        { approve: true, userId: session.user.id, orgId: request.body.organization_id, deviceLabel: request.body.device_label ?? 'CLI device' },
        lookup(request),
      );
      return { status };
    },
  );

  api.post(
    '/device-authorizations/:user_code/deny',
    {
      schema: { tags, summary: 'Deny a device login', operationId: 'deny_device_authorization', params: UserCodeParams, response: responses({ 200: DeviceApprovalResponse }, [401, 403, 404, 409, 429], false), security: [] },
    },
    async (request) => {
      const session = requireSession(request);
      return { status: await decideDeviceAuthorization(store.db, request.params.user_code, { approve: false, userId: session.user.id }, lookup(request)) };
    },
  );
}
