import { createApiKey, listApiKeys, revokeApiKey } from '../../core/api-keys.ts';
import { createOrganization, listOrganizations } from '../../core/organizations.ts';
import { applyQuotaSettings, readBalance, type QuotaSettings } from '../../core/quotas.ts';
import { isQuotaPeriodKind, QUOTA_PERIODS } from '../../core/quota-periods.ts';
import { parseScopes, SCOPES } from '../../core/scopes.ts';
import type { CliContext } from '../context.ts';
import { requireOrg } from '../context.ts';
import { optionalInt, report, required, UsageError } from '../output.ts';

type Values = Record<string, string | boolean | string[] | undefined>;

/** Opening the context already brought the schema up to date; this reports what that applied. */
export async function migrateCommand(ctx: CliContext, json: boolean) {
  const applied = ctx.migrated;
  report(json, { applied, database: ctx.store.location }, `database ${ctx.store.location} is up to date (${applied.length} migration(s) applied now)`);
}

export async function orgCreate(ctx: CliContext, values: Values, json: boolean) {
  const org = await createOrganization(ctx.store.db, { name: required(values, 'name'), slug: values.slug as string | undefined });
  report(json, { id: org.id, name: org.name, slug: org.slug }, `created organization ${org.slug} (${org.id})`);
}

export async function orgList(ctx: CliContext, json: boolean) {
  const orgs = (await listOrganizations(ctx.store.db)).map(({ id, name, slug, quota_period }) => ({ id, name, slug, quota_period }));
  report(json, { organizations: orgs }, orgs.map((o) => `${o.id}  ${o.slug}  ${o.name}`).join('\n') || '(no organizations)');
}

export async function keyCreate(ctx: CliContext, values: Values, json: boolean) {
  const org = await requireOrg(ctx, required(values, 'org'));
  let scopes;
  try {
    scopes = parseScopes((values.scopes as string | undefined) ?? SCOPES.join(','));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { key, summary } = await createApiKey(ctx.store.db, { orgId: org.id, name: required(values, 'name'), scopes });
  report(
    json,
    { ...summary, key },
    `created key ${summary.key_prefix}… (${summary.id}) with scopes ${scopes.join(', ')}\n` +
      `key (shown once, store it now): ${key}`,
  );
}

export async function keyList(ctx: CliContext, values: Values, json: boolean) {
  const org = await requireOrg(ctx, required(values, 'org'));
  const keys = await listApiKeys(ctx.store.db, org.id);
  report(
    json,
    { keys },
    keys
      .map((k) => `${k.id}  ${k.key_prefix}…  ${k.name}  [${k.scopes.join(',')}]${k.revoked_at ? '  REVOKED ' + k.revoked_at : ''}`)
      .join('\n') || '(no keys)',
  );
}

export async function keyRevoke(ctx: CliContext, positionals: string[], json: boolean) {
  const target = positionals[0];
  if (!target) throw new UsageError('usage: bulwark key revoke <key id or prefix>');
  const revoked = await revokeApiKey(ctx.store.db, target);
  if (!revoked) throw new UsageError(`no key with id or prefix "${target}"`);
  report(json, { ...revoked }, `revoked key ${revoked.key_prefix}… (${revoked.id})`);
}

const QUOTA_FLAGS = { prs: 'prs', 'sast-scans': 'sast_scans', 'deep-ai-scans': 'deep_ai_scans' } as const;

export async function quotaSet(ctx: CliContext, values: Values, json: boolean) {
  const org = await requireOrg(ctx, required(values, 'org'));
  const settings: QuotaSettings = { plans: {}, topups: {} };
  for (const [flag, type] of Object.entries(QUOTA_FLAGS)) {
    const plan = optionalInt(values, flag);
    if (plan !== undefined) settings.plans![type] = plan;
    const topup = optionalInt(values, `topup-${flag}`);
    if (topup !== undefined) settings.topups![type] = topup;
  }
  if (values.period !== undefined) {
    if (!isQuotaPeriodKind(String(values.period))) throw new UsageError(`--period must be one of ${QUOTA_PERIODS.join(', ')}`);
    settings.period = String(values.period);
  }
  if (values['max-repositories'] !== undefined) {
    settings.maxRepositories = values['max-repositories'] === 'unlimited' ? null : optionalInt(values, 'max-repositories');
  }
  await applyQuotaSettings(ctx.store.db, org.id, settings);
  await quotaShow(ctx, values, json);
}

export async function quotaShow(ctx: CliContext, values: Values, json: boolean) {
  const org = await requireOrg(ctx, required(values, 'org'));
  const balance = await readBalance(ctx.store.db, org.id);
  const lines = Object.entries(balance.counters).map(
    ([type, c]) => `${type.padEnd(14)} plan ${c.plan}  topup ${c.topup}  used ${c.used}  remaining ${c.remaining}`,
  );
  report(
    json,
    { organization: org.slug, period: balance.period, counters: balance.counters, repositories: balance.units },
    `${org.slug}: period ${balance.period.start} → ${balance.period.end}\n${lines.join('\n')}\n` +
      `repositories   ${balance.units.current} of ${balance.units.max ?? 'unlimited'}`,
  );
}
