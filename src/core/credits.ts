import type { Kysely } from 'kysely';
import { markBatchCreditRefunded } from '../store/scan-batches.ts';
import { markFixCreditRefunded } from '../store/fixes.ts';
import { returnCredit } from '../store/quotas.ts';
import type { Database, FixRow, ScanBatchRow } from '../store/schema.ts';

// When work a credit paid for never happened through no fault of the caller, the credit goes back:
// - a scan batch that ends `failed` (no scan could run: checkout failed everywhere, no engine, the
//   worker gave up) returns its scan credit;
// - a fix cancelled before it started, or failed for a reason the service owns (checkout, the agent or
//   its provider, a fixer that could not fix, verification that did not pass, the worker giving up)
//   returns its `prs` credit. Verification failing counts as the service's: the caller asked for a fix
//   and the service could not produce one that holds. A failure the caller caused (the source
//   repository was removed from the unit) keeps it, as does a fix cancelled while it ran.
// Each refund is recorded on its batch or fix by a guarded update in the same transaction as the
// quota change, so retries and restarts give a credit back at most once.

/** Returns a batch's credit unless it already was; call inside a transaction. True when this call returned it. */
export async function refundBatchCredit(trx: Kysely<Database>, batch: ScanBatchRow): Promise<boolean> {
  if (!(await markBatchCreditRefunded(trx, batch.id))) return false;
  await returnCredit(trx, batch.org_id, batch.quota_type, batch.quota_period_start);
  return true;
}

/** Returns a fix's `prs` credit unless it already was; call inside a transaction. True when this call returned it. */
export async function refundFixCredit(trx: Kysely<Database>, fix: FixRow): Promise<boolean> {
  // Fixes stored before the period was kept cannot say which period to credit.
  if (!fix.quota_period_start) return false;
  if (!(await markFixCreditRefunded(trx, fix.id))) return false;
  await returnCredit(trx, fix.org_id, 'prs', fix.quota_period_start);
  return true;
}
