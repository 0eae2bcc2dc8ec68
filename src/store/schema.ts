import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';
import type { Role } from '../core/roles.ts';
import type { Severity } from '../core/severity.ts';
import type { BatchStatus } from '../core/states/batch-status.ts';
import type { DeviceAuthorizationStatus } from '../core/states/device-authorization-status.ts';
import type { FindingStatus, ScanVerdict, Triage } from '../core/states/finding-state.ts';
import type { FixStatus } from '../core/states/fix-status.ts';
import type { JobState } from '../core/states/job-state.ts';
import type { ScanStatus } from '../core/states/scan-status.ts';
import type { ScanType } from '../scanning/scan-type-names.ts';

// Timestamps are ISO-8601 UTC strings and booleans are 0/1 integers in both SQLite and PostgreSQL,
// so every query returns the same values whichever database runs underneath.

export interface OrganizationsTable {
  id: string;
  name: string;
  slug: string;
  quota_period: string;
  max_repositories: number | null;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  org_id: string;
  name: string;
  key_prefix: string;
  key_hash: string;
  scopes: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** The user who made it in the console or approved the device it was minted for; null for admin-CLI keys. */
  created_by_user_id: string | null;
  /** After this instant the key is refused; null: never. */
  expires_at: string | null;
}

export interface UnitsTable {
  id: string;
  org_id: string;
  name: string;
  description: string | null;
  archived: number;
  created_at: string;
  updated_at: string;
}

export interface SourceReposTable {
  id: string;
  unit_id: string;
  position: number;
  provider: string;
  full_name: string;
  default_branch: string;
  html_url: string | null;
  clone_url: string;
  token_ciphertext: string | null;
  /** When the access token was last set, replaced or removed; null when none was ever stored. */
  token_changed_at: string | null;
  created_at: string;
}

export interface QuotaPlansTable {
  org_id: string;
  quota_type: string;
  plan_limit: number;
}

export interface QuotaUsageTable {
  org_id: string;
  quota_type: string;
  period_start: string;
  used: number;
  topup: number;
}

export interface ScanBatchesTable {
  id: string;
  org_id: string;
  unit_id: string;
  scan_type: string;
  status: BatchStatus;
  total_repositories: number;
  error_message: string | null;
  quota_type: string;
  quota_period_start: string;
  /** When the batch's credit was given back; set at most once. */
  credit_refunded_at: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  updated_at: string;
}

