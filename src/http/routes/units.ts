import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { getUnit, listUnits } from '../../core/units.ts';
import { toPage } from '../../core/pagination.ts';
import type { Store } from '../../store/database.ts';
import type { Family } from '../family.ts';
import { operationId, responses, typed, unitParams } from '../route-kit.ts';
import { Paginated, Pagination, unitResponse } from '../schemas.ts';
import { serializeUnit } from '../serializers.ts';

export async function unitRoutes(app: FastifyInstance, { store, family }: { store: Store; family: Family }) {
  const api = typed(app);
  const Unit = unitResponse(family);
  const base = `/api/v1/${family.collection}`;

  api.get(
    base,
    {
      config: { scope: 'read', cachedPerOrganization: true },
      schema: {
        tags: [family.tag],
        summary: `List the organization's ${family.collection}`,
        operationId: operationId(family, 'list') + 's',
        querystring: Type.Object({
          include_archived: Type.Boolean({ default: false, description: `Include archived ${family.collection}` }),
          ...Pagination(50),
        }),
        response: responses({ 200: Paginated(Unit, Unit.title!) }, [401, 403], family),
      },
    },
    async (request) => {
      const { include_archived, limit, skip } = request.query;
      const page = await listUnits(store.db, request.principal.orgId, { includeArchived: include_archived, limit, skip });
      return toPage(page.items.map(serializeUnit), page.total, { limit, skip });
    },
  );

  api.get(
    `${base}/:${family.param}`,
    {
      config: { scope: 'read' },
      schema: {
        tags: [family.tag],
        summary: `Read one ${family.kind}`,
        operationId: operationId(family, 'get'),
        params: unitParams(family),
        response: responses({ 200: Unit }, [401, 403, 404], family),
      },
    },
    async (request) => {
      const id = (request.params as Record<string, string>)[family.param];
      return serializeUnit(await getUnit(store.db, request.principal.orgId, id, family.label));
    },
  );
}
