import type { Kysely } from 'kysely';
import { maskSecretsIn } from '../scanning/secrets/mask-text.ts';
import { newId, nowIso } from '../ids.ts';
import type { FindingOutcome } from '../fixing/types.ts';
import { toFixFinding } from '../fixing/fix-finding.ts';
import { firstOverlap, fixedByTheSameChange, sameChangeLookup, type ClaimingFix } from '../fixing/fix-overlap.ts';
import { findingsByIds } from '../store/findings.ts';
import { decodeJson } from '../store/json-columns.ts';
import { CheckoutError } from '../scm/checkout-cache.ts';
import { defaultBranchName, InvalidBranchNameError, validateBranchName } from '../scm/pull-requests/branch-name.ts';
import {
  claimFixBranch,
  claimPullRequestOpening,
  findingsOfFix,
  findingsOfSameChange,
  fixOfUnit,
  insertFix,
  insertPullRequests,
  insertRefinement,
  linksOfFixes,
  liveFixFindings,
  moveFix,
  pageOfFixes,
  releasePullRequestOpening,
} from '../store/fixes.ts';
import type { Database, FindingRow, FixPullRequestRow, FixRow, SourceRepoRow } from '../store/schema.ts';
import { refundFixCredit } from './credits.ts';
import { BodyValueError, errors, invalidState, notFound } from './errors.ts';
import { recordEvent } from './finding-events.ts';
import type { OnCommit } from './idempotency.ts';
import type { PageRequest } from './pagination.ts';
import { PullRequestError } from './pull-request-errors.ts';
import type { Principal } from './principal.ts';
import { consumeCredit } from './quotas.ts';
import { FIX_STATUSES, type FixStatus } from './states/fix-status.ts';
import type { Unit } from './units.ts';

export { FIX_STATUSES, findingsOfFix, type FixStatus };


export interface FixView {
  fix: FixRow;
  findingIds: string[];
  pullRequests: FixPullRequestRow[];
}

/** What the fix's last run left to the user, and what it did about each finding. */
export function fixReport(fix: FixRow): { notes: string[]; outcomes: FindingOutcome[] } {
  return { notes: decodeJson<string[]>(fix.notes, []), outcomes: decodeJson<FindingOutcome[]>(fix.finding_outcomes, []) };
}

export interface FixCreateInput {
  finding_ids?: string[];
  title: string;
  instructions: string;
  source_repo: string;
  source_repo_provider?: string;
  source_scan_branch?: string | null;
}

export interface PullRequestInput {
  title?: string | null;
  body?: string | null;
  branch_name?: string | null;
}

/**
 * Hands run `run` of a fix to a worker, inside the transaction that made it runnable, so a run exists
 * exactly when its fix was committed.
 */
export type FixDispatcher = (trx: Kysely<Database>, fixId: string, run: number) => Promise<void>;

/** Opens pull requests for a completed fix on its code host. */
export interface PullRequestOpener {
  open(fix: FixView, unit: Unit, input: PullRequestInput): Promise<Omit<FixPullRequestRow, 'id' | 'fix_id'>[]>;
}

/** Findings by id, in the order of the ids; ids that name no finding are left out. */
export async function findingsInOrder(db: Kysely<Database>, findingIds: string[]): Promise<FindingRow[]> {
  const rows = await findingsByIds(db, findingIds);
  return findingIds.map((id) => rows.find((row) => row.id === id)).filter((row): row is FindingRow => row !== undefined);
}

/** Until a code-host integration is configured, a completed fix cannot be turned into pull requests. */
export const noPullRequestOpener: PullRequestOpener = {
  async open() {
    throw errors.prProviderUnavailable();
  },
};

async function hydrate(db: Kysely<Database>, fixes: FixRow[]): Promise<FixView[]> {
  const links = await linksOfFixes(db, fixes.map((f) => f.id));
  return fixes.map((fix) => ({ fix, findingIds: links.findingIds.get(fix.id)!, pullRequests: links.pullRequests.get(fix.id)! }));
}

export async function listFixes(
  db: Kysely<Database>,
  unit: Unit,
  filters: PageRequest & { findingId?: string },
): Promise<{ items: FixView[]; total: number }> {
  const { rows, total } = await pageOfFixes(db, unit.id, filters);
  return { items: await hydrate(db, rows), total };
}

