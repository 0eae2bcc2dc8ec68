import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { BodyValueError } from '../../core/errors.ts';
import { importSarif, SARIF_MAX_RESULTS, type SarifImportView } from '../../core/sarif-imports.ts';
import type { ScanType } from '../../scanning/scan-type-names.ts';
import type { Deps } from '../deps.ts';
import type { Family } from '../family.ts';
import { operationId, responses, unitParams, unitScope } from '../route-kit.ts';

// An addition to the v1 contract: findings of other tools, imported from their SARIF 2.1.0 logs
// (core/sarif-imports.ts). Offered by both families.

/** A SARIF log of a large repository runs to megabytes: this route takes bodies up to 20 MiB. */
export const SARIF_IMPORT_BODY_LIMIT = 20 * 1024 * 1024;

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const OptionalText = (title: string, maxLength: number, description: string) =>
  Type.Optional(Nullable(Type.String({ title, minLength: 1, maxLength, description })));

const SarifImportRequest = Type.Object(
  {
    sarif: Type.Unknown({
      title: 'Sarif',
      description: 'The SARIF 2.1.0 log, as the tool wrote it: an object with "version": "2.1.0" and "runs", each naming its tool in tool.driver.name (one tool per import)',
    }),
    commit_sha: Type.String({ title: 'Commit Sha', pattern: '^[0-9a-fA-F]{40}$', description: 'The commit the tool analyzed (40 hexadecimal digits)' }),
    source_repository: OptionalText('Source Repository', 300, "The full name of the source repository the log is of; optional when the unit has one"),
    branch: OptionalText('Branch', 255, 'The branch the commit is on, kept with the import'),
    category: OptionalText(
      'Category',
      200,
      "Keeps imports of one tool with different configurations apart, as GitHub code scanning's category does (default: the part of runs[0].automationDetails.id before its last /)",
    ),
    source_root: OptionalText(
      'Source Root',
      4096,
      'The checkout the tool ran in (absolute path or file: URI): absolute file locations under it are read as repository paths; others are skipped',
    ),
  },
  { title: 'SarifImportRequest' },
);

const sarifImportResponse = (family: Family) =>
  Type.Object(
    {
      import_id: Type.String({ title: 'Import Id' }),
      [family.idField]: Type.String({ title: `${family.label} Id` }),
      tool: Type.String({ title: 'Tool', description: "The tool's name, from tool.driver.name" }),
      tool_version: Nullable(Type.String({ title: 'Tool Version' })),
      category: Nullable(Type.String({ title: 'Category' })),
      source_repository: Type.String({ title: 'Source Repository' }),
      commit_sha: Type.String({ title: 'Commit Sha' }),
      branch: Nullable(Type.String({ title: 'Branch' })),
      results: Type.Integer({ title: 'Results', description: 'Results the log holds' }),
      created: Type.Integer({ title: 'Created', description: 'New findings' }),
      updated: Type.Integer({ title: 'Updated', description: 'Findings seen again (of this tool, or Bulwark findings of the same problem)' }),
      resolved: Type.Integer({ title: 'Resolved', description: "This tool's findings it no longer reports that nothing else sees, now resolved (resolved_auto)" }),
      skipped: Type.Integer({ title: 'Skipped', description: 'Results not imported; warnings say why' }),
      warnings: Type.Array(Type.String(), { title: 'Warnings' }),
      created_at: Type.String({ format: 'date-time', title: 'Created At' }),
    },
    { title: 'SarifImportResponse' },
  );

function serializeSarifImport(family: Family, view: SarifImportView) {
  const { row } = view;
  return {
    import_id: row.id,
    [family.idField]: row.unit_id,
    tool: row.tool,
    tool_version: row.tool_version,
    category: row.category,
    source_repository: view.sourceRepository,
    commit_sha: row.commit_sha,
    branch: row.branch,
    results: row.results,
    created: row.created,
    updated: row.updated,
    resolved: row.resolved,
    skipped: row.skipped,
    warnings: view.warnings,
    created_at: row.created_at,
  };
}

export async function sarifImportRoutes(app: FastifyInstance, { deps, family }: { deps: Deps; family: Family }) {
  const { db } = deps.store;
  const { api, base, tags, unitOf } = unitScope(app, db, family, 'sarif-imports');

  api.post(
    base,
    {
      config: { scope: 'scan:write' },
      bodyLimit: SARIF_IMPORT_BODY_LIMIT,
      // A body without the log is refused here: the schema's own "Field required" would echo the whole body.
      preValidation: async (request) => {
        const body = request.body;
        if (typeof body === 'object' && body !== null && !Array.isArray(body) && !('sarif' in body)) {
          throw new BodyValueError(['body', 'sarif'], 'Field required', undefined, 'missing');
        }
      },
      schema: {
        tags,
        summary: 'Import the findings of another tool from its SARIF 2.1.0 log',
        description:
          "One import is one scan by the log's tool of one source repository at one commit: each result becomes a finding (rule ids prefixed " +
          "with the tool's name, scan_type semgrep_scan for code analyzers, secrets_scan for secret detectors, sbom_scan for dependency " +
          "scanners), matched to the tool's earlier findings and to Bulwark's own findings of the same problem; the tool's findings it no " +
          `longer reports are resolved. At most ${SARIF_MAX_RESULTS} results are imported at once, bodies up to 20 MiB. ` +
          '422 for a body that is not a SARIF 2.1.0 log of one tool, with nothing changed. An addition to the v1 contract.',
        operationId: operationId(family, 'create_sarif_import'),
        params: unitParams(family),
        body: SarifImportRequest,
        response: responses({ 201: sarifImportResponse(family) }, [401, 403, 404], family),
      },
    },
    async (request, reply) => {
      const unit = await unitOf(request);
      const view = await importSarif(db, unit, request.body, {
        actor: request.principal.keyId,
        scanTypes: family.scanTypes as readonly ScanType[],
      });
      return reply.status(201).send(serializeSarifImport(family, view));
    },
  );
}
