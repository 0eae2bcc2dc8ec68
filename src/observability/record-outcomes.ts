import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { countFixesByStatus } from '../store/fixes.ts';
import { countBatchesByOutcome } from '../store/scan-batches.ts';

/** Scan batches by scan type and status, and fixes by status, as the records gauge reports them. */
export async function recordOutcomes(db: Kysely<Database>) {
  const [batches, fixes] = await Promise.all([countBatchesByOutcome(db), countFixesByStatus(db)]);
  return [
    ...batches.map((b) => ({ record: 'scan_batch' as const, type: b.scanType, status: b.status, count: b.count })),
    ...fixes.map((f) => ({ record: 'fix' as const, type: 'fix', status: f.status, count: f.count })),
  ];
}