async function findFix(db: Kysely<Database>, unit: Unit, fixId: string): Promise<FixRow> {
  const fix = await fixOfUnit(db, unit.id, fixId);
  if (!fix) throw notFound('Fix');
  return fix;
}

export async function getFix(db: Kysely<Database>, unit: Unit, fixId: string): Promise<FixView> {
  const [view] = await hydrate(db, [await findFix(db, unit, fixId)]);
  return view;
}

/** One event per finding of a fix, e.g. `fix_started` (a fix without findings records none). */
export async function recordFixEvents(
  db: Kysely<Database>,
  fixId: string,
  eventType: 'fix_started' | 'fix_completed' | 'fix_failed' | 'fix_cancelled' | 'fix_pr_created',
  metadata: Record<string, unknown> = {},
  actorKeyId: string | null = null,
): Promise<void> {
  const at = nowIso();
  for (const finding of await findingsOfFix(db, fixId)) {
    await recordEvent(db, { finding, eventType, actorKeyId, metadata: { fix_id: fixId, ...metadata }, at });
  }
}

/**
 * Whether a branch exists on a source repository now (asked of the repository by exact name, never
 * evaluated as a revision); a `CheckoutError` when the repository cannot be reached.
 */
export type SourceBranchCheck = (source: SourceRepoRow, branch: string) => Promise<boolean>;

export interface FixCreateOptions {
  dispatch: FixDispatcher;
  /** Checks an explicit `source_scan_branch` exists; without one only the name's form is checked. */
  sourceBranchExists?: SourceBranchCheck;
  /** Whether an LLM agent is configured to take what no deterministic fixer handles. */
  agentConfigured: boolean;
  /** Whether a deterministic fixer handles a finding. */
  hasFixer: (finding: FindingRow) => boolean;
  /** Runs in the transaction that stores the fix. */
  onCommit?: OnCommit<FixView>;
}

/**
 * Refuses, before anything is stored or charged, a fix that could never run: without an agent, every
 * finding needs a deterministic fixer, and a fix without findings (instructions only) needs the agent.
 */
function ensureFixable(findings: FindingRow[], options: FixCreateOptions): void {
  if (options.agentConfigured) return;
  const unhandled = findings.filter((f) => !options.hasFixer(f));
  if (!findings.length || unhandled.length) {
    throw errors.noFixerAvailable([...new Set(unhandled.map((f) => f.check_id))], unhandled.map((f) => f.id));
  }
}

/**
 * Refuses (409 FIX_OVERLAPS, naming the other fix) a fix of a finding whose change another live fix of the
 * same source repository already claims: the same lines, the same package of the same file, the same
 * secret value. The fixes of a repository then form one set whose diffs apply together; the diffs
 * themselves are held against each other again when a run completes (see fixing/fix-conflicts.ts).
 */
async function ensureApartFromLiveFixes(db: Kysely<Database>, unit: Unit, source: SourceRepoRow, findings: FindingRow[]): Promise<ClaimingFix[]> {
  if (!findings.length) return [];
  const live = await liveFixFindings(db, { unitId: unit.id, repo: source.full_name, provider: source.provider });
  const others = [...live].map(([fixId, rows]) => ({ fixId, findings: rows.map(toFixFinding) }));
  const overlap = firstOverlap(findings.map(toFixFinding), others);
  if (overlap) throw errors.fixOverlaps(overlap.findingId, overlap.fixId, overlap.reason);
  return others;
}

/**
 * The open findings of the source repository that the fix's change fixes too, folded into it so that one
 * change is one fix: the other places of a secret value it moves, the other credentials of the code files
 * it moves one from (the credential fixer moves a file's credentials together), the other advisories of a
 * package it upgrades in the same file. What is folded in widens the change (a folded credential's value is
 * moved from its other files too), so the fold is repeated until it takes nothing more. Findings another
 * live fix claims stay out.
 */
