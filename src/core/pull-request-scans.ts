import type { Kysely } from 'kysely';
import { MAX_REPORT_ANNOTATIONS, type CodeHostClient, type PublishedReport, type ScanAnnotation } from '../code-hosts/code-host.ts';
import { codeHostLabel } from '../code-hosts/index.ts';
import type { DeliveredPullRequest } from '../code-hosts/webhooks/delivery.ts';
import type { TokenBox } from '../crypto/token-box.ts';
import { newId, nowIso } from '../ids.ts';
import type { JobContext, JobHandlers } from '../jobs/queue.ts';
import type { RawFinding } from '../scanning/engine.ts';
import type { EngineRegistry } from '../scanning/engines.ts';
import type { CheckoutCache } from '../scm/checkout-cache.ts';
import { scrub } from '../scm/git-command.ts';
import { renamedFiles } from '../scm/renames.ts';
import { findingsOfSource } from '../store/findings.ts';
import { insertPullRequestScan, lastReportOf, lastScannedCommit, moveScanOfPullRequest, pullRequestScanById } from '../store/pull-request-scans.ts';
import { unitsWithTriggers } from '../store/scan-triggers.ts';
import { decodeJson, encodeJson } from '../store/json-columns.ts';
import type { Database } from '../store/schema.ts';
import { identityOfDetection, identityOfFinding, matchFindings } from './finding-identity.ts';
import { atOrAbove, severityRank, type Severity } from './severity.ts';
import { unitById } from '../store/units.ts';

// Scans of pull requests: when a code host's webhook reports a pull request opened or pushed to, into the
// branch a repository scans, each of the repository's pull-request scan types runs on the head commit, and
// what the head has that the branch's findings do not (matched by identity, following files renamed since
// the branch's last scan) is published on the pull request: a check run on GitHub, a commit status and one
// note on GitLab, a status and one thread on Azure DevOps. The next head's report updates that note or
// thread. Nothing of a pull request's scan becomes a finding: the branch's findings stay the branch's.

/** A report fails the pull request when it introduces a finding this serious or more. */
export const FAILING_SEVERITY: Severity = 'high';

