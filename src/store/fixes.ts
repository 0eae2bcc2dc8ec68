import { sql, type Kysely } from 'kysely';
import { FIX_STATUS, type FixStatus } from '../core/states/fix-status.ts';
import type { PageRequest } from '../core/pagination.ts';
import { isPostgres } from './dialect.ts';
import { newestFirst } from './pagination.ts';
import { nowIso } from '../ids.ts';
import type { Database, FindingRow, FixPullRequestRow, FixRow } from './schema.ts';

// The fixes table and the tables that hang off it (fix_findings, fix_pull_requests, fix_refinements).
// Every status write is a guarded transition: it applies only from a status the fix machine allows
// the move from (and from the caller's narrower set, when given), and says whether it applied.

export interface FixLinks {
  findingIds: Map<string, string[]>;
  pullRequests: Map<string, FixPullRequestRow[]>;
}

export async function insertFix(db: Kysely<Database>, fix: FixRow, findingIds: string[]): Promise<void> {
  await db.insertInto('fixes').values(fix).execute();
  if (findingIds.length) {
    await db
      .insertInto('fix_findings')
      .values(findingIds.map((finding_id, position) => ({ fix_id: fix.id, finding_id, position })))
      .execute();
  }
}

export async function fixById(db: Kysely<Database>, fixId: string): Promise<FixRow | undefined> {
  return db.selectFrom('fixes').selectAll().where('id', '=', fixId).executeTakeFirst();
}

export async function fixOfUnit(db: Kysely<Database>, unitId: string, fixId: string): Promise<FixRow | undefined> {
  return db.selectFrom('fixes').selectAll().where('id', '=', fixId).where('unit_id', '=', unitId).executeTakeFirst();
}

export async function pageOfFixes(
  db: Kysely<Database>,
  unitId: string,
  filters: PageRequest & { findingId?: string },
): Promise<{ rows: FixRow[]; total: number }> {
  let query = db.selectFrom('fixes').where('unit_id', '=', unitId);
  if (filters.findingId) {
    const findingId = filters.findingId;
    query = query.where('id', 'in', (eb) => eb.selectFrom('fix_findings').select('fix_id').where('finding_id', '=', findingId));
  }
  return newestFirst(query, filters);
}

