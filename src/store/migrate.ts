import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Store } from './database.ts';
import * as initial from './migrations/001_initial.ts';
import * as jobs from './migrations/002_jobs.ts';
import * as dependencies from './migrations/003_dependencies.ts';
import * as fixRuns from './migrations/004_fix_runs.ts';
import * as findingIdentity from './migrations/005_finding_identity.ts';
import * as statusConstraints from './migrations/006_status_constraints.ts';
import * as sourceScanHeads from './migrations/007_source_scan_heads.ts';
import * as idempotencyAndResultOrder from './migrations/008_idempotency_and_result_order.ts';
import * as fixBranches from './migrations/009_fix_branches.ts';
import * as jobGroups from './migrations/010_job_groups.ts';
import * as fixOutcomes from './migrations/011_fix_outcomes.ts';
import * as listIndexesAndCounts from './migrations/012_list_indexes_and_counts.ts';
import * as eventCountsPerOrg from './migrations/013_event_counts_per_org.ts';
import * as changeNotices from './migrations/014_change_notices.ts';
import * as scanAnalysisProgress from './migrations/015_scan_analysis_progress.ts';
import * as accounts from './migrations/016_accounts.ts';
import * as osvSync from './migrations/017_osv_sync.ts';
import * as accountBindings from './migrations/018_account_bindings.ts';
import * as sourceTokenChangedAt from './migrations/020_source_token_changed_at.ts';
import * as findingVerdictAndTriage from './migrations/021_finding_verdict_and_triage.ts';
import * as deviceAndJobStates from './migrations/022_device_and_job_states.ts';

// Migrations are listed here rather than discovered on disk, so they run the same from any working directory.
const migrations: Record<string, Migration> = {
  '001_initial': initial,
  '002_jobs': jobs,
  '003_dependencies': dependencies,
  '004_fix_runs': fixRuns,
  '005_finding_identity': findingIdentity,
  '006_status_constraints': statusConstraints,
  '007_source_scan_heads': sourceScanHeads,
  '008_idempotency_and_result_order': idempotencyAndResultOrder,
  '009_fix_branches': fixBranches,
  '010_job_groups': jobGroups,
  '011_fix_outcomes': fixOutcomes,
  '012_list_indexes_and_counts': listIndexesAndCounts,
  '013_event_counts_per_org': eventCountsPerOrg,
  '014_change_notices': changeNotices,
  '015_scan_analysis_progress': scanAnalysisProgress,
  '016_accounts': accounts,
  '017_osv_sync': osvSync,
  '018_account_bindings': accountBindings,
  '020_source_token_changed_at': sourceTokenChangedAt,
  '021_finding_verdict_and_triage': findingVerdictAndTriage,
  '022_device_and_job_states': deviceAndJobStates,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export interface MigrationReport {
  applied: string[];
}

export async function migrateToLatest(store: Store): Promise<MigrationReport> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one; name the current
  // schema so databases that hold several Bulwark schemas (one per tenant or test run) stay apart.
  const migrationTableSchema =
    store.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({ db: store.db, provider, migrationTableSchema });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${(error as Error).message ?? error}`);
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