export interface PullRequestScanDeps {
  db: Kysely<Database>;
  tokenBox: TokenBox;
  checkouts: CheckoutCache;
  engines: EngineRegistry;
  clients: Record<string, Required<CodeHostClient>>;
  /** BULWARK_PUBLIC_URL, for the report's link to the console; null: no link. */
  publicUrl: string | null;
  gitTimeoutMs: number;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

/**
 * Queues a scan of the pull request's head for each unit that scans the branch it merges into and has
 * pull-request scan types; once per head. Returns what it did, in words, for the delivery's log.
 */
export async function queuePullRequestScans(
  db: Kysely<Database>,
  enqueue: (trx: Kysely<Database>, scanId: string) => Promise<void>,
  orgId: string,
  provider: string,
  pullRequest: DeliveredPullRequest,
  hookUnitId: string | null,
): Promise<string | null> {
  if (pullRequest.state !== 'open' || !pullRequest.headSha || !pullRequest.baseBranch) return null;
  const units = await unitsWithTriggers(db, { orgId, provider, repoFullName: pullRequest.repoFullName, branch: pullRequest.baseBranch, unitId: hookUnitId });
  const queued: string[] = [];
  for (const { unit_id, source_repo_id, on_pull_request } of units) {
    const scanTypes = decodeJson<string[]>(on_pull_request, []);
    if (!scanTypes.length) continue;
    const id = newId();
    const fresh = await db.transaction().execute(async (trx) => {
      const inserted = await insertPullRequestScan(trx, {
        id,
        org_id: orgId,
        unit_id,
        source_repo_id,
        pr_number: pullRequest.number,
        head_sha: pullRequest.headSha!,
        pr_url: pullRequest.url,
        scan_types: encodeJson(scanTypes),
        status: 'queued',
        new_findings: null,
        summary: null,
        report: null,
        error_message: null,
        created_at: nowIso(),
        completed_at: null,
      });
      if (inserted) await enqueue(trx, id);
      return inserted;
    });
    if (fresh) queued.push(scanTypes.join(', '));
  }
  return queued.length ? `pull request #${pullRequest.number} at ${pullRequest.headSha.slice(0, 12)}: scan queued (${queued.join('; ')})` : null;
}


const LEVELS: Record<string, ScanAnnotation['level']> = { critical: 'failure', high: 'failure', medium: 'warning', low: 'notice' };
/** New findings the summary lists; the annotations name at most MAX_REPORT_ANNOTATIONS. */
const SUMMARY_LINES = 20;

/** The report of what a pull request introduces: its conclusion, title, Markdown summary and annotations. */
export function reportOf(
  introduced: RawFinding[],
  scanTypes: string[],
  partial?: string,
): { conclusion: 'success' | 'failure'; title: string; summary: string; annotations: ScanAnnotation[] } {
  const sorted = [...introduced].sort((a, b) => severityRank(a.severity) - severityRank(b.severity) || a.filePath.localeCompare(b.filePath) || a.startLine - b.startLine);
  const failing = sorted.filter((f) => atOrAbove(f.severity, FAILING_SEVERITY));
  const bySeverity = ['critical', 'high', 'medium', 'low'].map((s) => [s, sorted.filter((f) => f.severity === s).length] as const).filter(([, n]) => n > 0);
  const counted = bySeverity.map(([s, n]) => `${n} ${s}`).join(', ');
  const title = sorted.length ? `Bulwark: ${sorted.length} new finding${sorted.length === 1 ? '' : 's'} (${counted})` : 'Bulwark: no new findings';
  const lines = [
    sorted.length
      ? `This pull request introduces **${sorted.length}** finding${sorted.length === 1 ? '' : 's'} the branch it merges into does not have (${counted}).`
      : 'This pull request introduces no finding the branch it merges into does not have.',
    `Scanned: ${scanTypes.join(', ')}. It fails on a new finding of severity ${FAILING_SEVERITY} or more.`,
    // The head was larger than the scan budget: what was left out was not looked at.
    ...(partial ? ['', `> ${partial}`] : []),
  ];
  if (sorted.length) {
    lines.push('', '| Severity | Rule | Where |', '|---|---|---|');
    for (const f of sorted.slice(0, SUMMARY_LINES)) lines.push(`| ${f.severity} | \`${f.checkId.replace(/[`|]/g, '')}\` | \`${f.filePath.replace(/[`|]/g, '')}:${f.startLine}\` |`);
    if (sorted.length > SUMMARY_LINES) lines.push('', `…and ${sorted.length - SUMMARY_LINES} more.`);
  }
  return {
    conclusion: failing.length ? 'failure' : 'success',
    title,
    summary: lines.join('\n'),
    annotations: sorted.slice(0, MAX_REPORT_ANNOTATIONS).map((f) => ({
      path: f.filePath,
      startLine: f.startLine,
      endLine: Math.max(f.startLine, f.endLine ?? f.startLine),
      level: LEVELS[f.severity] ?? 'notice',
      title: `${f.severity}: ${f.checkId}`,
      message: f.message,
    })),
  };
}

