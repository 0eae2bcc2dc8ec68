import type { Kysely } from 'kysely';
import {
  addTopup,
  orgQuotaSettings,
  planLimitOf,
  quotaRows,
  setPlanLimit,
  updateOrgQuotaSettings,
  useCredit,
} from '../store/quotas.ts';
import type { Database } from '../store/schema.ts';
import { countActiveUnits } from '../store/units.ts';
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

async function orgPeriod(db: Kysely<Database>, orgId: string, now: Date): Promise<Period> {
  return periodContaining((await orgQuotaSettings(db, orgId)).quota_period, now);
}

/**
 * Takes one credit inside the caller's transaction, or refuses with 403 OPERATION_FAILED.
 */
export async function consumeCredit(
  trx: Kysely<Database>,
  orgId: string,
  quotaType: QuotaType,
  now: Date = new Date(),
): Promise<Period> {
  const period = await orgPeriod(trx, orgId, now);
  const limit = (await planLimitOf(trx, orgId, quotaType)) ?? DEFAULT_PLAN[quotaType];
  if (!(await useCredit(trx, orgId, quotaType, period.start, limit))) {
    throw errors.quotaExhausted(quotaType, period.end);
  }
  return period;
}

export async function readBalance(db: Kysely<Database>, orgId: string, now: Date = new Date()): Promise<QuotaBalance> {
  const period = await orgPeriod(db, orgId, now);
  const [{ plans, usage }, org, current] = await Promise.all([
    quotaRows(db, orgId, period.start),
    orgQuotaSettings(db, orgId),
    countActiveUnits(db, orgId),
  ]);
  const counters = {} as Record<QuotaType, QuotaCounter>;
  for (const type of QUOTA_TYPES) {
    const plan = plans.find((p) => p.quota_type === type)?.plan_limit ?? DEFAULT_PLAN[type];
    const row = usage.find((u) => u.quota_type === type);
    const used = row?.used ?? 0;
    const topup = row?.topup ?? 0;
    counters[type] = { plan, topup, used, remaining: Math.max(0, plan + topup - used) };
  }
  return { period, counters, units: { max: org.max_repositories, current } };
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
      await updateOrgQuotaSettings(
        trx,
        orgId,
        {
          ...(settings.period !== undefined ? { quota_period: settings.period } : {}),
          ...(settings.maxRepositories !== undefined ? { max_repositories: settings.maxRepositories } : {}),
        },
        now.toISOString(),
      );
    }
    for (const [type, limit] of Object.entries(settings.plans ?? {}) as [QuotaType, number][]) await setPlanLimit(trx, orgId, type, limit);
    const topups = Object.entries(settings.topups ?? {}) as [QuotaType, number][];
    if (topups.length) {
      const period = await orgPeriod(trx, orgId, now);
      for (const [type, amount] of topups) await addTopup(trx, orgId, type, period.start, amount);
    }
  });
}
