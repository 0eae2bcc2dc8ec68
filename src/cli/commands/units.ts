import { InvalidTokenError, parseSourceSpec, setSourceToken, sourceTokenState, type SourceSpec } from '../../core/source-repos.ts';
import { cloneUrlPolicyOf } from '../../config.ts';
import { addUnit, listOrganizationUnits, setUnitArchived, SourceUrlRefused } from '../../core/units.ts';
import { unitById } from '../../store/units.ts';
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
  return specs.map((text, i) => ({ ...specFrom(text), cloneUrl: cloneUrls[i] || undefined, token: tokenFrom(tokenEnvs[i] || undefined) }));
}

/** A `--source provider:owner/name[@branch]`, or a usage error saying what is wrong with it. */
function specFrom(text: string): SourceSpec {
  try {
    return parseSourceSpec(text);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
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

/** The longest input `repo token set` reads from stdin; tokens are far shorter. */
const MAX_STDIN_BYTES = 64 * 1024;

/** The token for `repo token set`: from the variable --token-env names, else piped on stdin; never an argument. */
async function tokenInput(values: Values): Promise<string> {
  const envName = asList(values['token-env'])[0];
  if (envName) return tokenFrom(envName)!;
  if (process.stdin.isTTY) throw new UsageError('give the token in an environment variable named by --token-env VAR, or pipe it on stdin');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_STDIN_BYTES) throw new UsageError('the token on stdin is too long');
    chunks.push(chunk as Buffer);
  }
  const token = Buffer.concat(chunks).toString('utf8').trim();
  if (!token) throw new UsageError('no token on stdin');
  return token;
}

/**
 * `repo token set|remove ID [--source provider:owner/name]`: stores, replaces or removes the access token
 * of one source repository (the only one of a repository; named with --source in an application).
 */
export async function unitToken(ctx: CliContext, positionals: string[], values: Values, json: boolean) {
  const [action, id] = positionals;
  const usage = 'usage: bulwark repo token set|remove ID [--source provider:owner/name] [--token-env VAR]  (set reads the token from VAR or stdin)';
  if ((action !== 'set' && action !== 'remove') || !id) throw new UsageError(usage);
  // A token typed as an argument would stay in shell history and show in `ps`.
  if (positionals.length > 2) throw new UsageError(`unexpected argument after ${id}; the token is never given as an argument. ${usage}`);
  const unit = await unitById(ctx.store.db, id);
  if (!unit) throw new UsageError(`no repository or application with id "${id}"`);
  const named = asList(values.source)[0];
  let source = unit.sources.length === 1 && !named ? unit.sources[0] : undefined;
  if (named) {
    const spec = specFrom(named);
    source = unit.sources.find((s) => s.provider === spec.provider && s.full_name === spec.fullName);
  }
  const listed = unit.sources.map((s) => `${s.provider}:${s.full_name}`).join(', ');
  if (!source) throw new UsageError(`${named ? `${named} is not` : 'name with --source one of'} the source repositories of ${unit.name}: ${listed}`);
  const token = action === 'set' ? await tokenInput(values) : null;
  let updated;
  try {
    updated = await setSourceToken(ctx.store.db, ctx.tokenBox(), unit, source.id, token);
  } catch (error) {
    if (error instanceof InvalidTokenError) throw new UsageError(error.message);
    throw error;
  }
  const state = sourceTokenState(updated);
  report(
    json,
    { id: unit.id, name: unit.name, source: { id: updated.id, provider: updated.provider, full_name: updated.full_name, ...state } },
    `${token === null ? 'removed the access token of' : 'stored the access token of'} ${updated.provider}:${updated.full_name} in ${unit.name} (${unit.id}) at ${state.token_changed_at}`,
  );
}
