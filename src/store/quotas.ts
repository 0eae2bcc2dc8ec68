import { sql, type Kysely } from 'kysely';
import type { Database, QuotaPlanRow, QuotaUsageRow } from './schema.ts';

// The quota tables (quota_plans, quota_usage) and the organization's quota settings. The rules (what a
// credit costs, when it is given back) live in core/quotas.ts.

export async function orgQuotaSettings(db: Kysely<Database>, orgId: string): Promise<{ quota_period: string; max_repositories: number | null }> {
  return db.selectFrom('organizations').select(['quota_period', 'max_repositories']).where('id', '=', orgId).executeTakeFirstOrThrow();
}

export async function planLimitOf(db: Kysely<Database>, orgId: string, quotaType: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('quota_plans')
    .select('plan_limit')
    .where('org_id', '=', orgId)
    .where('quota_type', '=', quotaType)
    .executeTakeFirst();
  return row?.plan_limit;
}

async function ensureUsageRow(db: Kysely<Database>, orgId: string, quotaType: string, periodStart: string) {
  await db
    .insertInto('quota_usage')
    .values({ org_id: orgId, quota_type: quotaType, period_start: periodStart, used: 0, topup: 0 })
    .onConflict((oc) => oc.columns(['org_id', 'quota_type', 'period_start']).doNothing())
    .execute();
}

/**
 * Uses one credit of the period if `used` stays within `limit` plus the top-ups; false when none remain.
 * The conditional UPDATE is the atomic step: concurrent callers can never push `used` past the limit.
 */
export async function useCredit(db: Kysely<Database>, orgId: string, quotaType: string, periodStart: string, limit: number): Promise<boolean> {
  await ensureUsageRow(db, orgId, quotaType, periodStart);
  const result = await db
    .updateTable('quota_usage')
    .set({ used: sql`used + 1` })
    .where('org_id', '=', orgId)
    .where('quota_type', '=', quotaType)
    .where('period_start', '=', periodStart)
    .where(sql<boolean>`used < ${limit} + topup`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function returnCredit(db: Kysely<Database>, orgId: string, quotaType: string, periodStart: string): Promise<void> {
  await db
    .updateTable('quota_usage')
    .set({ used: sql`used - 1` })
    .where('org_id', '=', orgId)
    .where('quota_type', '=', quotaType)
    .where('period_start', '=', periodStart)
    .where('used', '>', 0)
    .execute();
}

export async function quotaRows(db: Kysely<Database>, orgId: string, periodStart: string): Promise<{ plans: QuotaPlanRow[]; usage: QuotaUsageRow[] }> {
  const [plans, usage] = await Promise.all([
    db.selectFrom('quota_plans').selectAll().where('org_id', '=', orgId).execute(),
    db.selectFrom('quota_usage').selectAll().where('org_id', '=', orgId).where('period_start', '=', periodStart).execute(),
  ]);
  return { plans, usage };
}

export async function updateOrgQuotaSettings(
  db: Kysely<Database>,
  orgId: string,
  changes: { quota_period?: string; max_repositories?: number | null },
  at: string,
): Promise<void> {
  await db.updateTable('organizations').set({ ...changes, updated_at: at }).where('id', '=', orgId).execute();
}

export async function setPlanLimit(db: Kysely<Database>, orgId: string, quotaType: string, limit: number): Promise<void> {
  await db
    .insertInto('quota_plans')
    .values({ org_id: orgId, quota_type: quotaType, plan_limit: limit })
    .onConflict((oc) => oc.columns(['org_id', 'quota_type']).doUpdateSet({ plan_limit: limit }))
    .execute();
}

export async function addTopup(db: Kysely<Database>, orgId: string, quotaType: string, periodStart: string, amount: number): Promise<void> {
  await ensureUsageRow(db, orgId, quotaType, periodStart);
  await db
    .updateTable('quota_usage')
    .set({ topup: sql`topup + ${amount}` })
    .where('org_id', '=', orgId)
    .where('quota_type', '=', quotaType)
    .where('period_start', '=', periodStart)
    .execute();
}