export interface ScansTable {
  id: string;
  batch_id: string;
  org_id: string;
  unit_id: string;
  source_repo_id: string;
  repository: string;
  branch: string;
  status: ScanStatus;
  status_reason: string | null;
  commit_sha: string | null;
  findings_count: number | null;
  assessed: number;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  /** How far the engine got through the checked-out tree, 0–1; only ever rises. */
  analysis_progress: ColumnType<number, number | undefined, number>;
  /** JSON list of things the reader must know that are not findings (vulnerability records missing or stale). */
  warnings: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface FindingsTable {
  id: string;
  org_id: string;
  unit_id: string;
  source_repo_id: string | null;
  scan_type: ScanType;
  scan_batch_id: string | null;
  scan_id: string | null;
  /** The finding's identity key within its unit and scan type, fixed when it is created. */
  fingerprint: string;
  /** The engine's hash of the match without its path; null on rows stored before it was kept. */
  match_hash: string | null;
  /** A coarser key of the match that survives edits of it (the call a SAST match sits in). */
  anchor: string | null;
  /** A few lines of the matched code, credentials masked. */
  snippet: string | null;
  check_id: string;
  severity: Severity;
  /** What the scans say (finding-state.ts): only scans move it. */
  scan_verdict: ScanVerdict;
  /** What a person decided (finding-state.ts). */
  triage: Triage;
  /** The wire status, stored for list filters and counters; written only as findingStatus() of the two above. */
  status: FindingStatus;
  /** JSON array of the scan types that have detected it, first-seen order (`scan_type` is the first); counters are kept per it. */
  detected_by: string;
  /** JSON object: each scan type whose newest scan sees it, with that scan's id. The verdict is `present` while it holds any. */
  seen_by: string;
  category: string;
  title: string | null;
  message: string;
  file_path: string;
  start_line: number | null;
  end_line: number | null;
  cwe: string;
  owasp: string;
  references: string;
  source_url: string | null;
  cvss_base_score: number | null;
  cvss_severity: string | null;
  cvss_vector: string | null;
  commit_sha: string | null;
  metadata: string;
  first_detected_at: string;
  last_detected_at: string;
  resolved_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface FindingEventsTable {
  id: string;
  org_id: string;
  unit_id: string;
  finding_id: string;
  scan_id: string | null;
  scan_type: string | null;
  event_type: string;
  previous_status: string | null;
  new_status: string | null;
  severity: string | null;
  check_id: string | null;
  file_path: string | null;
  actor_user_id: string | null;
  metadata: string;
  /** Why a person changed the status, when they said. */
  comment: string | null;
  event_timestamp: string;
  created_at: string;
}

export interface FixesTable {
  id: string;
  org_id: string;
  unit_id: string;
  title: string;
  instructions: string;
  status: FixStatus;
  source_repo: string | null;
  source_repo_provider: string | null;
  source_scan_branch: string | null;
  source_base_commit_sha: string | null;
  error_message: string | null;
  /** The diff with credentials masked, as the API shows it. */
  diff: string | null;
  /** The applicable diff, sealed with the token box. */
  diff_ciphertext: string | null;
  agent_steps_completed: number;
  agent_input_tokens: number;
  agent_output_tokens: number;
  /** How the last run's verification went, in one sentence. */
  verification: string | null;
  /** JSON array of the actions the last run left to the user (variables to set, credentials to rotate). */
  notes: string | null;
  /** JSON array of `{ finding_id, fixed, detail }`: what the last run did about each finding. */
  finding_outcomes: string | null;
  /** What a running fix is doing now; null before it starts and once it ends. */
  current_step: string | null;
  /** Runs started so far: 1 after the first, one more per refinement. Names each run's job. */
  runs: number;
  /** When a request started opening this fix's pull request; null when none is. */
  pr_opening_since: string | null;
  /** The job attempt running the current run; only it may change the fix. */
  run_attempt: number;
  /** The quota period the fix's `prs` credit was taken from (null for fixes stored before this was kept). */
  quota_period_start: string | null;
  /** When the fix's credit was given back; set at most once. */
  credit_refunded_at: string | null;
  latest_activity_at: string | null;
  created_by_key_id: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  updated_at: string;
}

export interface FixFindingsTable {
  fix_id: string;
  finding_id: string;
  position: number;
}

export interface FixRefinementsTable {
  id: string;
  fix_id: string;
  instructions: string;
  created_by_key_id: string | null;
  created_at: string;
}

export interface FixPullRequestsTable {
  id: string;
  fix_id: string;
  repo_full_name: string;
  branch_name: string;
  pr_number: number;
  pr_url: string;
  merge_status: string;
  created_at: string;
  merged_at: string | null;
}

/** What the code host last said about a fix's pull request (migration 025); none yet: still as opened. */
export interface FixPullRequestStatesTable {
  pull_request_id: string;
  state: 'open' | 'closed' | 'merged';
  title: string | null;
  head_sha: string | null;
  checked_at: string;
}

/** An organization's inbound webhook from a code host, for one repository (`unit_id`) or all of them. */
export interface CodeHostWebhooksTable {
  id: string;
  org_id: string;
  provider: string;
  unit_id: string | null;
  /** The shared secret, sealed with the token box. */
  secret_ciphertext: string;
  created_by_user_id: string | null;
  created_at: string;
  last_delivery_at: string | null;
}

/** A delivery accepted from a code host, once per its delivery id. */
export interface CodeHostDeliveriesTable {
  id: string;
  hook_id: string;
  delivery_id: string;
  /** The host's event name (`pull_request`, `Merge Request Hook`, `git.pullrequest.merged`). */
  event: string;
  /** JSON of what the delivery says about a pull request; null for events that say nothing Bulwark uses. */
  observation: string | null;
  received_at: string;
  applied_at: string | null;
  /** What applying it did, in a sentence. */
  outcome: string | null;
}

/** An organization's endpoint that receives its finding events (migration 026). */
export interface OutboundWebhooksTable {
  id: string;
  org_id: string;
  url: string;
  description: string;
  /** JSON list of the event types it receives; empty: all of them. */
  event_types: string;
  enabled: number;
  /** The signing secret (`whsec_…`), sealed with the token box. */
  secret_ciphertext: string;
  /** The secret before the last rotation, still signed with until `previous_secret_expires_at`. */
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: string | null;
  /** The first failed attempt since the last delivered one; null while deliveries succeed. */
  failing_since: string | null;
  /** Messages in a row whose every attempt failed. */
  failed_messages: number;
  disabled_reason: string | null;
  disabled_at: string | null;
  created_by_user_id: string | null;
  created_at: string;
  updated_at: string;
}

/** A finding event waiting to become deliveries; written by a trigger with the event itself. */
export interface OutboundWebhookOutboxTable {
  event_id: string;
  org_id: string;
  created_at: string;
}

/** One message (a finding event) to one endpoint, and how its attempts went. */
export interface OutboundWebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  /** Attempts made so far. */
  attempts: number;
  /** 1 while the attempt due is a redelivery someone asked for: it is not retried. */
  manual: number;
  next_attempt_at: string | null;
  /** The claim of the worker sending the due attempt. */
  lease_until: string | null;
  lease_holder: string | null;
  last_attempt_at: string | null;
  response_status: number | null;
  latency_ms: number | null;
  error: string | null;
  /** The start of the last answer's body, masked. */
  response_body: string | null;
  created_at: string;
  finished_at: string | null;
}

/** The scan types a unit runs when its code host reports a push to the branch it scans (migration 028). */
export interface ScanTriggersTable {
  unit_id: string;
  /** JSON arrays of scan types. */
  on_push: string;
  on_pull_request: string;
  updated_by_user_id: string | null;
  updated_at: string;
}

/** A scan of a pull request's head commit against the branch it merges into (migration 029). */
export interface PullRequestScansTable {
  id: string;
  org_id: string;
  unit_id: string;
  source_repo_id: string;
  pr_number: number;
  head_sha: string;
  pr_url: string | null;
  /** JSON array of scan types. */
  scan_types: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  /** Findings the pull request introduces (those of its head no finding of the base matches). */
  new_findings: number | null;
  /** The report's Markdown, as published. */
  summary: string | null;
  /** JSON: what the host kept of the published report (PublishedReport), for the next one to update. */
  report: string | null;
  error_message: string | null;
  created_at: string;
  completed_at: string | null;
}

export interface FixBranchesTable {
  org_id: string;
  source_repo_provider: string;
  source_repo: string;
  branch_name: string;
  fix_id: string;
  created_at: string;
}

export interface JobsTable {
  id: string;
  kind: string;
  key: string;
  state: JobState;
  attempts: number;
  max_attempts: number;
  run_after: string;
  lease_until: string | null;
  last_error: string | null;
  /** Jobs of one group (an organization) share a cap on how many run at once. */
  group_key: string | null;
  created_at: string;
  updated_at: string;
}

export interface OsvAdvisoriesTable {
  id: string;
  modified: string;
  published: string | null;
  withdrawn: string | null;
  summary: string | null;
  aliases: string;
  severity: string;
  database_severity: string | null;
  cwe_ids: string;
  references: string;
  imported_at: string;
}

export interface OsvAffectedTable {
  advisory_id: string;
  position: number;
  ecosystem: string;
  package_key: string;
  package_name: string;
  ranges: string;
  versions: string;
}

/** Per ecosystem: when its records were last known current, and what the OSV bucket answered last. */
export interface OsvEcosystemsTable {
  ecosystem: string;
  refreshed_at: string;
  export_etag: string | null;
  export_last_modified: string | null;
  index_etag: string | null;
  index_last_modified: string | null;
  /** The newest record `modified` time stored, from which modified_id.csv is read for changes. */
  newest_modified: string | null;
}

/** A periodic task one process of many runs at a time (the OSV refresh). */
export interface TaskLeasesTable {
  name: string;
  holder: string | null;
  lease_until: string | null;
  last_started_at: string | null;
  last_finished_at: string | null;
  last_error: string | null;
}

export interface ScanArtifactsTable {
  scan_id: string;
  kind: string;
  content: string;
  created_at: string;
}

export interface SourceScanHeadsTable {
  source_repo_id: string;
  scan_type: string;
  scan_id: string | null;
  scan_started_at: string | null;
  updated_at: string;
}

/** One SARIF import: a log of another tool read as one scan by it of one source repository (migration 027). */
export interface SarifImportsTable {
  id: string;
  org_id: string;
  unit_id: string;
  source_repo_id: string;
  /** The tool's name as its log gives it (tool.driver.name). */
  tool: string;
  tool_version: string | null;
  /** The key its sightings are kept under in findings' `seen_by`: `sarif:<tool>`, with `#<category>` when it has one. */
  sighter: string;
  category: string | null;
  commit_sha: string;
  branch: string | null;
  /** Results the log holds. */
  results: number;
  created: number;
  updated: number;
  resolved: number;
  skipped: number;
  /** JSON list of what the caller must know (results skipped and why, a partial import). */
  warnings: string;
  /** The API key or user that imported it. */
  created_by: string | null;
  created_at: string;
}

/** How a sighter that does not describe a finding knows it: its rule, place and match (migration 027). */
export interface FindingAliasesTable {
  finding_id: string;
  sighter: string;
  check_id: string;
  file_path: string;
  start_line: number | null;
  end_line: number | null;
  match_hash: string | null;
  fingerprint: string;
  anchor: string | null;
  snippet: string | null;
  updated_at: string;
}

/** The answer given to a POST carrying an `Idempotency-Key`, per API key (src/core/idempotency.ts). */
export interface IdempotencyKeysTable {
  api_key_id: string;
  idempotency_key: string;
  /** sha256 of the method, path and canonical body the key was first used with. */
  fingerprint: string;
  state: 'in_flight' | 'done';
  /** Which request holds an in-flight key; only it may record the answer. */
  claim_id: string;
  /** When an in-flight claim is taken to belong to a request that died. */
  locked_until: string;
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

/** How many findings a unit holds per batch ('' for none), scan type, severity and status (migration 012). */
export interface FindingCountsTable {
  unit_id: string;
  scan_batch_id: string;
  scan_type: string;
  severity: string;
  status: string;
  n: number;
  /** Changes counted: its sum over a unit moves whenever any of the unit's finding lists changes. */
  v: number;
}

/** How many events an organization holds per unit, scan type, severity ('' for none) and event type. */
export interface FindingEventCountsTable {
  org_id: string;
  unit_id: string;
  scan_type: string;
  severity: string;
  event_type: string;
  n: number;
  v: number;
}

/** Migration 013: event counters without the unit, for the organization-wide feed. */
export type FindingEventOrgCountsTable = Omit<FindingEventCountsTable, 'unit_id'>;

export type { Role };

/** A person who signs in to the console (migration 016); no password when signing in only through OpenID Connect. */
export interface UsersTable {
  id: string;
  email: string;
  name: string | null;
  /** scrypt, in the self-describing form of src/crypto/passwords.ts. */
  password_hash: string | null;
  disabled_at: string | null;
  created_at: string;
}

export interface MembershipsTable {
  org_id: string;
  user_id: string;
  role: Role;
  created_at: string;
}

/** A signed-in browser: the cookie carries the token, the store only its SHA-256. */
export interface UserSessionsTable {
  id: string;
  user_id: string;
  token_hash: string;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

/** Failed sign-ins per email and per client address, for the lockout (src/core/sign-in-limits.ts). */
export interface LoginAttemptsTable {
  subject: string;
  failures: number;
  window_started_at: string;
  locked_until: string | null;
}

/** A CLI's RFC 8628 login: the device code by hash, the code a person types, and once approved who approved it for which organization. */
export interface DeviceAuthorizationsTable {
  id: string;
  device_code_hash: string;
  user_code: string;
  client_name: string | null;
  status: DeviceAuthorizationStatus;
  requested_at: string;
  expires_at: string;
  interval_seconds: number;
  last_polled_at: string | null;
  approved_by_user_id: string | null;
  org_id: string | null;
  device_label: string | null;
  /** The client address that asked for the code (migration 018; null on older rows). */
  requested_from: string | null;
}

export interface Database {
  organizations: OrganizationsTable;
  api_keys: ApiKeysTable;
  units: UnitsTable;
  source_repos: SourceReposTable;
  quota_plans: QuotaPlansTable;
  quota_usage: QuotaUsageTable;
  scan_batches: ScanBatchesTable;
  scans: ScansTable;
  findings: FindingsTable;
  finding_events: FindingEventsTable;
  finding_counts: FindingCountsTable;
  finding_event_counts: FindingEventCountsTable;
  finding_event_org_counts: FindingEventOrgCountsTable;
  fixes: FixesTable;
  fix_findings: FixFindingsTable;
  fix_refinements: FixRefinementsTable;
  fix_pull_requests: FixPullRequestsTable;
  fix_branches: FixBranchesTable;
  fix_pull_request_states: FixPullRequestStatesTable;
  code_host_webhooks: CodeHostWebhooksTable;
  code_host_deliveries: CodeHostDeliveriesTable;
  scan_triggers: ScanTriggersTable;
  pull_request_scans: PullRequestScansTable;
  outbound_webhooks: OutboundWebhooksTable;
  outbound_webhook_outbox: OutboundWebhookOutboxTable;
  outbound_webhook_deliveries: OutboundWebhookDeliveriesTable;
  jobs: JobsTable;
  osv_advisories: OsvAdvisoriesTable;
  osv_affected: OsvAffectedTable;
  osv_ecosystems: OsvEcosystemsTable;
  task_leases: TaskLeasesTable;
  scan_artifacts: ScanArtifactsTable;
  source_scan_heads: SourceScanHeadsTable;
  sarif_imports: SarifImportsTable;
  finding_aliases: FindingAliasesTable;
  idempotency_keys: IdempotencyKeysTable;
  users: UsersTable;
  memberships: MembershipsTable;
  user_sessions: UserSessionsTable;
  login_attempts: LoginAttemptsTable;
  device_authorizations: DeviceAuthorizationsTable;
}

export type Organization = Selectable<OrganizationsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type UserRow = Selectable<UsersTable>;
export type DeviceAuthorizationRow = Selectable<DeviceAuthorizationsTable>;
export type UnitRow = Selectable<UnitsTable>;
export type SourceRepoRow = Selectable<SourceReposTable>;
export type ScanBatchRow = Selectable<ScanBatchesTable>;
export type ScanRow = Selectable<ScansTable>;
export type NewScan = Insertable<ScansTable>;
export type QuotaPlanRow = Selectable<QuotaPlansTable>;
export type QuotaUsageRow = Selectable<QuotaUsageTable>;
export type FindingRow = Selectable<FindingsTable>;
export type NewFinding = Insertable<FindingsTable>;
export type FindingUpdate = Updateable<FindingsTable>;
export type FindingEventRow = Selectable<FindingEventsTable>;
export type NewFindingEvent = Insertable<FindingEventsTable>;
export type FixRow = Selectable<FixesTable>;
export type FixPullRequestRow = Selectable<FixPullRequestsTable>;
export type CodeHostWebhookRow = Selectable<CodeHostWebhooksTable>;
export type CodeHostDeliveryRow = Selectable<CodeHostDeliveriesTable>;
export type OutboundWebhookRow = Selectable<OutboundWebhooksTable>;
export type OutboundWebhookDeliveryRow = Selectable<OutboundWebhookDeliveriesTable>;
export type JobRow = Selectable<JobsTable>;
export type OsvAdvisoryRow = Selectable<OsvAdvisoriesTable>;
export type OsvAffectedRow = Selectable<OsvAffectedTable>;
export type IdempotencyKeyRow = Selectable<IdempotencyKeysTable>;
export type SarifImportRow = Selectable<SarifImportsTable>;
export type FindingAliasRow = Selectable<FindingAliasesTable>;
