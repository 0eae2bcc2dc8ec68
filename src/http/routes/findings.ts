import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { FINDING_STATUSES, getFinding, listFindings, setFindingStatus, type FindingStatus } from '../../core/findings.ts';
import { toPage } from '../../core/pagination.ts';
import type { Deps } from '../deps.ts';
import type { Family } from '../family.ts';
import { operationId, responses, unitParams, unitScope } from '../route-kit.ts';
import { SEVERITIES } from '../../core/severity.ts';
import { EnumFilter, FindingStatusUpdateRequest, OptionalFilter, Paginated, Pagination, findingResponse } from '../schemas.ts';
import { serializeFinding } from '../serializers.ts';

export async function findingRoutes(app: FastifyInstance, { deps, family }: { deps: Deps; family: Family }) {
  const { db } = deps.store;
  const { api, base, tags, params, unitOf } = unitScope(app, db, family, 'findings');
  const Finding = findingResponse(family);

  api.get(
    base,
    {
      config: { scope: 'read', cachedPerOrganization: true },
      schema: {
        tags,
        summary: `List findings of a ${family.kind}, newest first`,
        operationId: operationId(family, 'list_findings'),
        params: unitParams(family),
        querystring: Type.Object({
          scan_batch_id: OptionalFilter('Filter by scan batch id'),
          severity: EnumFilter(SEVERITIES, 'Filter by severity'),
          status: EnumFilter(FINDING_STATUSES, 'Filter by status'),
          scan_type: EnumFilter(family.scanTypes, 'Filter by scan type'),
          sort: Type.Optional(
            Type.Unsafe<'newest' | 'severity'>(
              Type.String({ enum: ['newest', 'severity'], description: 'newest (the default): newest first; severity: critical first, newest first within a severity' }),
            ),
          ),
          ...Pagination(50),
        }),
        response: responses({ 200: Paginated(Finding, 'PublicFindingResponse') }, [401, 403, 404], family),
      },
    },
    async (request) => {
      const { scan_batch_id, severity, status, scan_type, sort, limit, skip } = request.query;
      const unit = await unitOf(request);
      const page = await listFindings(db, unit, {
        scanBatchId: scan_batch_id,
        severity,
        status,
        scanType: scan_type,
        sort,
        limit,
        skip,
      });
      return toPage(page.items.map((f) => serializeFinding(family, unit, f)), page.total, { limit, skip });
    },
  );

  api.get(
    `${base}/:finding_id`,
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'Read one finding',
        operationId: operationId(family, 'get_finding'),
        params: unitParams(family, 'finding_id'),
        response: responses({ 200: Finding }, [401, 403, 404], family),
      },
    },
    async (request) => {
      const unit = await unitOf(request);
      return serializeFinding(family, unit, await getFinding(db, unit, params(request).finding_id));
    },
  );

  api.patch(
    `${base}/:finding_id`,
    {
      config: { scope: 'finding:write' },
      schema: {
        tags,
        summary: 'Set the status of a finding (triage)',
        description: 'A change writes a status_changed event to the finding-events feed with the calling key as actor and the optional comment.',
        operationId: operationId(family, 'update_finding_status'),
        params: unitParams(family, 'finding_id'),
        body: FindingStatusUpdateRequest,
        response: responses({ 200: Finding }, [401, 403, 404], family),
      },
    },
    async (request) => {
      const unit = await unitOf(request);
      const { status, comment } = request.body;
      const updated = await setFindingStatus(db, request.principal, unit, params(request).finding_id, status as FindingStatus, comment ?? null);
      return serializeFinding(family, unit, updated);
    },
  );
}
