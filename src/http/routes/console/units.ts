import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BodyValueError, invalidState } from '../../../core/errors.ts';
import { InvalidTokenError, parseSourceSpec, setSourceToken, sourceTokenState } from '../../../core/source-repos.ts';
import { addUnit, getUnit, setUnitArchived, SourceUrlRefused } from '../../../core/units.ts';
import type { SourceRepoRow } from '../../../store/schema.ts';
import type { Store } from '../../../store/database.ts';
import type { Deps } from '../../deps.ts';
import {
  ArchivedUnit,
  ArchiveRequest,
  OrgParams,
  RegisteredRepository,
  RegisterRepositoryRequest,
  SetSourceTokenRequest,
  SourceParams,
  SourceRepository,
  ScanTriggersSchema,
  SourceRepositoryList,
  UnitParams,
} from '../../console-schemas.ts';
import { responses, typed } from '../../route-kit.ts';
import { requireManager } from './access.ts';
import { getScanTriggers, setScanTriggers } from '../../../core/scan-triggers.ts';

const tags = ['console'];

function serializeSource(source: SourceRepoRow) {
  const { id, provider, full_name, default_branch, clone_url } = source;
  return { id, provider, full_name, default_branch, clone_url, ...sourceTokenState(source) };
}

/**
 * An organization's repositories as its admins and owners manage them in the console: registering one,
 * archiving a repository or application, and its source repositories' access tokens.
 */
export async function consoleUnitRoutes(app: FastifyInstance, { store, registration }: { store: Store; registration: Deps['registration'] }) {
  const api = typed(app);
  const manager = (request: FastifyRequest, orgId: string) => requireManager(store, request, orgId);

  api.post(
    '/console/api/organizations/:org_id/repositories',
    {
      schema: {
        tags,
        summary: 'Register a repository; its access token is stored encrypted and never shown again',
        operationId: 'register_repository',
        params: OrgParams,
        body: RegisterRepositoryRequest,
        response: responses({ 201: RegisteredRepository }, [401, 403, 404, 409]),
        security: [],
      },
    },
    async (request, reply) => {
      await manager(request, request.params.org_id);
      if (!registration) throw invalidState('This server cannot register repositories from the console');
      const body = request.body;
      let spec;
      try {
        spec = parseSourceSpec(`${body.provider}:${body.full_name}@${body.default_branch ?? 'main'}`);
      } catch (error) {
        throw new BodyValueError(['body', 'full_name'], (error as Error).message, body.full_name);
      }
      let unit;
      try {
        unit = await addUnit(
          store.db,
          registration.tokenBox,
          { orgId: request.params.org_id, name: body.name ?? spec.fullName, sources: [{ ...spec, cloneUrl: body.clone_url ?? undefined, token: body.access_token ?? undefined }] },
          registration.cloneUrlPolicy,
        );
      } catch (error) {
        if (error instanceof SourceUrlRefused) throw new BodyValueError(['body', 'clone_url'], error.message, body.clone_url ?? null);
        throw error;
      }
      const [source] = unit.sources;
      return reply.status(201).send({
        id: unit.id,
        name: unit.name,
        provider: source.provider,
        full_name: source.full_name,
        default_branch: source.default_branch,
        clone_url: source.clone_url,
        has_token: source.token_ciphertext !== null,
      });
    },
  );

  api.patch(
    '/console/api/organizations/:org_id/units/:unit_id',
    {
      schema: { tags, summary: 'Archive a repository or application, or bring it back', operationId: 'archive_unit', params: UnitParams, body: ArchiveRequest, response: responses({ 200: ArchivedUnit }, [401, 403, 404]), security: [] },
    },
    async (request) => {
      await manager(request, request.params.org_id);
      const unit = await getUnit(store.db, request.params.org_id, request.params.unit_id);
      await setUnitArchived(store.db, unit.id, request.body.archived);
      return { id: unit.id, archived: request.body.archived };
    },
  );
  api.get(
    '/console/api/organizations/:org_id/units/:unit_id/sources',
    {
      schema: {
        tags,
        summary: "A repository's (or application's) source repositories: whether each has an access token, and when it last changed",
        operationId: 'list_unit_sources',
        params: UnitParams,
        response: responses({ 200: SourceRepositoryList }, [401, 403, 404]),
        security: [],
      },
    },
    async (request) => {
      await manager(request, request.params.org_id);
      const unit = await getUnit(store.db, request.params.org_id, request.params.unit_id);
      return { items: unit.sources.map(serializeSource) };
    },
  );

  api.get(
    '/console/api/organizations/:org_id/units/:unit_id/scan-triggers',
    {
      schema: { tags, summary: 'The scan types a repository runs when its code host reports a push to the branch it scans, or a pull request into it', operationId: 'get_scan_triggers', params: UnitParams, response: responses({ 200: ScanTriggersSchema }, [401, 403, 404]), security: [] },
    },
    async (request) => {
      await manager(request, request.params.org_id);
      return getScanTriggers(store.db, request.params.org_id, request.params.unit_id);
    },
  );
  api.put(
    '/console/api/organizations/:org_id/units/:unit_id/scan-triggers',
    {
      schema: {
        tags,
        summary: 'Sets the scan types a repository runs on a push (each a scan batch, charged as one started by hand) and on a pull request into the branch it scans (reported on the pull request); [] turns them off',
        operationId: 'set_scan_triggers',
        params: UnitParams,
        body: ScanTriggersSchema,
        response: responses({ 200: ScanTriggersSchema }, [401, 403, 404]),
        security: [],
      },
    },
    async (request) => {
      const session = await manager(request, request.params.org_id);
      return setScanTriggers(store.db, request.params.org_id, request.params.unit_id, request.body, session.user.id);
    },
  );

  /** Sets, replaces or removes a source's token and logs who did it (never the token). */
  const changeToken = async (request: FastifyRequest, params: { org_id: string; unit_id: string; source_id: string }, token: string | null) => {
    const { org_id, unit_id, source_id } = params;
    const session = await manager(request, org_id);
    if (!registration) throw invalidState('This server cannot change access tokens from the console');
    const unit = await getUnit(store.db, org_id, unit_id);
    let source;
    try {
      source = await setSourceToken(store.db, registration.tokenBox, unit, source_id, token);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw new BodyValueError(['body', 'token'], `Value error, ${error.message}`, '[redacted]');
      throw error;
    }
    request.log.info(
      { action: token === null ? 'source_token_removed' : 'source_token_set', org_id, unit_id, source_id, repository: source.full_name, user_id: session.user.id, user_email: session.user.email },
      token === null ? 'access token removed' : 'access token set',
    );
    return serializeSource(source);
  };

  api.put(
    '/console/api/organizations/:org_id/units/:unit_id/sources/:source_id/token',
    {
      schema: {
        tags,
        summary: "Set or replace a source repository's access token; it is stored encrypted and never shown",
        operationId: 'set_source_token',
        params: SourceParams,
        body: SetSourceTokenRequest,
        response: responses({ 200: SourceRepository }, [401, 403, 404]),
        security: [],
      },
    },
    async (request) => changeToken(request, request.params, request.body.token),
  );

  api.delete(
    '/console/api/organizations/:org_id/units/:unit_id/sources/:source_id/token',
    {
      schema: {
        tags,
        summary: "Remove a source repository's access token",
        operationId: 'remove_source_token',
        params: SourceParams,
        response: responses({ 200: SourceRepository }, [401, 403, 404]),
        security: [],
      },
    },
    async (request) => changeToken(request, request.params, null),
  );
}
