import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { errors } from './errors.ts';
import { periodContaining, type Period } from './quota-periods.ts';

export const QUOTA_TYPES = ['prs', 'sast_scans', 'deep_ai_scans'] as const;
export type QuotaType = (typeof QUOTA_TYPES)[number];

/** Per-period allowance of a new organization until an operator sets its plan. */
export const DEFAULT_PLAN: Record<QuotaType, number> = { prs: 100, sast_scans: 1000, deep_ai_scans: 50 };

export interface QuotaCounter {
  plan: number;
  topup: number;
  used: number;
  remaining: number;
}

export interface QuotaBalance {
  period: Period;
  counters: Record<QuotaType, QuotaCounter>;
  units: { max: number | null; current: number };
}

export function quotaTypeForScan(scanType: string): QuotaType {
  return scanType === 'deep_ai_scan' ? 'deep_ai_scans' : 'sast_scans';
}

async function orgPeriod(db: Kysely<Database>, orgId: string, now: Date): Promise<Period> {
  const org = await db.selectFrom('organizations').select('quota_period').where('id', '=', orgId).executeTakeFirstOrThrow();
  return periodContaining(org.quota_period, now);
}

async function planLimit(db: Kysely<Database>, orgId: string, quotaType: QuotaType): Promise<number> {
  const row = await db
    .selectFrom('quota_plans')
    .select('plan_limit')
    .where('org_id', '=', orgId)
    .where('quota_type', '=', quotaType)
    .executeTakeFirst();
  return row?.plan_limit ?? DEFAULT_PLAN[quotaType];
}

async function ensureUsageRow(db: Kysely<Database>, orgId: string, quotaType: QuotaType, periodStart: string) {
  await db
    .insertInto('quota_usage')
    .values({ org_id: orgId, quota_type: quotaType, period_start: periodStart, used: 0, topup: 0 })
    .onConflict((oc) => oc.columns(['org_id', 'quota_type', 'period_start']).doNothing())
    .execute();
}

/**
 * Takes one credit inside the caller's transaction, or refuses with 403 OPERATION_FAILED.
 * The conditional UPDATE is the atomic step: concurrent callers can never push `used` past the limit.
 */
export async function consumeCredit(
  trx: Kysely<Database>,
  orgId: string,
  quotaType: QuotaType,
  now: Date = new Date(),
): Promise<Period> {
  const period = await orgPeriod(trx, orgId, now);
  await ensureUsageRow(trx, orgId, quotaType, period.start);
  const limit = await planLimit(trx, orgId, quotaType);
  const result = await trx
    .updateTable('quota_usage')
    .set({ used: sql`used + 1` })
    .where('org_id', '=', orgId)
    .where('quota_type', '=', quotaType)
    .where('period_start', '=', period.start)
    .where(sql<boolean>`used < ${limit} + topup`)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) {
    throw errors.quotaExhausted(quotaType, period.end);
  }
  return period;
}

/** Gives back a credit taken for work that never ran (for example a scan type with no engine). */
export async function refundCredit(db: Kysely<Database>, orgId: string, quotaType: QuotaType, periodStart: string) {
  await db
    .updateTable('quota_usage')
    .set({ used: sql`used - 1` })
    .where('org_id', '=', orgId)
    .where('quota_type', '=', quotaType)
    .where('period_start', '=', periodStart)
    .where('used', '>', 0)
    .execute();
}

export async function readBalance(db: Kysely<Database>, orgId: string, now: Date = new Date()): Promise<QuotaBalance> {
  const period = await orgPeriod(db, orgId, now);
  const [plans, usage, org, current] = await Promise.all([
    db.selectFrom('quota_plans').selectAll().where('org_id', '=', orgId).execute(),
    db.selectFrom('quota_usage').selectAll().where('org_id', '=', orgId).where('period_start', '=', period.start).execute(),
    db.selectFrom('organizations').select('max_repositories').where('id', '=', orgId).executeTakeFirstOrThrow(),
    db
      .selectFrom('units')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('org_id', '=', orgId)
      .where('archived', '=', 0)
      .executeTakeFirstOrThrow(),
  ]);
  const counters = {} as Record<QuotaType, QuotaCounter>;
  for (const type of QUOTA_TYPES) {
    const plan = plans.find((p) => p.quota_type === type)?.plan_limit ?? DEFAULT_PLAN[type];
    const row = usage.find((u) => u.quota_type === type);
    const used = row?.used ?? 0;
    const topup = row?.topup ?? 0;
    counters[type] = { plan, topup, used, remaining: Math.max(0, plan + topup - used) };
  }
  return { period, counters, units: { max: org.max_repositories, current: Number(current.n) } };
}

export interface QuotaSettings {
  plans?: Partial<Record<QuotaType, number>>;
  topups?: Partial<Record<QuotaType, number>>;
  period?: string;
  maxRepositories?: number | null;
}

/** Operator changes to an organization's plan; top-ups add to the current period only. */
export async function applyQuotaSettings(db: Kysely<Database>, orgId: string, settings: QuotaSettings, now = new Date()) {
  await db.transaction().execute(async (trx) => {
    if (settings.period !== undefined || settings.maxRepositories !== undefined) {
      await trx
        .updateTable('organizations')
        .set({
          ...(settings.period !== undefined ? { quota_period: settings.period } : {}),
          ...(settings.maxRepositories !== undefined ? { max_repositories: settings.maxRepositories } : {}),
          updated_at: now.toISOString(),
        })
        .where('id', '=', orgId)
        .execute();
    }
    for (const [type, limit] of Object.entries(settings.plans ?? {}) as [QuotaType, number][]) {
      await trx
        .insertInto('quota_plans')
        .values({ org_id: orgId, quota_type: type, plan_limit: limit })
        .onConflict((oc) => oc.columns(['org_id', 'quota_type']).doUpdateSet({ plan_limit: limit }))
        .execute();
    }
    const topups = Object.entries(settings.topups ?? {}) as [QuotaType, number][];
    if (topups.length) {
      const period = await orgPeriod(trx, orgId, now);
      for (const [type, amount] of topups) {
        await ensureUsageRow(trx, orgId, type, period.start);
        await trx
          .updateTable('quota_usage')
          .set({ topup: sql`topup + ${amount}` })
          .where('org_id', '=', orgId)
          .where('quota_type', '=', type)
          .where('period_start', '=', period.start)
          .execute();
      }
    }
  });
}