async function findingsFixedAlong(db: Kysely<Database>, unit: Unit, source: SourceRepoRow, findings: FindingRow[], live: ClaimingFix[]): Promise<FindingRow[]> {
  const mine = findings.map(toFixFinding);
  const taken = new Set(findings.map((f) => f.id));
  const folded: FindingRow[] = [];
  for (let round = 0; round < MAX_FOLD_ROUNDS && taken.size < MAX_FOLDED; round++) {
    const candidates = await findingsOfSameChange(db, { unitId: unit.id, sourceRepoId: source.id }, sameChangeLookup(mine));
    const added = candidates.filter((row) => {
      if (taken.has(row.id)) return false;
      const candidate = toFixFinding(row);
      return fixedByTheSameChange(candidate, mine) && !firstOverlap([candidate], live);
    });
    if (!added.length) break;
    for (const row of added.slice(0, MAX_FOLDED - taken.size)) {
      taken.add(row.id);
      folded.push(row);
      mine.push(toFixFinding(row));
    }
  }
  return folded;
}

/** Bounds of the fold: rounds of widening, and findings in one fix. */
const MAX_FOLD_ROUNDS = 8;
const MAX_FOLDED = 500;

/**
 * Stores a pending fix for the given findings, taking one `prs` credit, writing `fix_created` events and
 * queueing its run; a fix nothing could carry out is refused first (409 NO_FIXER_AVAILABLE).
 */
export async function createFix(
  db: Kysely<Database>,
  principal: Principal,
  unit: Unit,
  input: FixCreateInput,
  options: FixCreateOptions,
): Promise<FixView> {
  const provider = input.source_repo_provider ?? 'github';
  const source = unit.sources.find((s) => s.full_name === input.source_repo && s.provider === provider);
  if (!source) {
    throw new BodyValueError(
      ['body', 'source_repo'],
      `Value error, ${provider} repository "${input.source_repo}" is not a source of this repository`,
      input.source_repo,
    );
  }
  const scanBranch = await checkedScanBranch(source, input.source_scan_branch, options.sourceBranchExists);
  const findingIds = [...new Set(input.finding_ids ?? [])];
  return db.transaction().execute(async (trx) => {
    const found = await findingsByIds(trx, findingIds, unit.id);
    const findings = findingIds.map((id) => {
      const finding = found.find((f) => f.id === id);
      if (!finding) throw notFound(`Finding ${id}`);
      return finding;
    });
    ensureFixable(findings, options);
    const period = await consumeCredit(trx, principal.orgId, 'prs');
    // After the quota, so an exhausted quota is told first; the refusal rolls the credit back with the rest.
    const live = await ensureApartFromLiveFixes(trx, unit, source, findings);
    for (const folded of await findingsFixedAlong(trx, unit, source, findings, live)) {
      findings.push(folded);
      findingIds.push(folded.id);
    }
    const now = nowIso();
    const fix: FixRow = {
      id: newId(),
      org_id: principal.orgId,
      unit_id: unit.id,
      // Free text a caller wrote is kept, and later shown and sent to a code host or an agent, masked.
      title: maskSecretsIn(input.title),
      instructions: maskSecretsIn(input.instructions),
      status: 'pending',
      source_repo: source.full_name,
      source_repo_provider: source.provider,
      source_scan_branch: scanBranch ?? source.default_branch,
      source_base_commit_sha: null,
      error_message: null,
      diff: null,
      diff_ciphertext: null,
      agent_steps_completed: 0,
      agent_input_tokens: 0,
      agent_output_tokens: 0,
      verification: null,
      notes: null,
      finding_outcomes: null,
      current_step: null,
      runs: 1,
      run_attempt: 0,
      pr_opening_since: null,
      quota_period_start: period.start,
      credit_refunded_at: null,
      latest_activity_at: null,
      created_by_key_id: principal.keyId,
      created_at: now,
      started_at: null,
      completed_at: null,
      updated_at: now,
    };
    await insertFix(trx, fix, findingIds);
    for (const finding of findings) {
      await recordEvent(trx, { finding, eventType: 'fix_created', actorKeyId: principal.keyId, metadata: { fix_id: fix.id }, at: now });
    }
    await options.dispatch(trx, fix.id, fix.runs);
    const view: FixView = { fix, findingIds, pullRequests: [] };
    await options.onCommit?.(trx, view);
    return view;
  });
}

