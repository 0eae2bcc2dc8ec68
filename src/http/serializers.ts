import type { ApiKeySummary } from '../core/api-keys.ts';
import { fixReport, type FixView } from '../core/fixes.ts';
import type { QuotaBalance } from '../core/quotas.ts';
import { detectedByOf } from '../core/findings.ts';
import { eventView } from '../core/finding-events.ts';
import type { BatchView, ProgressView, ScanResults } from '../core/scan-batches.ts';
import { findingStatus, stateOf } from '../core/states/finding-state.ts';
import type { Unit } from '../core/units.ts';
import { decodeJson } from '../store/json-columns.ts';
import type { OrganizationName } from '../store/api-keys.ts';
import type { FindingEventRow, FindingRow, FixPullRequestRow } from '../store/schema.ts';
import type { Family } from './family.ts';

// Rows to wire objects. The response schemas decide what is sent; these decide where each value comes from.

const list = (json: string): string[] => decodeJson<string[]>(json, []);

/** The full name of the unit's source repository a finding came from. */
const sourceRepoName = (unit: Unit, f: FindingRow) => unit.sources.find((s) => s.id === f.source_repo_id)?.full_name ?? null;

/** Where a finding is, beyond its file: the fields a finding and a scan result's entry share. */
const findingLocation = (unit: Unit, f: FindingRow) => ({
  source_repo: sourceRepoName(unit, f),
  start_line: f.start_line,
  end_line: f.end_line,
  commit_sha: f.commit_sha,
  snippet: f.snippet,
});

export function serializeUnit(unit: Unit) {
  return {
    id: unit.id,
    name: unit.name,
    description: unit.description,
    repositories: unit.sources.map((s) => ({
      full_name: s.full_name,
      default_branch: s.default_branch,
      html_url: s.html_url,
      provider: s.provider,
    })),
    archived: unit.archived === 1,
    created_at: unit.created_at,
    updated_at: unit.updated_at,
  };
}

export function serializeBatch(family: Family, view: BatchView) {
  const { batch } = view;
  return {
    batch_id: batch.id,
    [family.idField]: batch.unit_id,
    scan_type: batch.scan_type,
    status: batch.status,
    total_repositories: view.total_repositories,
    scans_created: view.scans_created,
    scans_failed: view.scans_failed,
    scans_completed: view.scans_completed,
    scans_assessed: view.scans_assessed,
    error_message: batch.error_message,
    warnings: view.warnings ?? [],
    created_at: batch.created_at,
    started_at: batch.started_at,
    completed_at: batch.completed_at,
  };
}

export function serializeProgress(family: Family, view: ProgressView) {
  const { created_at: _created, ...batch } = serializeBatch(family, view);
  return { ...batch, percent_complete: view.percent_complete, repositories: view.repositories };
}

/**
 * The results body (PublicScanResultsResponse) as JSON text, one piece per page of findings, without ever
 * holding more than one page. The entries come as JSON text from the store (see pageOfBatchResults).
 */
export async function* serializeResultsJson(results: ScanResults): AsyncGenerator<string | Buffer> {
  const { batch } = results;
  const head = JSON.stringify({ batch_id: batch.id, scan_type: batch.scan_type, status: batch.status, findings_count: results.count });
  yield `${head.slice(0, -1)},"findings":[`;
  yield* results.pages;
  yield ']}';
  // Asked for what follows the closing bracket, so (see ScanResults.pages) the last page has been written.
  results.release();
}

/** How many model verification runs confirmed a deep scan's finding; null when none reviewed it. */
function confidenceOf(f: FindingRow): number | null {
  if (f.scan_type !== 'deep_ai_scan') return null;
  const verification = decodeJson<{ verification?: { confirmed?: unknown } }>(f.metadata, {}).verification;
  return typeof verification?.confirmed === 'number' ? verification.confirmed : null;
}

/** A secrets finding's live check (`valid`, `invalid`, `unknown`); null when none ran or for other scan types. */
function validityOf(f: FindingRow): string | null {
  if (f.scan_type !== 'secrets_scan') return null;
  const validity = decodeJson<{ validity?: unknown }>(f.metadata, {}).validity;
  return validity === 'valid' || validity === 'invalid' || validity === 'unknown' ? validity : null;
}

