import type { Kysely } from 'kysely';
import { newId } from '../ids.ts';
import { readSarifLog, SarifLogError, type SarifReading } from '../sarif/read-log.ts';
import type { ScanType } from '../scanning/scan-type-names.ts';
import { insertSarifImport } from '../store/sarif-imports.ts';
import type { Database, SarifImportRow, SourceRepoRow } from '../store/schema.ts';
import { BodyValueError } from './errors.ts';
import { ingestSighting, type Sighting } from './finding-ingest.ts';
import type { Unit } from './units.ts';

// Findings of other tools. A SARIF import is one scan by that tool of one source repository at one commit:
// its results are matched to the findings that tool reported before (and to Bulwark's own findings of the
// same problem), what it no longer reports is resolved, and nothing another tool or scan type sees is
// touched. The tool is a sighter of its own (`sarif:<tool>`, see finding-ingest.ts), so triage, events,
// `detected_by` and fixes work on its findings as on any other.

/** Results one import stores at most (the default BULWARK_SCAN_MAX_FINDINGS of a scan); beyond it the least severe are left out. */
export const SARIF_MAX_RESULTS = 20_000;

export interface SarifImportInput {
  sarif: unknown;
  commit_sha: string;
  /** Which of the unit's source repositories the log is of: its full name (or provider:full_name); optional when the unit has one. */
  source_repository?: string | null;
  branch?: string | null;
  /** Keeps runs of one tool with different configurations apart (as GitHub code scanning's category does). */
  category?: string | null;
  /** The checkout the tool ran in, so absolute file URIs under it read as repository paths. */
  source_root?: string | null;
}

export interface SarifImportView {
  row: SarifImportRow;
  sourceRepository: string;
  warnings: string[];
}

/** The unit's source repository a log is of: the one named, or the only one. */
function sourceOf(unit: Unit, named: string | null | undefined): SourceRepoRow {
  const listed = unit.sources.map((s) => s.full_name).join(', ');
  if (named === null || named === undefined || named.trim() === '') {
    if (unit.sources.length === 1) return unit.sources[0];
    throw new BodyValueError(['body', 'source_repository'], `Field required: this unit has ${unit.sources.length} source repositories (${listed}); name the one the log is of`, named ?? undefined, 'missing');
  }
  const wanted = named.trim().toLowerCase();
  const source = unit.sources.find((s) => s.full_name.toLowerCase() === wanted || `${s.provider}:${s.full_name}`.toLowerCase() === wanted);
  if (!source) throw new BodyValueError(['body', 'source_repository'], `Value error, not a source repository of this unit; it has ${listed}`, named);
  return source;
}

/** The log's value at `loc`, when it is short enough to echo in a validation error. */
function echoed(log: unknown, loc: (string | number)[]): unknown {
  let value = log;
  for (const key of loc) value = typeof value === 'object' && value !== null ? (value as Record<string | number, unknown>)[key] : undefined;
  if (typeof value === 'string') return value.slice(0, 100);
  return typeof value === 'number' || typeof value === 'boolean' || value === null ? value : undefined;
}

/** Reads the log, or answers with the 422 that says why it is not one SARIF 2.1.0 log of one tool. */
export function readLog(input: SarifImportInput, importId: string, options: { scanTypes: readonly ScanType[]; maxResults?: number }): SarifReading {
  try {
    return readSarifLog(input.sarif, {
      importId,
      sourceRoot: input.source_root ?? null,
      category: input.category ?? null,
      scanTypes: options.scanTypes,
      maxResults: options.maxResults ?? SARIF_MAX_RESULTS,
    });
  } catch (error) {
    if (!(error instanceof SarifLogError)) throw error;
    throw new BodyValueError(['body', 'sarif', ...error.loc], error.message, echoed(input.sarif, error.loc), 'sarif_log');
  }
}

/**
 * Imports one SARIF log into a unit's source repository, as one scan by its tool (see the top of this file):
 * the import's row and every finding and event it changes are written in one transaction, so a refused or
 * failed import changes nothing. `actor` is the API key or user recorded as its author.
 */
export async function importSarif(
  db: Kysely<Database>,
  unit: Unit,
  input: SarifImportInput,
  options: { actor: string | null; scanTypes: readonly ScanType[]; maxResults?: number },
): Promise<SarifImportView> {
  const source = sourceOf(unit, input.source_repository);
  const importId = newId();
  const reading = readLog(input, importId, options);
  const commitSha = input.commit_sha.toLowerCase();
  const sighting: Sighting = {
    orgId: unit.org_id,
    unitId: unit.id,
    sourceRepoId: source.id,
    sighter: reading.sighter,
    sightingId: importId,
    batchId: null,
    scanId: null,
    commitSha,
    eventMetadata: { sarif_import_id: importId, tool: reading.tool.name },
  };
  return ingestSighting(db, sighting, reading.findings, {
    complete: reading.complete,
    record: async (trx, counts, now) => {
      const row: SarifImportRow = {
        id: importId,
        org_id: unit.org_id,
        unit_id: unit.id,
        source_repo_id: source.id,
        tool: reading.tool.name,
        tool_version: reading.tool.version,
        sighter: reading.sighter,
        category: reading.category,
        commit_sha: commitSha,
        branch: input.branch?.trim() || null,
        results: reading.results,
        created: counts.created,
        updated: counts.seen,
        resolved: counts.resolved,
        skipped: reading.skipped,
        warnings: JSON.stringify(reading.warnings),
        created_by: options.actor,
        created_at: now,
      };
      await insertSarifImport(trx, row);
      return { row, sourceRepository: source.full_name, warnings: reading.warnings };
    },
  });
}
