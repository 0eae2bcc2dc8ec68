import type { Kysely } from 'kysely';

/**
 * The branch each fix opens its pull request from, one row per branch of a source repository within an
 * organization: the primary key makes a second fix asking for a taken branch name fail instead of sharing it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('fix_branches')
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('source_repo_provider', 'text', (c) => c.notNull())
    .addColumn('source_repo', 'text', (c) => c.notNull())
    .addColumn('branch_name', 'text', (c) => c.notNull())
    .addColumn('fix_id', 'text', (c) => c.notNull().references('fixes.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('fix_branches_pkey', ['org_id', 'source_repo_provider', 'source_repo', 'branch_name'])
    .execute();
  // Branches already used by pull requests are taken.
  const taken = await db
    .selectFrom('fix_pull_requests as p')
    .innerJoin('fixes as f', 'f.id', 'p.fix_id')
    .select(['f.org_id', 'f.source_repo_provider', 'f.source_repo', 'p.branch_name', 'p.fix_id', 'p.created_at'])
    .orderBy('p.created_at')
    .execute();
  const seen = new Set<string>();
  for (const row of taken) {
    const key = JSON.stringify([row.org_id, row.source_repo_provider ?? 'github', row.source_repo, row.branch_name]);
    if (seen.has(key)) continue;
    seen.add(key);
    await db.insertInto('fix_branches').values({ ...row, source_repo: row.source_repo ?? '', source_repo_provider: row.source_repo_provider ?? 'github' }).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('fix_branches').execute();
}