/** The tool whose report a finding's place and message are: an imported SARIF log's tool, else Bulwark. */
function toolOf(f: FindingRow): string {
  if (!f.metadata.includes('"sarif"')) return 'Bulwark';
  const { sarif, tool } = decodeJson<{ sarif?: unknown; tool?: unknown }>(f.metadata, {});
  return sarif && typeof tool === 'string' ? tool : 'Bulwark';
}

export function serializeFinding(family: Family, unit: Unit, f: FindingRow) {
  return {
    id: f.id,
    [family.idField]: f.unit_id,
    check_id: f.check_id,
    severity: f.severity,
    status: findingStatus(stateOf(f)),
    file_path: f.file_path,
    message: f.message,
    title: f.title,
    category: f.category,
    scan_type: f.scan_type,
    detected_by: detectedByOf(f),
    tool: toolOf(f),
    scan_batch_id: f.scan_batch_id,
    ...findingLocation(unit, f),
    cwe: list(f.cwe),
    owasp: list(f.owasp),
    references: list(f.references),
    source_url: f.source_url,
    cvss_base_score: f.cvss_base_score,
    cvss_severity: f.cvss_severity,
    cvss_vector: f.cvss_vector,
    confidence: confidenceOf(f),
    validity: validityOf(f),
    first_detected_at: f.first_detected_at,
    last_detected_at: f.last_detected_at,
    resolved_at: f.resolved_at,
    created_at: f.created_at,
    updated_at: f.updated_at,
  };
}

export const serializeEvent = (e: FindingEventRow) => eventView(e);

export function serializePullRequest(pr: FixPullRequestRow) {
  return {
    repo_full_name: pr.repo_full_name,
    branch_name: pr.branch_name,
    pr_number: pr.pr_number,
    pr_url: pr.pr_url,
    merge_status: pr.merge_status,
    created_at: pr.created_at,
    merged_at: pr.merged_at,
  };
}

export function serializeFix(family: Family, view: FixView) {
  const { fix } = view;
  return {
    id: fix.id,
    [family.idField]: fix.unit_id,
    finding_ids: view.findingIds,
    title: fix.title,
    status: fix.status,
    source_repo: fix.source_repo,
    source_repo_provider: fix.source_repo_provider,
    source_scan_branch: fix.source_scan_branch,
    source_base_commit_sha: fix.source_base_commit_sha,
    error_message: fix.error_message,
    pull_requests: view.pullRequests.map(serializePullRequest),
    created_at: fix.created_at,
    started_at: fix.started_at,
    completed_at: fix.completed_at,
    notes: fixReport(fix).notes,
    finding_outcomes: fixReport(fix).outcomes,
  };
}

export function serializeFixDiff(view: FixView) {
  // A refined fix keeps its previous diff while it runs again; only a finished run's diff is shown.
  const finished = view.fix.status === 'completed' || view.fix.status === 'pr_creation_failed';
  return { fix_id: view.fix.id, status: view.fix.status, diff: finished ? view.fix.diff : null };
}

export function serializeFixProgress(family: Family, view: FixView) {
  const { fix } = view;
  const end = fix.completed_at ? Date.parse(fix.completed_at) : fix.started_at ? Date.now() : null;
  return {
    fix_id: fix.id,
    [family.idField]: fix.unit_id,
    status: fix.status,
    started_at: fix.started_at,
    completed_at: fix.completed_at,
    duration_seconds: fix.started_at && end !== null ? Math.max(0, (end - Date.parse(fix.started_at)) / 1000) : null,
    agent_steps_completed: fix.agent_steps_completed,
    latest_activity_at: fix.latest_activity_at,
    error_message: fix.error_message,
    current_step: fix.status === 'running' ? fix.current_step : null,
  };
}

export function serializeMe(org: OrganizationName, key: ApiKeySummary) {
  return {
    organization_id: org.id,
    organization_name: org.name,
    organization_slug: org.slug,
    api_key: { id: key.id, name: key.name, key_prefix: key.key_prefix, scopes: key.scopes },
  };
}

export function serializeBalance(balance: QuotaBalance) {
  return {
    period_start: balance.period.start,
    period_end: balance.period.end,
    prs: balance.counters.prs,
    sast_scans: balance.counters.sast_scans,
    deep_ai_scans: balance.counters.deep_ai_scans,
    repositories: balance.units,
    applications: balance.units,
  };
}
