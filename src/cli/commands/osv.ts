import path from 'node:path';
import { ExportReadError } from '../../osv/export-files.ts';
import { importOsv, type ImportReport } from '../../osv/import.ts';
import type { CliContext } from '../context.ts';
import { report, UsageError } from '../output.ts';

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
