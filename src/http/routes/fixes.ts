import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { cancelFix, createFix, getFix, listFixes, openPullRequests, refineFix, type FixView } from '../../core/fixes.ts';
import type { FixPullRequestRow } from '../../store/schema.ts';
import { toPage } from '../../core/pagination.ts';
import type { Deps } from '../deps.ts';
import type { Family } from '../family.ts';
import { answerIdempotently, IdempotencyKeyHeaders } from '../idempotency.ts';
import { operationId, responses, unitParams, unitScope } from '../route-kit.ts';
import {
  CreatePullRequestsRequest,
  FixCreateRequest,
  FixDiffResponse,
  FixRefineRequest,
  OptionalFilter,
  Paginated,
  Pagination,
  PullRequestsCreatedResponse,
  fixProgressResponse,
  fixResponse,
} from '../schemas.ts';
import { serializeFix, serializeFixDiff, serializeFixProgress, serializePullRequest } from '../serializers.ts';

export async function fixRoutes(app: FastifyInstance, { deps, family }: { deps: Deps; family: Family }) {
  const { db } = deps.store;
  const { api, base, tags, params, unitOf } = unitScope(app, db, family, 'fixes');
  const Fix = fixResponse(family);

  api.get(
    base,
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: `List fixes of a ${family.kind}, newest first`,
        operationId: operationId(family, 'list_fixes'),
        params: unitParams(family),
        querystring: Type.Object({ finding_id: OptionalFilter('Filter by finding id'), ...Pagination(50) }),
        response: responses({ 200: Paginated(Fix, 'PublicFixResponse') }, [401, 403, 404], family),
      },
    },
    async (request) => {
      const { finding_id, limit, skip } = request.query;
      const page = await listFixes(db, await unitOf(request), { findingId: finding_id, limit, skip });
      return toPage(page.items.map((v) => serializeFix(family, v)), page.total, { limit, skip });
    },
  );

  api.post(
    base,
    {
      config: { scope: 'fix:write' },
      schema: {
        tags,
        summary: 'Start an autofix run for findings',
        description:
          'Consumes one prs credit; 403 OPERATION_FAILED when none remain. Writes a fix_created event per finding. ' +
          '409 NO_FIXER_AVAILABLE, with nothing stored or charged, when no LLM agent is configured and a finding has no ' +
          'deterministic fixer (or the fix names no findings). 409 FIX_OVERLAPS, with nothing stored or charged, when a ' +
          "finding's change is already claimed by another pending, running or completed fix of the same source repository " +
          '(the same lines, package or secret value); fix_id names it. The open findings the same change fixes (the other ' +
          'places of a secret value, the other advisories of a package in the same file) are added to the fix. A fix that fails through no fault of the caller, or is ' +
          'cancelled before it starts, gives its credit back.',
        operationId: operationId(family, 'create_fix'),
        params: unitParams(family),
        headers: IdempotencyKeyHeaders,
        body: FixCreateRequest,
        response: responses({ 201: Fix }, [401, 403, 404, 409], family),
      },
    },
    async (request, reply) => {
      const unit = await unitOf(request);
      return answerIdempotently<FixView>(db, request, reply, {
        status: 201,
        leaseSeconds: 60,
        run: (onCommit) =>
          createFix(db, request.principal, unit, request.body, {
            dispatch: deps.dispatchFix,
            agentConfigured: deps.agentConfigured,
            hasFixer: deps.hasFixer,
            sourceBranchExists: deps.sourceBranchExists,
            onCommit,
          }),
        serialize: (view) => serializeFix(family, view),
      });
    },
  );

  api.get(
    `${base}/:fix_id`,
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'Read one fix',
        operationId: operationId(family, 'get_fix'),
        params: unitParams(family, 'fix_id'),
        response: responses({ 200: Fix }, [401, 403, 404], family),
      },
    },
    async (request) => serializeFix(family, await getFix(db, await unitOf(request), params(request).fix_id)),
  );

  api.get(
    `${base}/:fix_id/diff`,
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'The unified diff of a fix; null until the fix is completed',
        operationId: operationId(family, 'get_fix_diff'),
        params: unitParams(family, 'fix_id'),
        response: responses({ 200: FixDiffResponse }, [401, 403, 404], family),
      },
    },
    async (request) => serializeFixDiff(await getFix(db, await unitOf(request), params(request).fix_id)),
  );

  api.get(
    `${base}/:fix_id/progress`,
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'Heartbeat of a fix: status, timings and agent step count',
        operationId: operationId(family, 'get_fix_progress'),
        params: unitParams(family, 'fix_id'),
        response: responses({ 200: fixProgressResponse(family) }, [401, 403, 404], family),
      },
    },
    async (request) => serializeFixProgress(family, await getFix(db, await unitOf(request), params(request).fix_id)),
  );

  if (family.kind === 'repository') {
    api.post(
      `${base}/:fix_id/refine`,
      {
        config: { scope: 'fix:write' },
        schema: {
          tags,
          summary: 'Re-run a completed fix with follow-up instructions',
          operationId: operationId(family, 'refine_fix'),
          params: unitParams(family, 'fix_id'),
          body: FixRefineRequest,
          response: responses({ 200: Fix }, [401, 403, 404, 409], family),
        },
      },
      async (request) => {
        const unit = await unitOf(request);
        return serializeFix(family, await refineFix(db, request.principal, unit, params(request).fix_id, request.body.instructions, {
          dispatch: deps.dispatchFix,
          agentConfigured: deps.agentConfigured,
        }));
      },
    );

    api.post(
      `${base}/:fix_id/cancel`,
      {
        config: { scope: 'fix:write' },
        schema: {
          tags,
          summary: 'Cancel a pending or running fix',
          operationId: operationId(family, 'cancel_fix'),
          params: unitParams(family, 'fix_id'),
          response: responses({ 200: Fix }, [401, 403, 404, 409], family),
        },
      },
      async (request) => serializeFix(family, await cancelFix(db, request.principal, await unitOf(request), params(request).fix_id)),
    );
  }

  api.post(
    `${base}/:fix_id/pull-requests`,
    {
      config: { scope: 'pr:write' },
      // The body may be omitted entirely: every field has a generated default.
      preValidation: async (request) => {
        if (request.body === undefined) request.body = {};
      },
      schema: {
        tags,
        summary: 'Open pull requests for a completed fix',
        operationId: operationId(family, 'create_fix_pull_requests'),
        params: unitParams(family, 'fix_id'),
        headers: IdempotencyKeyHeaders,
        body: CreatePullRequestsRequest,
        response: responses({ 201: PullRequestsCreatedResponse }, [401, 403, 404, 409, 502, 504], family),
      },
    },
    async (request, reply) => {
      const fixId = params(request).fix_id;
      const unit = await unitOf(request);
      return answerIdempotently<FixPullRequestRow[]>(db, request, reply, {
        status: 201,
        // Longer than the longest pull request opening (BULWARK_PR_TIMEOUT_SECONDS is at most 600).
        leaseSeconds: 660,
        run: (onCommit) => openPullRequests(db, deps.pullRequests, unit, fixId, request.body, onCommit),
        serialize: (opened) => ({ fix_id: fixId, pull_requests: opened.map(serializePullRequest) }),
      });
    },
  );
}