/** Runs one queued scan of a pull request and publishes its report; a scan run again after it ended does nothing. */
export async function runPullRequestScan(deps: PullRequestScanDeps, scanId: string, context: JobContext): Promise<void> {
  const { db } = deps;
  const scan = await pullRequestScanById(db, scanId);
  if (!scan || (scan.status !== 'queued' && scan.status !== 'running')) return;
  await moveScanOfPullRequest(db, scan.id, ['queued', 'running'], { status: 'running' });
  const unit = await unitById(db, scan.unit_id);
  const source = unit?.sources.find((s) => s.id === scan.source_repo_id);
  if (!unit || !source) {
    await moveScanOfPullRequest(db, scan.id, ['running'], { status: 'failed', error_message: 'the repository is gone', completed_at: nowIso() });
    return;
  }
  const token = source.token_ciphertext ? deps.tokenBox.open(source.token_ciphertext) : null;
  const checkout = await deps.checkouts.checkoutCommit({ id: source.id, provider: source.provider, cloneUrl: source.clone_url, token }, scan.head_sha, `pr-scan-${scan.id}`, context.signal, true);
  const scanTypes = decodeJson<string[]>(scan.scan_types, []);
  const found: RawFinding[] = [];
  try {
    for (const scanType of scanTypes) {
      const engine = await deps.engines.engineFor(scanType);
      if (!engine) continue;
      found.push(
        ...(await engine.scan({
          dir: checkout.dir,
          gitDir: checkout.gitDir,
          commit: checkout.commit,
          signal: context.signal,
          fingerprintKey: deps.tokenBox.deriveKey('finding-fingerprints'),
          subject: source.full_name,
          cacheScope: scan.org_id,
        })),
      );
    }
  } finally {
    await checkout.dispose();
  }
  // The branch's findings are what the code there still has: a finding gone from it that the head has is new.
  const base = (await findingsOfSource(db, unit.id, source.id)).filter((f) => f.scan_verdict === 'present');
  const baseCommit = await lastScannedCommit(db, source.id);
  const renames = baseCommit
    ? await renamedFiles(checkout.gitDir, baseCommit, checkout.commit, { timeoutMs: deps.gitTimeoutMs, signal: context.signal }).catch(() => new Map<string, string>())
    : new Map<string, string>();
  const matches = matchFindings(base.map(identityOfFinding), found.map(identityOfDetection), renames);
  const introduced = found.filter((_, i) => matches[i] === undefined);
  const report = reportOf(introduced, scanTypes, checkout.budgetWarning);

  const last = await lastReportOf(db, unit.id, scan.pr_number, scan.created_at);
  const previous = last ? decodeJson<PublishedReport>(last.report, {}) : null;
  // A check run belongs to one commit: a new head gets its own; the note or thread carries on.
  if (previous && last?.head_sha !== scan.head_sha) delete previous.checkRunId;
  const client = deps.clients[source.provider];
  if (!client) throw new Error(`${codeHostLabel(source.provider)} has no client to publish on`);
  let published: PublishedReport;
  try {
    published = await client.publishScanReport({
      fullName: source.full_name,
      number: scan.pr_number,
      headSha: scan.head_sha,
      token: token ?? '',
      signal: context.signal,
      ...report,
      detailsUrl: deps.publicUrl ? `${deps.publicUrl.replace(/\/+$/, '')}/orgs/${scan.org_id}/repositories/${unit.id}` : null,
      previous,
    });
  } catch (error) {
    const message = scrub((error as Error).message, token ? [token] : []);
    await moveScanOfPullRequest(db, scan.id, ['running'], { status: 'failed', new_findings: introduced.length, summary: report.summary, error_message: message.slice(0, 2000), completed_at: nowIso() });
    deps.log?.('pull request report not published', { scan: scan.id, pr: scan.pr_number, error: message });
    return;
  }
  await moveScanOfPullRequest(db, scan.id, ['running'], { status: 'completed', new_findings: introduced.length, summary: report.summary, report: encodeJson(published), completed_at: nowIso() });
}

/** The worker's side: run a queued scan of a pull request; one given up on is failed with the reason. */
export function pullRequestScanJobs(deps: PullRequestScanDeps): JobHandlers {
  return {
    run: (key, context) => runPullRequestScan(deps, key, context),
    giveUp: async (key, reason) => {
      await moveScanOfPullRequest(deps.db, key, ['queued', 'running'], { status: 'failed', error_message: reason.slice(0, 2000), completed_at: nowIso() });
    },
  };
}
