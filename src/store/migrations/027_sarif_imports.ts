import type { Kysely } from 'kysely';

/**
 * SARIF imports: findings of other tools, brought in as one scan by that tool of one source repository.
 * - `sarif_imports`: one row per import, with what it did (findings created, seen again, resolved, results
 *   skipped) and its warnings as a JSON list. `sighter` is the key the import's sightings are kept under in
 *   a finding's `seen_by` (`sarif:<tool>` or `sarif:<tool>#<category>`).
 * - `finding_aliases`: how a sighter that does not describe a finding knows it (its own rule, place and
 *   match), kept when a finding one sighter described is also seen by another under a different rule: a
 *   CodeQL result merged into a SAST finding, or a scan seeing what an import found first. The next
 *   sighting by the same sighter is matched against it, so the merge holds when the code moves.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sarif_imports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('unit_id', 'text', (c) => c.notNull().references('units.id').onDelete('cascade'))
    .addColumn('source_repo_id', 'text', (c) => c.notNull().references('source_repos.id').onDelete('cascade'))
    .addColumn('tool', 'text', (c) => c.notNull())
    .addColumn('tool_version', 'text')
    .addColumn('sighter', 'text', (c) => c.notNull())
    .addColumn('category', 'text')
    .addColumn('commit_sha', 'text', (c) => c.notNull())
    .addColumn('branch', 'text')
    .addColumn('results', 'integer', (c) => c.notNull())
    .addColumn('created', 'integer', (c) => c.notNull())
    .addColumn('updated', 'integer', (c) => c.notNull())
    .addColumn('resolved', 'integer', (c) => c.notNull())
    .addColumn('skipped', 'integer', (c) => c.notNull())
    .addColumn('warnings', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sarif_imports_unit').on('sarif_imports').columns(['unit_id', 'created_at']).execute();

  await db.schema
    .createTable('finding_aliases')
    .addColumn('finding_id', 'text', (c) => c.notNull().references('findings.id').onDelete('cascade'))
    .addColumn('sighter', 'text', (c) => c.notNull())
    .addColumn('check_id', 'text', (c) => c.notNull())
    .addColumn('file_path', 'text', (c) => c.notNull())
    .addColumn('start_line', 'integer')
    .addColumn('end_line', 'integer')
    .addColumn('match_hash', 'text')
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('anchor', 'text')
    .addColumn('snippet', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('finding_aliases_pk', ['finding_id', 'sighter'])
    .execute();
  await db.schema.createIndex('finding_aliases_sighter').on('finding_aliases').columns(['sighter', 'finding_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('finding_aliases').execute();
  await db.schema.dropTable('sarif_imports').execute();
}