/**
 * An explicit `source_scan_branch`, refused with a 422 unless it is a well-formed branch name (git's rules
 * and a safe character set) that exists on the source repository; null when none is given.
 */
async function checkedScanBranch(source: SourceRepoRow, branch: string | null | undefined, exists?: SourceBranchCheck): Promise<string | null> {
  if (branch === null || branch === undefined) return null;
  const refuse = (why: string) => new BodyValueError(['body', 'source_scan_branch'], `Value error, ${why}`, branch);
  try {
    await validateBranchName(branch);
  } catch (error) {
    if (error instanceof InvalidBranchNameError) throw refuse(error.message);
    throw error;
  }
  if (!exists) return branch;
  let found: boolean;
  try {
    found = await exists(source, branch);
  } catch (error) {
    if (error instanceof CheckoutError) throw refuse(`the branches of ${source.full_name} could not be read: ${error.message}`);
    throw error;
  }
  if (!found) throw refuse(`branch "${branch}" does not exist in ${source.full_name}`);
  return branch;
}

/**
 * Moves a fix from one of `from` to `to`, atomically; 409 when another state already holds. Returns the
 * fix as it was moved from (its `status` the one the move applied to).
 */
async function transition(
  db: Kysely<Database>,
  unit: Unit,
  fixId: string,
  from: FixStatus[],
  changes: Partial<FixRow> & { status: FixStatus },
  refusal: (status: string) => string,
): Promise<FixRow> {
  const fix = await findFix(db, unit, fixId);
  if (!from.includes(fix.status)) throw invalidState(refusal(fix.status));
  const { status, ...rest } = changes;
  if (!(await moveFix(db, fix.id, status, rest, { from: [fix.status] }))) {
    const current = await findFix(db, unit, fixId);
    throw invalidState(refusal(current.status));
  }
  return fix;
}

/**
 * Stops a pending or running fix; its worker sees the status within a second and stops its run. A fix
 * cancelled before it started gives its credit back.
 */
export async function cancelFix(db: Kysely<Database>, principal: Principal, unit: Unit, fixId: string): Promise<FixView> {
  await db.transaction().execute(async (trx) => {
    const now = nowIso();
    const before = await transition(
      trx,
      unit,
      fixId,
      ['pending', 'running'],
      { status: 'cancelled', completed_at: now, latest_activity_at: now },
      (status) => `Only a pending or running fix can be cancelled; this fix is ${status}`,
    );
    if (before.status === 'pending') await refundFixCredit(trx, before);
    await recordFixEvents(trx, fixId, 'fix_cancelled', {}, principal.keyId);
  });
  return getFix(db, unit, fixId);
}

export interface RefineOptions {
  dispatch: FixDispatcher;
  /** Whether an LLM is configured: only the agent can follow free-text follow-up instructions. */
  agentConfigured: boolean;
}

/** Sends a completed fix back to the agent with follow-up instructions. */
export async function refineFix(
  db: Kysely<Database>,
  principal: Principal,
  unit: Unit,
  fixId: string,
  instructions: string,
  options: RefineOptions,
): Promise<FixView> {
  const current = await getFix(db, unit, fixId);
  if (current.fix.status !== 'completed') throw invalidState(`Only a completed fix can be refined; this fix is ${current.fix.status}`);
  const [pullRequest] = current.pullRequests;
  if (pullRequest) throw invalidState(`This fix already has a pull request (${pullRequest.pr_url}); create a new fix to change it further`);
  if (!options.agentConfigured) {
    throw errors.agentUnavailable('Refining a fix');
  }
  await db.transaction().execute(async (trx) => {
    const fix = await findFix(trx, unit, fixId);
    await transition(
      trx,
      unit,
      fixId,
      ['completed'],
      // A refinement is a new run: its timings and step count start afresh.
      { status: 'pending', started_at: null, completed_at: null, error_message: null, agent_steps_completed: 0, runs: fix.runs + 1 },
      (status) => `Only a completed fix can be refined; this fix is ${status}`,
    );
    await insertRefinement(trx, { id: newId(), fix_id: fixId, instructions: maskSecretsIn(instructions), created_by_key_id: principal.keyId, created_at: nowIso() });
    await options.dispatch(trx, fixId, fix.runs + 1);
  });
  return getFix(db, unit, fixId);
}

