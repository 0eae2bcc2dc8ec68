import path from 'node:path';
import { ExportReadError } from '../../osv/export-files.ts';
import { importOsv, type ImportReport } from '../../osv/import.ts';
import { osvBaseUrl, syncOsv, type SyncProgress, type SyncReport } from '../../osv/sync.ts';
import type { CliContext } from '../context.ts';
import { report, UsageError } from '../output.ts';
import { progressDisplay } from '../progress.ts';

/** `bulwark osv import PATH`: loads an OSV export (directory of JSON records or all.zip) into the database. */
export async function osvImport(ctx: CliContext, positionals: string[], json: boolean) {
  const [source, ...extra] = positionals;
  if (!source || extra.length) throw new UsageError('usage: bulwark osv import <directory of OSV JSON | all.zip>');
  const started = Date.now();
  let result: ImportReport;
  try {
    result = await importOsv(ctx.store.db, path.resolve(source), (progress) => {
      if (!json) process.stderr.write(`\rbulwark: ${progress.read} records read…`);
    });
  } catch (error) {
    if (error instanceof ExportReadError) throw new UsageError(error.message);
    throw error;
  }
  if (!json && result.read >= 500) process.stderr.write('\n');
  const seconds = (Date.now() - started) / 1000;
  for (const problem of result.errors) process.stderr.write(`bulwark: invalid record ${problem}\n`);
  report(
    json,
    { ...result, seconds },
    `imported ${source} in ${seconds.toFixed(1)}s: ${result.read} read, ${result.added} added, ${result.updated} updated, ` +
      `${result.unchanged} unchanged, ${result.withdrawn} withdrawn, ${result.skipped} for other ecosystems, ${result.invalid} invalid`,
  );
}

const BAR_WIDTH = 20;

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** `[#####---------------] 25% 1.2 MB of 4.8 MB`, or the bytes alone when the size is unknown. */
export function byteBar(bytes: number, total: number | undefined): string {
  if (!total) return megabytes(bytes);
  const fraction = Math.min(1, bytes / total);
  const filled = Math.round(fraction * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${Math.floor(fraction * 100)}% ${megabytes(bytes)} of ${megabytes(total)}`;
}

function syncProgressText(progress: SyncProgress): string | null {
  switch (progress.phase) {
    case 'checking':
      return `${progress.ecosystem}: checking for changes`;
    case 'downloading':
      // Redrawn per tenth of a megabyte at most, not per chunk.
      return `${progress.ecosystem}: downloading ${byteBar(Math.floor((progress.bytes ?? 0) / 102_400) * 102_400, progress.totalBytes)}`;
    case 'fetching changes':
      return `${progress.ecosystem}: fetching changed records ${progress.done ?? 0}/${progress.total ?? 0}`;
    case 'importing':
      return `${progress.ecosystem}: importing, ${progress.done ?? 0} records read`;
  }
}

/**
 * `bulwark osv sync [--ecosystems npm,PyPI]`: brings the stored OSV records up to date from the OSV
 * bucket (BULWARK_OSV_URL), downloading only what changed. Fails (exit 3) when any ecosystem failed;
 * the others are synced and reported, and the failed ones keep their records.
 */
export async function osvSync(ctx: CliContext, values: Record<string, unknown>, positionals: string[], json: boolean) {
  if (positionals.length) throw new UsageError('usage: bulwark osv sync [--ecosystems npm,PyPI,…] [--json]');
  const ecosystems = typeof values.ecosystems === 'string' ? values.ecosystems.split(',').map((e) => e.trim()).filter(Boolean) : undefined;
  if (values.ecosystems !== undefined && !ecosystems?.length) throw new UsageError('--ecosystems needs a comma-separated list, e.g. npm,PyPI');
  let baseUrl: string;
  try {
    baseUrl = osvBaseUrl(ctx.settings.osv.url);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const started = Date.now();
  const display = progressDisplay(json ? { isTTY: false, write: () => {} } : process.stderr);
  let result: SyncReport;
  try {
    result = await syncOsv(ctx.store.db, {
      baseUrl,
      ecosystems,
      onProgress: (progress) => {
        const text = syncProgressText(progress);
        if (text) display.update({ phase: text });
      },
    });
  } finally {
    display.finish();
  }
  const seconds = (Date.now() - started) / 1000;
  for (const e of result.unpublished) process.stderr.write(`bulwark: ${baseUrl} publishes no records for ${e}\n`);
  const lines = result.ecosystems.map((e) => {
    if (e.mode === 'unchanged') return `${e.ecosystem}: unchanged`;
    const i = e.import!;
    return `${e.ecosystem}: ${e.mode === 'full' ? 'whole export' : 'changed records'}, ${megabytes(e.bytes)}: ${i.read} read, ${i.added} added, ${i.updated} updated, ${i.unchanged} unchanged, ${i.invalid} invalid`;
  });
  for (const f of result.failed) lines.push(`${f.ecosystem}: FAILED, records left as they were: ${f.error}`);
  report(json, { ...result, seconds }, `synced from ${baseUrl} in ${seconds.toFixed(1)}s\n${lines.map((l) => `  ${l}`).join('\n')}`);
  if (result.failed.length) {
    throw new Error(`the OSV sync failed for ${result.failed.map((f) => f.ecosystem).join(', ')}: ${result.failed[0]!.error}`);
  }
}
