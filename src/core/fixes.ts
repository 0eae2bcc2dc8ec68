import type { Kysely } from 'kysely';
import { newId, nowIso } from '../ids.ts';
import type { Database, FindingRow, FixPullRequestRow, FixRow } from '../store/schema.ts';
import { BodyValueError, errors, invalidState, notFound } from './errors.ts';
import { recordEvent } from './finding-events.ts';
import { PullRequestError } from './pull-request-errors.ts';
import { newestFirst, type PageRequest } from './pagination.ts';
import type { Principal } from './principal.ts';
import { consumeCredit } from './quotas.ts';
import type { Unit } from './units.ts';

export const FIX_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled', 'pr_creation_failed'] as const;
export type FixStatus = (typeof FIX_STATUSES)[number];

export interface FixView {
  fix: FixRow;
  findingIds: string[];
  pullRequests: FixPullRequestRow[];
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

/** Until a code-host integration is configured, a completed fix cannot be turned into pull requests. */
export const noPullRequestOpener: PullRequestOpener = {
  async open() {
    throw errors.prProviderUnavailable();
  },
};

async function hydrate(db: Kysely<Database>, fixes: FixRow[]): Promise<FixView[]> {
  if (!fixes.length) return [];
  const ids = fixes.map((f) => f.id);
  const [links, prs] = await Promise.all([
    db.selectFrom('fix_findings').selectAll().where('fix_id', 'in', ids).orderBy('position').execute(),
    db.selectFrom('fix_pull_requests').selectAll().where('fix_id', 'in', ids).orderBy('created_at').execute(),
  ]);
  return fixes.map((fix) => ({
    fix,
    findingIds: links.filter((l) => l.fix_id === fix.id).map((l) => l.finding_id),
    pullRequests: prs.filter((p) => p.fix_id === fix.id),
  }));
}

export async function listFixes(
  db: Kysely<Database>,
  unit: Unit,
  filters: PageRequest & { findingId?: string },
): Promise<{ items: FixView[]; total: number }> {
  let query = db.selectFrom('fixes').where('unit_id', '=', unit.id);
  if (filters.findingId) {
    const findingId = filters.findingId;
    query = query.where('id', 'in', (eb) =>
      eb.selectFrom('fix_findings').select('fix_id').where('finding_id', '=', findingId),
    );
  }
  const { rows, total } = await newestFirst(query, filters);
  return { items: await hydrate(db, rows), total };
}

async function findFix(db: Kysely<Database>, unit: Unit, fixId: string): Promise<FixRow> {
  const fix = await db.selectFrom('fixes').selectAll().where('id', '=', fixId).where('unit_id', '=', unit.id).executeTakeFirst();
  if (!fix) throw notFound('Fix');
  return fix;
}

export async function getFix(db: Kysely<Database>, unit: Unit, fixId: string): Promise<FixView> {
  const [view] = await hydrate(db, [await findFix(db, unit, fixId)]);
  return view;
}

/** The findings of a fix, in the order they were given. */
export async function findingsOfFix(db: Kysely<Database>, fixId: string): Promise<FindingRow[]> {
  return db
    .selectFrom('fix_findings')
    .innerJoin('findings', 'findings.id', 'fix_findings.finding_id')
    .selectAll('findings')
    .where('fix_findings.fix_id', '=', fixId)
    .orderBy('fix_findings.position')
    .execute();
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

/** Stores a pending fix for the given findings, taking one `prs` credit, writing `fix_created` events and queueing its run. */
export async function createFix(
  db: Kysely<Database>,
  principal: Principal,
  unit: Unit,
  input: FixCreateInput,
  dispatch: FixDispatcher,
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
  const findingIds = [...new Set(input.finding_ids ?? [])];
  return db.transaction().execute(async (trx) => {
    let findings: FindingRow[] = [];
    if (findingIds.length) {
      findings = await trx.selectFrom('findings').selectAll().where('unit_id', '=', unit.id).where('id', 'in', findingIds).execute();
      const missing = findingIds.find((id) => !findings.some((f) => f.id === id));
      if (missing) throw notFound(`Finding ${missing}`);
    }
    await consumeCredit(trx, principal.orgId, 'prs');
    const now = nowIso();
    const fix: FixRow = {
      id: newId(),
      org_id: principal.orgId,
      unit_id: unit.id,
      title: input.title,
      instructions: input.instructions,
      status: 'pending',
      source_repo: source.full_name,
      source_repo_provider: source.provider,
      source_scan_branch: input.source_scan_branch ?? source.default_branch,
      source_base_commit_sha: null,
      error_message: null,
      diff: null,
      diff_ciphertext: null,
      agent_steps_completed: 0,
      agent_input_tokens: 0,
      agent_output_tokens: 0,
      verification: null,
      runs: 1,
      run_attempt: 0,
      pr_opening_since: null,
      latest_activity_at: null,
      created_by_key_id: principal.keyId,
      created_at: now,
      started_at: null,
      completed_at: null,
      updated_at: now,
    };
    await trx.insertInto('fixes').values(fix).execute();
    if (findingIds.length) {
      await trx
        .insertInto('fix_findings')
        .values(findingIds.map((finding_id, position) => ({ fix_id: fix.id, finding_id, position })))
        .execute();
    }
    for (const finding of findingIds.map((id) => findings.find((f) => f.id === id)!)) {
      await recordEvent(trx, {
        finding,
        eventType: 'fix_created',
        actorKeyId: principal.keyId,
        metadata: { fix_id: fix.id },
        at: now,
      });
    }
    await dispatch(trx, fix.id, fix.runs);
    return { fix, findingIds, pullRequests: [] };
  });
}

/** Moves a fix from one of `from` to `to`, atomically; 409 when another state already holds. */
async function transition(
  db: Kysely<Database>,
  unit: Unit,
  fixId: string,
  from: FixStatus[],
  changes: Partial<FixRow> & { status: FixStatus },
  refusal: (status: string) => string,
): Promise<FixRow> {
  const fix = await findFix(db, unit, fixId);
  if (!from.includes(fix.status as FixStatus)) throw invalidState(refusal(fix.status));
  const now = nowIso();
  const result = await db
    .updateTable('fixes')
    .set({ ...changes, updated_at: now })
    .where('id', '=', fix.id)
    .where('status', '=', fix.status)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) {
    const current = await findFix(db, unit, fixId);
    throw invalidState(refusal(current.status));
  }
  return { ...fix, ...changes, updated_at: now };
}

/** Stops a pending or running fix; its worker sees the status within a second and stops its run. */
export async function cancelFix(db: Kysely<Database>, principal: Principal, unit: Unit, fixId: string): Promise<FixView> {
  await db.transaction().execute(async (trx) => {
    const now = nowIso();
    await transition(
      trx,
      unit,
      fixId,
      ['pending', 'running'],
      { status: 'cancelled', completed_at: now, latest_activity_at: now },
      (status) => `Only a pending or running fix can be cancelled; this fix is ${status}`,
    );
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
  const current = await findFix(db, unit, fixId);
  if (current.status !== 'completed') throw invalidState(`Only a completed fix can be refined; this fix is ${current.status}`);
  const [pullRequest] = await db.selectFrom('fix_pull_requests').select('pr_url').where('fix_id', '=', fixId).limit(1).execute();
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
    await trx
      .insertInto('fix_refinements')
      .values({ id: newId(), fix_id: fixId, instructions, created_by_key_id: principal.keyId, created_at: nowIso() })
      .execute();
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
): Promise<FixPullRequestRow[]> {
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
  await claimPullRequest(db, view.fix);
  try {
    return await openClaimed(db, opener, unit, view, input);
  } finally {
    await db.updateTable('fixes').set({ pr_opening_since: null }).where('id', '=', view.fix.id).execute();
  }
}

/** A claim older than this belongs to a request that died; the opener's deadline (at most 600 s) ends attempts well within it. */
const PULL_REQUEST_CLAIM_MS = 15 * 60 * 1000;

/** Marks the fix as having its pull request opened by this request; 409 while another request is at it. */
async function claimPullRequest(db: Kysely<Database>, fix: FixRow): Promise<void> {
  const now = nowIso();
  const staleBefore = new Date(Date.now() - PULL_REQUEST_CLAIM_MS).toISOString();
  const claimed = await db
    .updateTable('fixes')
    .set({ pr_opening_since: now })
    .where('id', '=', fix.id)
    .where('status', 'in', ['completed', 'pr_creation_failed'])
    .where('runs', '=', fix.runs)
    .where((eb) => eb.or([eb('pr_opening_since', 'is', null), eb('pr_opening_since', '<', staleBefore)]))
    .where((eb) => eb.not(eb.exists(eb.selectFrom('fix_pull_requests').select('id').where('fix_id', '=', fix.id))))
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 0) {
    throw invalidState('A pull request for this fix is already being opened, or the fix changed meanwhile; read it again');
  }
}

async function openClaimed(
  db: Kysely<Database>,
  opener: PullRequestOpener,
  unit: Unit,
  view: FixView,
  input: PullRequestInput,
): Promise<FixPullRequestRow[]> {
  let opened;
  try {
    opened = await opener.open(view, unit, input);
  } catch (error) {
    if (!(error instanceof PullRequestError)) throw error;
    await db
      .updateTable('fixes')
      .set({ status: 'pr_creation_failed', error_message: error.message, updated_at: nowIso() })
      .where('id', '=', view.fix.id)
      .where('status', 'in', ['completed', 'pr_creation_failed'])
      .where('runs', '=', view.fix.runs)
      .execute();
    // The fix stays retryable; src/http/errors.ts answers 502 PR_CREATION_FAILED, or 504 PR_TIMEOUT past the deadline.
    throw error;
  }
  const rows: FixPullRequestRow[] = opened.map((pr) => ({ ...pr, id: newId(), fix_id: view.fix.id }));
  await db.transaction().execute(async (trx) => {
    if (rows.length) await trx.insertInto('fix_pull_requests').values(rows).execute();
    await trx
      .updateTable('fixes')
      .set({ status: 'completed', error_message: null, updated_at: nowIso() })
      .where('id', '=', view.fix.id)
      .where('status', 'in', ['completed', 'pr_creation_failed'])
      .where('runs', '=', view.fix.runs)
      .execute();
    for (const pr of rows) await recordFixEvents(trx, view.fix.id, 'fix_pr_created', { pr_url: pr.pr_url, pr_number: pr.pr_number });
  });
  return rows;
}