export async function openPullRequests(
  db: Kysely<Database>,
  opener: PullRequestOpener,
  unit: Unit,
  fixId: string,
  input: PullRequestInput,
  onCommit?: OnCommit<FixPullRequestRow[]>,
): Promise<FixPullRequestRow[]> {
  const requested = await requestedBranch(input.branch_name);
  const view = await getFix(db, unit, fixId);
  if (view.fix.status !== 'completed' && view.fix.status !== 'pr_creation_failed') {
    throw invalidState(`Pull requests can only be opened for a completed fix; this fix is ${view.fix.status}`);
  }
  if (!view.fix.diff) throw invalidState('This fix produced no changes, so there is nothing to open a pull request for');
  if (view.pullRequests.length) throw invalidState(`This fix already has a pull request: ${view.pullRequests[0]!.pr_url}`);
  const provider = view.fix.source_repo_provider ?? 'github';
  if (!unit.sources.some((s) => s.full_name === view.fix.source_repo && s.provider === provider)) {
    throw invalidState(`The fix's ${provider} repository "${view.fix.source_repo}" is no longer one of its sources`);
  }
  const staleBefore = new Date(Date.now() - PULL_REQUEST_CLAIM_MS).toISOString();
  if (!(await claimPullRequestOpening(db, view.fix, staleBefore))) {
    throw invalidState('A pull request for this fix is already being opened, or the fix changed meanwhile; read it again');
  }
  try {
    const branch = requested ?? defaultBranchName(view.fix.id);
    if ((await claimFixBranch(db, view.fix, branch)) !== view.fix.id) {
      throw errors.branchNameTaken(branch, `${provider} repository ${view.fix.source_repo}`);
    }
    return await openClaimed(db, opener, unit, view, { ...input, branch_name: branch }, onCommit);
  } finally {
    await releasePullRequestOpening(db, view.fix.id);
  }
}

/** The caller's branch name checked as git checks one (422 otherwise), or null for the fix's default branch. */
async function requestedBranch(name: string | null | undefined): Promise<string | null> {
  if (name === null || name === undefined || name === '') return null;
  try {
    return await validateBranchName(name);
  } catch (error) {
    if (error instanceof InvalidBranchNameError) throw new BodyValueError(['body', 'branch_name'], `Value error, ${error.message}`, name);
    throw error;
  }
}

/** A claim older than this belongs to a request that died; the opener's deadline (at most 600 s) ends attempts well within it. */
const PULL_REQUEST_CLAIM_MS = 15 * 60 * 1000;

async function openClaimed(
  db: Kysely<Database>,
  opener: PullRequestOpener,
  unit: Unit,
  view: FixView,
  input: PullRequestInput,
  onCommit: OnCommit<FixPullRequestRow[]> | undefined,
): Promise<FixPullRequestRow[]> {
  const onThisRun = { from: ['completed', 'pr_creation_failed'] as FixStatus[], runs: view.fix.runs };
  let opened;
  try {
    opened = await opener.open(view, unit, input);
  } catch (error) {
    if (!(error instanceof PullRequestError)) throw error;
    await moveFix(db, view.fix.id, 'pr_creation_failed', { error_message: error.message }, onThisRun);
    // The fix stays retryable; src/http/errors.ts answers 502 PR_CREATION_FAILED, or 504 PR_TIMEOUT past the deadline.
    // A missing or refused token (PullRequestTokenError) is the caller's to fix: the fix keeps its status.
    throw error;
  }
  const rows: FixPullRequestRow[] = opened.map((pr) => ({ ...pr, id: newId(), fix_id: view.fix.id }));
  await db.transaction().execute(async (trx) => {
    await insertPullRequests(trx, rows);
    await moveFix(trx, view.fix.id, 'completed', { error_message: null }, onThisRun);
    for (const pr of rows) await recordFixEvents(trx, view.fix.id, 'fix_pr_created', { pr_url: pr.pr_url, pr_number: pr.pr_number });
    await onCommit?.(trx, rows);
  });
  return rows;
}
