import { parseSourceSpec, type SourceSpec } from '../../core/source-repos.ts';
import { cloneUrlPolicyOf } from '../../config.ts';
import { addUnit, listOrganizationUnits, setUnitArchived, SourceUrlRefused } from '../../core/units.ts';
import type { CliContext } from '../context.ts';
import { requireOrg } from '../context.ts';
import { report, required, UsageError } from '../output.ts';

type Values = Record<string, string | boolean | string[] | undefined>;

function asList(value: string | boolean | string[] | undefined): string[] {
  if (value === undefined || typeof value === 'boolean') return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * Tokens come from an environment variable named on the command line, never from an argument,
 * so they stay out of shell history and `ps` output.
 */
function tokenFrom(envName: string | undefined): string | undefined {
  if (!envName) return undefined;
  const token = process.env[envName];
  if (!token) throw new UsageError(`--token-env ${envName}: that environment variable is empty or unset`);
  return token;
}

function sourcesFrom(values: Values): SourceSpec[] {
  const specs = asList(values.source);
  if (!specs.length) throw new UsageError('at least one --source provider:owner/name[@branch] is required');
  const cloneUrls = asList(values['clone-url']);
  const tokenEnvs = asList(values['token-env']);
  if (cloneUrls.length > specs.length || tokenEnvs.length > specs.length) {
    throw new UsageError('--clone-url and --token-env pair with --source by position: give at most one of each per source');
  }
  return specs.map((text, i) => {
    let spec: SourceSpec;
    try {
      spec = parseSourceSpec(text);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    return { ...spec, cloneUrl: cloneUrls[i] || undefined, token: tokenFrom(tokenEnvs[i] || undefined) };
  });
}

export async function unitAdd(ctx: CliContext, values: Values, json: boolean, kind: 'repository' | 'application') {
  const org = await requireOrg(ctx, required(values, 'org'));
  const sources = sourcesFrom(values);
  if (kind === 'repository' && sources.length > 1) {
    throw new UsageError('a repository has one source; use `bulwark app add` to group several');
  }
  const name = (values.name as string | undefined) ?? sources[0].fullName;
  let unit;
  try {
    unit = await addUnit(ctx.store.db, ctx.tokenBox(), {
      orgId: org.id,
      name,
      description: (values.description as string | undefined) ?? null,
      sources,
    }, cloneUrlPolicyOf(ctx.settings));
  } catch (error) {
    if (error instanceof SourceUrlRefused) throw new UsageError(error.message);
    if (/UNIQUE|duplicate key/i.test((error as Error).message)) throw new UsageError('the same source repository is listed twice');
    throw error;
  }
  report(
    json,
    {
      id: unit.id,
      name: unit.name,
      organization: org.slug,
      repositories: unit.sources.map((s) => ({
        provider: s.provider,
        full_name: s.full_name,
        default_branch: s.default_branch,
        clone_url: s.clone_url,
        has_token: s.token_ciphertext !== null,
      })),
    },
    `added ${kind} ${unit.name} (${unit.id}) with ${unit.sources.map((s) => `${s.provider}:${s.full_name}@${s.default_branch}`).join(', ')}`,
  );
}

export async function unitArchive(ctx: CliContext, positionals: string[], values: Values, json: boolean) {
  const id = positionals[0];
  if (!id) throw new UsageError('usage: bulwark repo archive <id> [--unarchive]');
  const archived = !values.unarchive;
  const unit = await setUnitArchived(ctx.store.db, id, archived);
  if (!unit) throw new UsageError(`no repository or application with id "${id}"`);
  report(json, { id: unit.id, name: unit.name, archived }, `${archived ? 'archived' : 'unarchived'} ${unit.name} (${unit.id})`);
}

export async function unitList(ctx: CliContext, values: Values, json: boolean) {
  const org = await requireOrg(ctx, required(values, 'org'));
  const units = await listOrganizationUnits(ctx.store.db, org.id);
  report(
    json,
    { repositories: units.map(({ id, name, archived, created_at }) => ({ id, name, archived: archived === 1, created_at })) },
    units.map((u) => `${u.id}  ${u.name}${u.archived ? '  (archived)' : ''}`).join('\n') || '(none)',
  );
}
