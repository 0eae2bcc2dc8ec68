import type { Kysely } from 'kysely';

const text = 'text';
const int = 'integer';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('slug', text, (c) => c.notNull().unique())
    .addColumn('quota_period', text, (c) => c.notNull().defaultTo('monthly'))
    .addColumn('max_repositories', int)
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('org_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('key_prefix', text, (c) => c.notNull())
    .addColumn('key_hash', text, (c) => c.notNull().unique())
    .addColumn('scopes', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('last_used_at', text)
    .addColumn('revoked_at', text)
    .execute();
  await db.schema.createIndex('api_keys_org').on('api_keys').columns(['org_id', 'created_at']).execute();

  await db.schema
    .createTable('units')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('org_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('description', text)
    .addColumn('archived', int, (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('units_org').on('units').columns(['org_id', 'archived', 'created_at']).execute();

  await db.schema
    .createTable('source_repos')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('unit_id', text, (c) => c.notNull().references('units.id').onDelete('cascade'))
    .addColumn('position', int, (c) => c.notNull())
    .addColumn('provider', text, (c) => c.notNull())
    .addColumn('full_name', text, (c) => c.notNull())
    .addColumn('default_branch', text, (c) => c.notNull())
    .addColumn('html_url', text)
    .addColumn('clone_url', text, (c) => c.notNull())
    .addColumn('token_ciphertext', text)
    .addColumn('created_at', text, (c) => c.notNull())
    .addUniqueConstraint('source_repos_unit_repo', ['unit_id', 'provider', 'full_name'])
    .execute();

  await db.schema
    .createTable('quota_plans')
    .addColumn('org_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('quota_type', text, (c) => c.notNull())
    .addColumn('plan_limit', int, (c) => c.notNull())
    .addPrimaryKeyConstraint('quota_plans_pk', ['org_id', 'quota_type'])
    .execute();

  await db.schema
    .createTable('quota_usage')
    .addColumn('org_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('quota_type', text, (c) => c.notNull())
    .addColumn('period_start', text, (c) => c.notNull())
    .addColumn('used', int, (c) => c.notNull().defaultTo(0))
    .addColumn('topup', int, (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('quota_usage_pk', ['org_id', 'quota_type', 'period_start'])
    .execute();

  await db.schema
    .createTable('scan_batches')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('org_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('unit_id', text, (c) => c.notNull().references('units.id').onDelete('cascade'))
    .addColumn('scan_type', text, (c) => c.notNull())
    .addColumn('status', text, (c) => c.notNull())
    .addColumn('total_repositories', int, (c) => c.notNull())
    .addColumn('error_message', text)
    .addColumn('quota_type', text, (c) => c.notNull())
    .addColumn('quota_period_start', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('started_at', text)
    .addColumn('completed_at', text)
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('scan_batches_unit').on('scan_batches').columns(['unit_id', 'created_at']).execute();

  await db.schema
    .createTable('scans')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('batch_id', text, (c) => c.notNull().references('scan_batches.id').onDelete('cascade'))
    .addColumn('org_id', text, (c) => c.notNull())
    .addColumn('unit_id', text, (c) => c.notNull())
    .addColumn('source_repo_id', text, (c) => c.notNull().references('source_repos.id').onDelete('cascade'))
    .addColumn('repository', text, (c) => c.notNull())
    .addColumn('branch', text, (c) => c.notNull())
    .addColumn('status', text, (c) => c.notNull())
    .addColumn('status_reason', text)
    .addColumn('commit_sha', text)
    .addColumn('findings_count', int)
    .addColumn('assessed', int, (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('started_at', text)
    .addColumn('completed_at', text)
    .addUniqueConstraint('scans_batch_repo', ['batch_id', 'source_repo_id'])
    .execute();

  await db.schema
    .createTable('findings')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('org_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('unit_id', text, (c) => c.notNull().references('units.id').onDelete('cascade'))
    .addColumn('source_repo_id', text)
    .addColumn('scan_type', text, (c) => c.notNull())
    .addColumn('scan_batch_id', text)
    .addColumn('scan_id', text)
    .addColumn('fingerprint', text, (c) => c.notNull())
    .addColumn('check_id', text, (c) => c.notNull())
    .addColumn('severity', text, (c) => c.notNull())
    .addColumn('status', text, (c) => c.notNull())
    .addColumn('category', text, (c) => c.notNull())
    .addColumn('title', text)
    .addColumn('message', text, (c) => c.notNull())
    .addColumn('file_path', text, (c) => c.notNull())
    .addColumn('start_line', int)
    .addColumn('end_line', int)
    .addColumn('cwe', text, (c) => c.notNull().defaultTo('[]'))
    .addColumn('owasp', text, (c) => c.notNull().defaultTo('[]'))
    .addColumn('references', text, (c) => c.notNull().defaultTo('[]'))
    .addColumn('source_url', text)
    .addColumn('cvss_base_score', 'double precision')
    .addColumn('cvss_severity', text)
    .addColumn('cvss_vector', text)
    .addColumn('commit_sha', text)
    .addColumn('metadata', text, (c) => c.notNull().defaultTo('{}'))
    .addColumn('first_detected_at', text, (c) => c.notNull())
    .addColumn('last_detected_at', text, (c) => c.notNull())
    .addColumn('resolved_at', text)
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .addUniqueConstraint('findings_identity', ['unit_id', 'scan_type', 'fingerprint'])
    .execute();
  await db.schema.createIndex('findings_unit_created').on('findings').columns(['unit_id', 'created_at']).execute();
  await db.schema.createIndex('findings_batch').on('findings').columns(['scan_batch_id']).execute();

  await db.schema
    .createTable('finding_events')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('org_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('unit_id', text, (c) => c.notNull())
    .addColumn('finding_id', text, (c) => c.notNull())
    .addColumn('scan_id', text)
    .addColumn('scan_type', text)
    .addColumn('event_type', text, (c) => c.notNull())
    .addColumn('previous_status', text)
    .addColumn('new_status', text)
    .addColumn('severity', text)
    .addColumn('check_id', text)
    .addColumn('file_path', text)
    .addColumn('actor_user_id', text)
    .addColumn('metadata', text, (c) => c.notNull().defaultTo('{}'))
    .addColumn('event_timestamp', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('finding_events_org_time')
    .on('finding_events')
    .columns(['org_id', 'event_timestamp', 'id'])
    .execute();

  await db.schema
    .createTable('fixes')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('org_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('unit_id', text, (c) => c.notNull().references('units.id').onDelete('cascade'))
    .addColumn('title', text, (c) => c.notNull())
    .addColumn('instructions', text, (c) => c.notNull())
    .addColumn('status', text, (c) => c.notNull())
    .addColumn('source_repo', text)
    .addColumn('source_repo_provider', text)
    .addColumn('source_scan_branch', text)
    .addColumn('source_base_commit_sha', text)
    .addColumn('error_message', text)
    .addColumn('diff', text)
    .addColumn('agent_steps_completed', int, (c) => c.notNull().defaultTo(0))
    .addColumn('latest_activity_at', text)
    .addColumn('created_by_key_id', text)
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('started_at', text)
    .addColumn('completed_at', text)
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('fixes_unit_created').on('fixes').columns(['unit_id', 'created_at']).execute();

  await db.schema
    .createTable('fix_findings')
    .addColumn('fix_id', text, (c) => c.notNull().references('fixes.id').onDelete('cascade'))
    .addColumn('finding_id', text, (c) => c.notNull().references('findings.id').onDelete('cascade'))
    .addColumn('position', int, (c) => c.notNull())
    .addPrimaryKeyConstraint('fix_findings_pk', ['fix_id', 'finding_id'])
    .execute();
  await db.schema.createIndex('fix_findings_finding').on('fix_findings').columns(['finding_id']).execute();

  await db.schema
    .createTable('fix_refinements')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('fix_id', text, (c) => c.notNull().references('fixes.id').onDelete('cascade'))
    .addColumn('instructions', text, (c) => c.notNull())
    .addColumn('created_by_key_id', text)
    .addColumn('created_at', text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('fix_pull_requests')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('fix_id', text, (c) => c.notNull().references('fixes.id').onDelete('cascade'))
    .addColumn('repo_full_name', text, (c) => c.notNull())
    .addColumn('branch_name', text, (c) => c.notNull())
    .addColumn('pr_number', int, (c) => c.notNull())
    .addColumn('pr_url', text, (c) => c.notNull())
    .addColumn('merge_status', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('merged_at', text)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'fix_pull_requests', 'fix_refinements', 'fix_findings', 'fixes', 'finding_events', 'findings', 'scans',
    'scan_batches', 'quota_usage', 'quota_plans', 'source_repos', 'units', 'api_keys', 'organizations',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
