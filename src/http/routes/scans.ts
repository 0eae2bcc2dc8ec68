import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { toPage } from '../../core/pagination.ts';
import {
  createScanBatch,
  type BatchView,
  getScanBatch,
  getScanProgress,
  getScanResults,
  getScanSbom,
  listScanBatches,
} from '../../core/scan-batches.ts';
import { BATCH_STATUS } from '../../core/states/batch-status.ts';
import type { ScanType } from '../../scanning/scan-type-names.ts';
import { quotaTypeForScan } from '../../scanning/scan-types/index.ts';
import type { Deps } from '../deps.ts';
import type { Family } from '../family.ts';
import { sendPiecewise } from '../piecewise-reply.ts';
import { keptWhenSmall } from '../page-cache.ts';
import { answerIdempotently, IdempotencyKeyHeaders } from '../idempotency.ts';
import { operationId, responses, unitParams, unitScope } from '../route-kit.ts';
import {
  CycloneDxDocument,
  EnumFilter,
  Paginated,
  Pagination,
  ScanResultsResponse,
  scanBatchResponse,
  scanCreateRequest,
  scanProgressResponse,
} from '../schemas.ts';
import { serializeBatch, serializeProgress, serializeResultsJson } from '../serializers.ts';

/** The largest results answer kept whole in the page cache. */
const KEPT_RESULTS_BYTES = 1024 * 1024;

export async function scanRoutes(app: FastifyInstance, { deps, family }: { deps: Deps; family: Family }) {
  const { db } = deps.store;
  const { api, base, tags, params, unitOf } = unitScope(app, db, family, 'scans');
  const Batch = scanBatchResponse(family);

  api.get(
    base,
    {
      config: { scope: 'read', cachedPerOrganization: true },
      schema: {
        tags,
        summary: `List scan batches of a ${family.kind}, newest first`,
        operationId: operationId(family, 'list_scans'),
        params: unitParams(family),
        querystring: Type.Object({
          scan_type: EnumFilter(family.scanTypes, 'Filter by scan type'),
          status: EnumFilter(BATCH_STATUS.statuses, 'Filter by status'),
          ...Pagination(20),
        }),
        response: responses({ 200: Paginated(Batch, 'PublicScanBatchResponse') }, [401, 403, 404], family),
      },
    },
    async (request) => {
      const { scan_type, status, limit, skip } = request.query;
      const page = await listScanBatches(db, await unitOf(request), { scanType: scan_type, status, limit, skip });
      return toPage(page.items.map((v) => serializeBatch(family, v)), page.total, { limit, skip });
    },
  );

  api.post(
    base,
    {
      config: { scope: 'scan:write' },
      schema: {
        tags,
        summary:
          family.kind === 'application'
            ? 'Trigger a scan batch across every repository of the application'
            : 'Trigger a scan batch',
        description:
          `Consumes one credit of the scan type's kind (${family.scanTypes.map((t) => `${t}: ${quotaTypeForScan(t)}`).join(', ')}); ` +
          '403 OPERATION_FAILED when none remain. A batch that fails without any of its scans completing gives the credit back.',
        operationId: operationId(family, 'create_scan'),
        params: unitParams(family),
        headers: IdempotencyKeyHeaders,
        body: scanCreateRequest(family),
        response: responses({ 202: Batch }, [401, 403, 404, 409], family),
      },
    },
    async (request, reply) => {
      const unit = await unitOf(request);
      return answerIdempotently<BatchView>(db, request, reply, {
        status: 202,
        leaseSeconds: 60,
        run: (onCommit) => createScanBatch(db, request.principal.orgId, unit, request.body.scan_type as ScanType, deps.dispatchBatch, onCommit),
        serialize: (view) => serializeBatch(family, view),
      });
    },
  );

  api.get(
    `${base}/:scan_id`,
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'Read a scan batch',
        operationId: operationId(family, 'get_scan'),
        params: unitParams(family, 'scan_id'),
        response: responses({ 200: Batch }, [401, 403, 404], family),
      },
    },
    async (request) => serializeBatch(family, await getScanBatch(db, await unitOf(request), params(request).scan_id)),
  );

  api.get(
    `${base}/:scan_id/progress`,
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'Batch progress with a per-repository breakdown; poll this for a progress bar',
        operationId: operationId(family, 'get_scan_progress'),
        params: unitParams(family, 'scan_id'),
        response: responses({ 200: scanProgressResponse(family) }, [401, 403, 404], family),
      },
    },
    async (request) => serializeProgress(family, await getScanProgress(db, await unitOf(request), params(request).scan_id)),
  );

  api.get(
    `${base}/:scan_id/results`,
    {
      config: { scope: 'read', cachedPerOrganization: true },
      schema: {
        tags,
        summary: 'Every finding attributed to the batch, across all its repositories',
        description: 'Streamed in file and line order, read from the database a page at a time, so a batch of any size is answered in bounded memory.',
        operationId: operationId(family, 'get_scan_results'),
        params: unitParams(family, 'scan_id'),
        response: responses({ 200: ScanResultsResponse }, [401, 403, 404], family),
      },
    },
    async (request, reply) => {
      const unit = await unitOf(request);
      const results = await getScanResults(db, unit, params(request).scan_id);
      // Streamed as it is read, page by page (a batch can hold hundreds of thousands of findings): the next
      // page is read while the socket takes the last, and reading stops if the client leaves. A small answer
      // is also kept whole, for the next read before the data changes.
      await sendPiecewise(reply, 'application/json; charset=utf-8', keptWhenSmall(request, serializeResultsJson(results), KEPT_RESULTS_BYTES));
    },
  );

  // An addition to the v1 contract: one repository's SBOM, so only the repository family offers it.
  if (family.kind !== 'repository') return;
  api.get(
    `${base}/:scan_id/sbom`,
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'The CycloneDX 1.6 SBOM of an sbom_scan',
        description:
          'Every dependency the scan found in the repository\'s manifests and lockfiles, as a CycloneDX 1.6 JSON ' +
          'document (media type application/vnd.cyclonedx+json). 409 INVALID_STATE while the scan runs, when it ' +
          'failed, or for a scan of another type. An addition to the v1 contract.',
        operationId: operationId(family, 'get_scan_sbom'),
        params: unitParams(family, 'scan_id'),
        response: {
          ...responses({}, [401, 403, 404, 409], family),
          200: { description: 'The CycloneDX 1.6 JSON document', content: { 'application/vnd.cyclonedx+json': { schema: CycloneDxDocument } } },
        },
      },
    },
    async (request, reply) => {
      const document = await getScanSbom(db, await unitOf(request), params(request).scan_id);
      // Stored as the JSON text it is served as; a string is sent as it is, without re-serializing.
      return reply.type('application/vnd.cyclonedx+json; version=1.6').send(document as never);
    },
  );
}