/** The finding ids (in the order given) and pull requests of each fix. */
export async function linksOfFixes(db: Kysely<Database>, fixIds: string[]): Promise<FixLinks> {
  const findingIds = new Map<string, string[]>(fixIds.map((id) => [id, []]));
  const pullRequests = new Map<string, FixPullRequestRow[]>(fixIds.map((id) => [id, []]));
  if (!fixIds.length) return { findingIds, pullRequests };
  const [links, prs] = await Promise.all([
    db.selectFrom('fix_findings').selectAll().where('fix_id', 'in', fixIds).orderBy('position').execute(),
    db.selectFrom('fix_pull_requests').selectAll().where('fix_id', 'in', fixIds).orderBy('created_at').execute(),
  ]);
  for (const link of links) findingIds.get(link.fix_id)!.push(link.finding_id);
  for (const pr of prs) pullRequests.get(pr.fix_id)!.push(pr);
  return { findingIds, pullRequests };
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

/** Which run and attempt a write belongs to: it applies only while the fix is still on that run (and attempt). */
export interface RunGuard {
  runs?: number;
  runAttempt?: number;
  /** Only an earlier attempt may be taken over. */
  attemptBefore?: number;
}

/**
 * Moves a fix to `to` when its status is one the machine allows the move from (narrowed to `from`
 * when given) and the run guard holds. `updated_at` is set with it. True when it applied.
 */
export async function moveFix(
  db: Kysely<Database>,
  fixId: string,
  to: FixStatus,
  changes: Partial<Omit<FixRow, 'id' | 'status'>> = {},
  options: { from?: FixStatus[] } & RunGuard = {},
): Promise<boolean> {
  const allowed = FIX_STATUS.sourcesOf(to).filter((s) => !options.from || options.from.includes(s));
  if (!allowed.length) return false;
  return guardedUpdate(db, fixId, allowed, { ...changes, status: to }, options);
}

/** Changes a fix that is still in `status` on the guarded run, without moving it; true when it applied. */
export async function updateFixIn(
  db: Kysely<Database>,
  fixId: string,
  status: FixStatus,
  changes: Partial<Omit<FixRow, 'id' | 'status'>>,
  guard: RunGuard = {},
): Promise<boolean> {
  return guardedUpdate(db, fixId, [status], changes, guard);
}

async function guardedUpdate(db: Kysely<Database>, fixId: string, statuses: FixStatus[], changes: Partial<FixRow>, guard: RunGuard): Promise<boolean> {
  let query = db.updateTable('fixes').set({ ...changes, updated_at: nowIso() }).where('id', '=', fixId).where('status', 'in', statuses);
  if (guard.runs !== undefined) query = query.where('runs', '=', guard.runs);
  if (guard.runAttempt !== undefined) query = query.where('run_attempt', '=', guard.runAttempt);
  if (guard.attemptBefore !== undefined) query = query.where('run_attempt', '<', guard.attemptBefore);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Records the commit a fix's first run checked out; later runs start from it. */
export async function setFixBaseCommit(db: Kysely<Database>, fixId: string, sha: string): Promise<void> {
  await db.updateTable('fixes').set({ source_base_commit_sha: sha }).where('id', '=', fixId).where('source_base_commit_sha', 'is', null).execute();
}

/** Marks the fix's credit as given back; true only for the one call that marked it. */
export async function markFixCreditRefunded(db: Kysely<Database>, fixId: string): Promise<boolean> {
  const result = await db
    .updateTable('fixes')
    .set({ credit_refunded_at: nowIso() })
    .where('id', '=', fixId)
    .where('credit_refunded_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Claims the opening of a fix's pull request for this request: the fix is completed (or its last
 * attempt failed) on the same run, no claim younger than `staleBefore` holds, and it has none yet.
 */
export async function claimPullRequestOpening(db: Kysely<Database>, fix: FixRow, staleBefore: string): Promise<boolean> {
  const claimed = await db
    .updateTable('fixes')
    .set({ pr_opening_since: nowIso() })
    .where('id', '=', fix.id)
    .where('status', 'in', ['completed', 'pr_creation_failed'])
    .where('runs', '=', fix.runs)
    .where((eb) => eb.or([eb('pr_opening_since', 'is', null), eb('pr_opening_since', '<', staleBefore)]))
    .where((eb) => eb.not(eb.exists(eb.selectFrom('fix_pull_requests').select('id').where('fix_id', '=', fix.id))))
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) > 0;
}

export async function releasePullRequestOpening(db: Kysely<Database>, fixId: string): Promise<void> {
  await db.updateTable('fixes').set({ pr_opening_since: null }).where('id', '=', fixId).execute();
}

export async function insertPullRequests(db: Kysely<Database>, rows: FixPullRequestRow[]): Promise<void> {
  if (rows.length) await db.insertInto('fix_pull_requests').values(rows).execute();
}

export async function insertRefinement(
  db: Kysely<Database>,
  row: { id: string; fix_id: string; instructions: string; created_by_key_id: string | null; created_at: string },
): Promise<void> {
  await db.insertInto('fix_refinements').values(row).execute();
}

/** The follow-up instructions of a fix, oldest first. */
export async function refinementsOf(db: Kysely<Database>, fixId: string): Promise<string[]> {
  const rows = await db.selectFrom('fix_refinements').select('instructions').where('fix_id', '=', fixId).orderBy('created_at').execute();
  return rows.map((r) => r.instructions);
}

/** How many fixes there are in each status. */
export async function countFixesByStatus(db: Kysely<Database>): Promise<{ status: string; count: number }[]> {
  const rows = await db.selectFrom('fixes').select(['status', (eb) => eb.fn.countAll<number>().as('count')]).groupBy('status').execute();
  return rows.map((r) => ({ status: r.status, count: Number(r.count) }));
}

/**
 * Takes `branch` of the fix's source repository for the fix, unless another fix of the organization
 * holds it; returns the id of the fix that holds it (the given fix when taken now or earlier).
 */
export async function claimFixBranch(db: Kysely<Database>, fix: FixRow, branch: string): Promise<string> {
  const key = { org_id: fix.org_id, source_repo_provider: fix.source_repo_provider ?? 'github', source_repo: fix.source_repo ?? '', branch_name: branch };
  await db
    .insertInto('fix_branches')
    .values({ ...key, fix_id: fix.id, created_at: nowIso() })
    .onConflict((oc) => oc.columns(['org_id', 'source_repo_provider', 'source_repo', 'branch_name']).doNothing())
    .execute();
  const holder = await db
    .selectFrom('fix_branches')
    .select('fix_id')
    .where('org_id', '=', key.org_id)
    .where('source_repo_provider', '=', key.source_repo_provider)
    .where('source_repo', '=', key.source_repo)
    .where('branch_name', '=', key.branch_name)
    .executeTakeFirstOrThrow();
  return holder.fix_id;
}

/** Statuses of a fix that still stands for its repository: it will run, runs, or has a diff someone may merge. */
const LIVE_FIX_STATUSES: FixStatus[] = ['pending', 'running', 'completed', 'pr_creation_failed'];

/**
 * The live fixes of a unit's source repository (but `exceptFixId`) and their findings that scans still
 * detect; a fix all of whose findings are gone (its pull request merged, the code changed) is left out.
 */
export async function liveFixFindings(
  db: Kysely<Database>,
  source: { unitId: string; repo: string; provider: string },
  exceptFixId?: string,
): Promise<Map<string, FindingRow[]>> {
  let query = db
    .selectFrom('fixes')
    .innerJoin('fix_findings', 'fix_findings.fix_id', 'fixes.id')
    .innerJoin('findings', 'findings.id', 'fix_findings.finding_id')
    .selectAll('findings')
    .select('fixes.id as live_fix_id')
    .where('fixes.unit_id', '=', source.unitId)
    .where('fixes.source_repo', '=', source.repo)
    .where('fixes.source_repo_provider', '=', source.provider)
    .where('fixes.status', 'in', LIVE_FIX_STATUSES)
    .where('findings.scan_verdict', '=', 'present');
  if (exceptFixId) query = query.where('fixes.id', '!=', exceptFixId);
  const rows = await query.orderBy('fixes.created_at').orderBy('fixes.id').orderBy('fix_findings.position').execute();
  const byFix = new Map<string, FindingRow[]>();
  for (const { live_fix_id, ...finding } of rows) byFix.set(live_fix_id, [...(byFix.get(live_fix_id) ?? []), finding as FindingRow]);
  return byFix;
}

/** The completed fixes (pull request opened or not) of a unit's source repository made from `baseCommit`, but `exceptFixId`. */
export async function completedFixesAtCommit(
  db: Kysely<Database>,
  source: { unitId: string; repo: string; provider: string },
  baseCommit: string,
  exceptFixId: string,
): Promise<Pick<FixRow, 'id' | 'diff_ciphertext'>[]> {
  return db
    .selectFrom('fixes')
    .select(['id', 'diff_ciphertext'])
    .where('unit_id', '=', source.unitId)
    .where('source_repo', '=', source.repo)
    .where('source_repo_provider', '=', source.provider)
    .where('source_base_commit_sha', '=', baseCommit)
    .where('status', 'in', ['completed', 'pr_creation_failed'])
    .where('diff_ciphertext', 'is not', null)
    .where('id', '!=', exceptFixId)
    .orderBy('completed_at')
    .orderBy('id')
    .execute();
}

/**
 * Within a transaction, waits for any other transaction completing a fix of the unit, so fixes of one
 * repository complete one at a time (SQLite runs one writing transaction at a time already).
 */
export async function lockFixCompletionsOfUnit(db: Kysely<Database>, unitId: string): Promise<void> {
  if (isPostgres(db)) await sql`select pg_advisory_xact_lock(hashtextextended(${`fix-completion:${unitId}`}, 0))`.execute(db);
}

/**
 * The open findings of a unit's source repository, still detected, that one change fixes together with
 * others: detected secrets of the given values (their anchor is the value's hash), the credentials of the given
 * code files and dependency advisories in the given files. The caller picks the ones that belong with its findings.
 */
export async function findingsOfSameChange(
  db: Kysely<Database>,
  source: { unitId: string; sourceRepoId: string },
  of: { secretHashes: string[]; dependencyFiles: string[]; credentialFiles: string[] },
): Promise<FindingRow[]> {
  if (!of.secretHashes.length && !of.dependencyFiles.length && !of.credentialFiles.length) return [];
  return db
    .selectFrom('findings')
    .selectAll()
    .where('unit_id', '=', source.unitId)
    .where('source_repo_id', '=', source.sourceRepoId)
    .where('scan_verdict', '=', 'present')
    .where('status', '=', 'open')
    .where((eb) =>
      eb.or([
        ...(of.secretHashes.length ? [eb.and([eb('category', '=', 'secrets'), eb('anchor', 'in', of.secretHashes)])] : []),
        ...(of.dependencyFiles.length ? [eb.and([eb('category', '=', 'dependency'), eb('file_path', 'in', of.dependencyFiles)])] : []),
        ...(of.credentialFiles.length ? [eb.and([eb('category', '=', 'secrets'), eb('file_path', 'in', of.credentialFiles)])] : []),
      ]),
    )
    .orderBy('file_path')
    .orderBy('start_line')
    .orderBy('id')
    .limit(500)
    .execute();
}
