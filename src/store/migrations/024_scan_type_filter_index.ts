import type { Kysely } from 'kysely';

/**
 * The scan-type filter of the finding list matches `detected_by` (migration 023), which
 * `findings_unit_type_order` (unit_id, scan_type, …) cannot serve: a filtered page walked the unit's
 * whole newest-first index. The store now reads each list of scan types that names the filter's type
 * (the lists a unit holds are the findings counters' keys) as one range of this index, newest first,
 * and merges the ranges.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('findings_unit_detection_order').on('findings').columns(['unit_id', 'detected_by', 'created_at', 'id']).execute();
  await db.schema.dropIndex('findings_unit_type_order').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('findings_unit_type_order').on('findings').columns(['unit_id', 'scan_type', 'created_at', 'id']).execute();
  await db.schema.dropIndex('findings_unit_detection_order').execute();
}
