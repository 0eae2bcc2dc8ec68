import type { Kysely } from 'kysely';

/**
 * What a finding's identity is matched on across scans, a short excerpt of its code, and the reason a
 * person gave for a triage decision.
 *
 * The table-level UNIQUE (unit_id, scan_type, fingerprint) of 001 stays. Dropping it on SQLite means
 * rebuilding `findings`, and `fix_findings` references it with ON DELETE CASCADE: the rebuild would have
 * to run with foreign keys off, which SQLite does not allow inside the migration's transaction. Instead
 * `fingerprint` now holds the finding's identity key, fixed when the finding is created and derived from
 * its source repository, the engine's fingerprint and the occurrence of that match in the file
 * (src/core/finding-ingest.ts), so the same code in two source repositories, or twice in one file, gets
 * two keys. Rows stored before this migration keep their key, the engine's fingerprint, which the matcher
 * still recognizes (src/core/finding-identity.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  // The engine's whitespace-insensitive hash of the match, without its path, so a moved file still matches.
  await db.schema.alterTable('findings').addColumn('match_hash', 'text').execute();
  // A coarser key that survives edits of the match (for SAST the call it sits in, e.g. `requests.get`).
  await db.schema.alterTable('findings').addColumn('anchor', 'text').execute();
  // A few lines of the matched code, credentials masked.
  await db.schema.alterTable('findings').addColumn('snippet', 'text').execute();
  await db.schema.alterTable('finding_events').addColumn('comment', 'text').execute();
  await db.schema.createIndex('findings_unit_type_source').on('findings').columns(['unit_id', 'scan_type', 'source_repo_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('findings_unit_type_source').execute();
  await db.schema.alterTable('finding_events').dropColumn('comment').execute();
  for (const column of ['snippet', 'anchor', 'match_hash']) await db.schema.alterTable('findings').dropColumn(column).execute();
}
