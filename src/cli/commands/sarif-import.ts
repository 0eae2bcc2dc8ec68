import fs from 'node:fs';
import path from 'node:path';
import { BodyValueError } from '../../core/errors.ts';
import { importSarif } from '../../core/sarif-imports.ts';
import { scanTypesOf } from '../../scanning/scan-types/index.ts';
import { unitById } from '../../store/units.ts';
import type { CliContext } from '../context.ts';
import { report, required, UsageError } from '../output.ts';

type Values = Record<string, string | boolean | string[] | undefined>;

const USAGE =
  'usage: bulwark sarif-import FILE (--repository ID | --application ID) --commit SHA [--source-repository NAME] [--branch NAME] [--category NAME] [--root DIR]';

/** The largest log read: far beyond what one import stores (core/sarif-imports.ts bounds the results). */
const MAX_LOG_BYTES = 256 * 1024 * 1024;

const text = (values: Values, name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);

/**
 * `sarif-import FILE`: imports another tool's SARIF 2.1.0 log into a repository or application, as
 * `POST …/sarif-imports` does. Absolute file locations are read relative to --root (default: the current
 * folder, where the tool usually ran).
 */
export async function sarifImport(ctx: CliContext, positionals: string[], values: Values, json: boolean) {
  const [file, ...extra] = positionals;
  if (!file || extra.length) throw new UsageError(USAGE);
  const unitId = text(values, 'repository') ?? text(values, 'application');
  if (!unitId || (values.repository && values.application)) throw new UsageError(`name the unit with one of --repository or --application. ${USAGE}`);
  const commit = required(values, 'commit');
  if (!/^[0-9a-f]{40}$/i.test(commit)) throw new UsageError('--commit must be a full commit id (40 hexadecimal digits)');
  const unit = await unitById(ctx.store.db, unitId);
  if (!unit) throw new UsageError(`no repository or application with id "${unitId}"`);

  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    throw new UsageError(`${file}: no such file`);
  }
  if (size > MAX_LOG_BYTES) throw new UsageError(`${file} is larger than ${MAX_LOG_BYTES / 1024 / 1024} MiB`);
  let sarif: unknown;
  try {
    sarif = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`${file} is not JSON: ${(error as Error).message}`);
  }

  let view;
  try {
    view = await importSarif(
      ctx.store.db,
      unit,
      {
        sarif,
        commit_sha: commit,
        source_repository: text(values, 'source-repository') ?? null,
        branch: text(values, 'branch') ?? null,
        category: text(values, 'category') ?? null,
        source_root: path.resolve(text(values, 'root') ?? '.'),
      },
      { actor: null, scanTypes: scanTypesOf(values.application ? 'application' : 'repository') },
    );
  } catch (error) {
    if (!(error instanceof BodyValueError)) throw error;
    const where = error.loc.slice(1).join('.').replace(/^sarif\.?/, '');
    throw new UsageError(`${where ? `${where}: ` : ''}${error.message.replace(/^Value error, /, '')}`);
  }
  const { row, warnings } = view;
  report(
    json,
    {
      import_id: row.id,
      unit_id: row.unit_id,
      source_repository: view.sourceRepository,
      tool: row.tool,
      category: row.category,
      commit_sha: row.commit_sha,
      results: row.results,
      created: row.created,
      updated: row.updated,
      resolved: row.resolved,
      skipped: row.skipped,
      warnings,
    },
    [
      `imported ${row.tool}'s ${row.results} result${row.results === 1 ? '' : 's'} into ${unit.name} (${view.sourceRepository}@${row.commit_sha.slice(0, 12)}): ` +
        `${row.created} new, ${row.updated} seen again, ${row.resolved} resolved, ${row.skipped} skipped`,
      ...warnings.map((w) => `warning: ${w}`),
    ].join('\n'),
  );
}
