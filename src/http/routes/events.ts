import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { EVENT_TYPES, listEvents } from '../../core/finding-events.ts';
import { toPage } from '../../core/pagination.ts';
import type { Store } from '../../store/database.ts';
import { responses, typed } from '../route-kit.ts';
import { SEVERITIES } from '../../core/severity.ts';
import { SCAN_TYPES } from '../../scanning/scan-types/index.ts';
import { EnumFilter, FindingEventResponse, OptionalFilter, Paginated, Pagination } from '../schemas.ts';
import { serializeEvent } from '../serializers.ts';

/** Times are compared as stored: UTC ISO-8601. A time without an offset is taken as UTC, as pydantic does. */
function toUtc(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const normalized = value.replace(' ', 'T');
  const hasOffset = /(?:z|[+-]\d{2}:?\d{2})$/i.test(normalized) || !normalized.includes('T');
  return new Date(hasOffset ? normalized : `${normalized}Z`).toISOString();
}

export async function eventRoutes(app: FastifyInstance, { store }: { store: Store }) {
  const api = typed(app);
  api.get(
    '/api/v1/finding-events',
    {
      config: { scope: 'read', cachedPerOrganization: true },
      schema: {
        tags: ['events'],
        summary: 'Organization-wide finding lifecycle events, newest first',
        description: 'Event ids are stable; polling consumers use them as dedupe keys.',
        operationId: 'list_finding_events',
        querystring: Type.Object({
          repository_id: OptionalFilter('Filter by repository id'),
          finding_id: OptionalFilter('Filter by finding id'),
          scan_type: EnumFilter(SCAN_TYPES, 'Filter by scan type'),
          severity: EnumFilter(SEVERITIES, 'Filter by severity'),
          event_type: EnumFilter(EVENT_TYPES, 'Filter by event type'),
          start: Type.Optional(Type.String({ format: 'date-time', description: 'Start time filter' })),
          end: Type.Optional(Type.String({ format: 'date-time', description: 'End time filter' })),
          ...Pagination(100),
        }),
        response: responses({ 200: Paginated(FindingEventResponse, 'PublicFindingEventResponse') }, [401, 403]),
      },
    },
    async (request) => {
      const q = request.query;
      const page = await listEvents(store.db, request.principal.orgId, {
        unitId: q.repository_id,
        findingId: q.finding_id,
        scanType: q.scan_type,
        severity: q.severity,
        eventType: q.event_type,
        start: toUtc(q.start),
        end: toUtc(q.end),
        limit: q.limit,
        skip: q.skip,
      });
      return toPage(page.items.map(serializeEvent), page.total, { limit: q.limit, skip: q.skip });
    },
  );
}
