import type { FastifyInstance } from 'fastify';
import { readBalance } from '../../core/quotas.ts';
import type { Store } from '../../store/database.ts';
import { responses, typed } from '../route-kit.ts';
import { MeResponse, QuotaBalanceResponse } from '../schemas.ts';
import { serializeBalance, serializeMe } from '../serializers.ts';

export async function accountRoutes(app: FastifyInstance, { store }: { store: Store }) {
  const api = typed(app);

  api.get(
    '/api/v1/me',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['account'],
        summary: 'The calling key, its organization and scopes',
        operationId: 'get_me',
        response: responses({ 200: MeResponse }, [401, 403], false),
      },
    },
    async (request) => serializeMe(request.principal.organization, request.principal.apiKey),
  );

  api.get(
    '/api/v1/quotas/balance',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['account'],
        summary: 'Current-period quota balance of the organization',
        operationId: 'get_quota_balance',
        response: responses({ 200: QuotaBalanceResponse }, [401, 403], false),
      },
    },
    async (request) => serializeBalance(await readBalance(store.db, request.principal.orgId)),
  );
}
