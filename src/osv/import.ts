import type { Kysely } from 'kysely';
import { nowIso } from '../ids.ts';
import { ECOSYSTEMS, type Ecosystem } from '../inventory/component.ts';
import { advisoryModifiedTimes, markEcosystemRefreshed, replaceAdvisories, type StoredAdvisory } from '../store/osv.ts';
import type { Database } from '../store/schema.ts';
import { exportEntries } from './export-files.ts';
import { packageKey } from './package-key.ts';
import type { OsvRecord } from './record.ts';
import { webUrl } from '../web-url.ts';

export interface ImportReport {
  /** JSON documents read. */
  read: number;
  added: number;
  updated: number;
  /** Already stored with the same or a newer `modified` time. */
  unchanged: number;
  /** Stored with their withdrawn marker, so matching ignores them. */
  withdrawn: number;
  /** Records for ecosystems no extractor produces (distributions, Android…). */
  skipped: number;
  invalid: number;
  /** The first few reasons records were invalid. */
  errors: string[];
}

const BATCH_SIZE = 500;
const KEPT_ERRORS = 10;
const SUPPORTED = new Set<string>(ECOSYSTEMS);

/**
 * Loads OSV records into the database, a batch per transaction. Importing the same export twice
 * changes nothing; a newer `modified` replaces a record with its affected packages. Once the whole
 * export is read, the ecosystems it holds count as current (scans warn about missing or old records).
 */
export async function importOsv(db: Kysely<Database>, source: string, onProgress?: (report: ImportReport) => void): Promise<ImportReport> {
  const report: ImportReport = { read: 0, added: 0, updated: 0, unchanged: 0, withdrawn: 0, skipped: 0, invalid: 0, errors: [] };
  const startedAt = nowIso();
  const ecosystems = new Set<string>();
  let batch: OsvRecord[] = [];
  for await (const entry of exportEntries(source)) {
    report.read++;
    const record = parseRecord(entry.text, entry.name, report);
    if (!record) continue;
    if (!record.affected?.some((a) => a.package && SUPPORTED.has(a.package.ecosystem))) {
      report.skipped++;
      continue;
    }
    for (const affected of record.affected) if (affected.package && SUPPORTED.has(affected.package.ecosystem)) ecosystems.add(affected.package.ecosystem);
    batch.push(record);
    if (batch.length >= BATCH_SIZE) {
      await storeBatch(db, batch, report);
      batch = [];
      onProgress?.(report);
    }
  }
  if (batch.length) await storeBatch(db, batch, report);
  for (const ecosystem of [...ecosystems].sort()) await markEcosystemRefreshed(db, ecosystem, startedAt);
  return report;
}

function parseRecord(text: string, name: string, report: ImportReport): OsvRecord | null {
  const invalid = (reason: string) => {
    report.invalid++;
    if (report.errors.length < KEPT_ERRORS) report.errors.push(`${name}: ${reason}`);
    return null;
  };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return invalid(`not JSON (${(error as Error).message})`);
  }
  const record = value as OsvRecord;
  if (!record || typeof record !== 'object' || Array.isArray(record)) return invalid('not an OSV record');
  if (typeof record.id !== 'string' || !record.id) return invalid('no id');
  if (typeof record.modified !== 'string') return invalid(`${record.id} has no modified time`);
  if (record.affected !== undefined && !Array.isArray(record.affected)) return invalid(`${record.id}: affected is not a list`);
  return record;
}

async function storeBatch(db: Kysely<Database>, records: OsvRecord[], report: ImportReport): Promise<void> {
  // An export may carry one id twice; the last copy wins as it would on a second import.
  const byId = new Map(records.map((r) => [r.id, r]));
  await db.transaction().execute(async (trx) => {
    const stored = await advisoryModifiedTimes(trx, [...byId.keys()]);
    const changed = [...byId.values()].filter((r) => {
      const modified = stored.get(r.id);
      if (modified !== undefined && modified >= r.modified) {
        report.unchanged++;
        return false;
      }
      if (modified === undefined) report.added++;
      else report.updated++;
      if (r.withdrawn) report.withdrawn++;
      return true;
    });
    await replaceAdvisories(trx, changed.map(toStoredAdvisory), nowIso());
  });
}

function toStoredAdvisory(record: OsvRecord): StoredAdvisory {
  const cwe = record.database_specific?.cwe_ids;
  const severity = record.database_specific?.severity;
  return {
    id: record.id,
    modified: record.modified,
    published: record.published ?? null,
    withdrawn: record.withdrawn ?? null,
    summary: record.summary?.slice(0, 1000) ?? null,
    aliases: stringList(record.aliases),
    severity: Array.isArray(record.severity) ? record.severity.filter((s) => s && typeof s.score === 'string') : [],
    databaseSeverity: typeof severity === 'string' ? severity : null,
    cweIds: stringList(cwe),
    references: Array.isArray(record.references) ? record.references.filter((r) => r && webUrl(r.url)).map((r) => ({ type: r.type, url: r.url })) : [],
    affected: (record.affected ?? []).flatMap((affected) => {
      const pkg = affected?.package;
      if (!pkg || !SUPPORTED.has(pkg.ecosystem) || typeof pkg.name !== 'string') return [];
      return [
        {
          ecosystem: pkg.ecosystem,
          packageKey: packageKey(pkg.ecosystem as Ecosystem, pkg.name),
          packageName: pkg.name,
          ranges: Array.isArray(affected.ranges) ? affected.ranges : [],
          versions: stringList(affected.versions),
        },
      ];
    }),
  };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
