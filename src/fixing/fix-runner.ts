import { setTimeout as sleep } from 'node:timers/promises';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { refundFixCredit } from '../core/credits.ts';
import { AGENT_SETTINGS } from '../config.ts';
import { recordFixEvents } from '../core/fixes.ts';
import type { TokenBox } from '../crypto/token-box.ts';
import { nowIso } from '../ids.ts';
import type { JobContext, JobHandlers } from '../jobs/queue.ts';
import { CheckoutError, type CheckoutCache } from '../scm/checkout-cache.ts';
import { git, GitError } from '../scm/git-command.ts';
import {
  completedFixesAtCommit,
  findingsOfFix,
  fixById,
  lockFixCompletionsOfUnit,
  moveFix,
  refinementsOf,
  setFixBaseCommit,
  updateFixIn,
} from '../store/fixes.ts';
import { sourceReposOfUnit } from '../store/scan-batches.ts';
import type { Database, FixRow } from '../store/schema.ts';
import { maskSecretsIn } from '../scanning/secrets/mask-text.ts';
import { maskDiff } from './diff-mask.ts';
import { toFixFinding } from './fix-finding.ts';
import { readRepoFacts } from './repo-facts.ts';
import { decodeJson, encodeJson } from '../store/json-columns.ts';
import { alreadyMadeReason, checkAgainstCompleted, conflictReason } from './fix-conflicts.ts';
import { isGitControlPath, writeTreeFile } from '../scm/work-tree.ts';
import { FixError, type FindingOutcome, type FixAgent, type Fixer, type FixerOutcome, type FixFinding, type FixWorkspace, type VerificationResult } from './types.ts';

export { toFixFinding };

export interface FixRunnerDeps {
  db: Kysely<Database>;
  tokenBox: TokenBox;
  checkouts: CheckoutCache;
  /** The deterministic fixer for a finding, if one handles it. */
  fixerFor: (finding: FixFinding) => Fixer | undefined;
  verify: (dir: string, findings: FixFinding[], changedFiles: string[], originals: Map<string, string | null>) => Promise<VerificationResult>;
  /** Null when no LLM is configured. */
  agent: FixAgent | null;
  gitTimeoutMs: number;
  /** How often a running fix looks for its own cancellation. */
  cancelPollMs?: number;
  log?: (message: string, fields?: Record<string, unknown>) => void;
  /** Fault injection for restart tests and the chaos bench: a pause once the work tree is open. */
  faultFixDelayMs?: number;
}

/** Job keys name the fix and its run, so a refinement's run is a job of its own. */
export const fixJobKey = (fixId: string, run: number) => `${fixId}#${run}`;

function parseJobKey(key: string): { fixId: string; run: number } {
  const [fixId, run] = key.split('#');
  return { fixId: fixId!, run: Number(run ?? 1) };
}

/** Thrown inside a run when its fix was cancelled, so every layer unwinds without recording a failure. */
class FixCancelled extends Error {}

type GitOptions = { cwd: string; timeoutMs: number; signal: AbortSignal };

/** A checked-out work tree for one run: where it started (`base`) and how to run git in it. */
export interface RunWorkspace extends FixWorkspace {
  base: string;
  /** Tells the fix's progress what the run is doing now. */
  nowDoing(step: string): Promise<void>;
  options: GitOptions;
  dispose(): Promise<void>;
}

/** How a run ended, as its fix records it. */
export type RunOutcome =
  | { status: 'completed'; changes: Partial<FixRow> }
  | { status: 'failed'; changes: Partial<FixRow>; callerCaused?: boolean };

/** What a run has done so far: the files it wrote, each finding's outcome, and what it leaves to the user. */
export interface Changes {
  files: Set<string>;
  /** By finding id: fixed or not, why, and the files its fixer (or the agent) wrote. */
  outcomes: Map<string, FindingResult>;
  /** Actions left to the user (variables to set, credentials to rotate), each once. */
  notes: string[];
}

interface FindingResult {
  fixed: boolean;
  detail: string;
  files: string[];
}

export const newChanges = (): Changes => ({ files: new Set(), outcomes: new Map(), notes: [] });

/**
 * Runs a fix (see core/states/fix-status.ts): claim the run, open a work tree, apply the deterministic
 * fixers, hand what they leave to the agent, verify, and record the outcome. The API may cancel at any
 * time; a run that dies midway starts over from a fresh work tree.
 */
export function createFixRunner(deps: FixRunnerDeps): JobHandlers {
  return {
    run: (key, context) => runFix(deps, key, context),
    giveUp: (key, reason) => giveUpFix(deps, key, reason),
  };
}

/** The life of one run of a fix, one named step after another. */
export async function runFix(deps: FixRunnerDeps, key: string, context: JobContext): Promise<void> {
  const { fixId, run } = parseJobKey(key);
  const fix = await claimRun(deps, fixId, run, context.attempt);
  if (!fix) return;
  const watch = watchForCancellation(deps, fix, context.signal);
  let workspace: RunWorkspace | undefined;
  const changes = newChanges();
  try {
    await updateRunning(deps, fix, { current_step: 'checking out the source repository' });
    workspace = await openWorkspace(deps, fix, context.attempt, watch.signal);
    if (deps.faultFixDelayMs) await sleep(deps.faultFixDelayMs, undefined, { signal: watch.signal });
    const findings = (await findingsOfFix(deps.db, fix.id)).map(toFixFinding);
    const refinements = fix.runs > 1 ? await refinementsOf(deps.db, fix.id) : [];
    const forAgent = refinements.length ? findings : await applyFixers(deps, findings, workspace, changes);
    await runAgent(deps, fix, findings, forAgent, refinements, workspace, changes);
    await completeRun(deps, fix, await verifyRun(deps, fix, findings, workspace, changes), workspace);
  } catch (error) {
    if (context.signal.aborted) throw error; // lease lost or worker stopping: the job runs again
    if (watch.signal.aborted || error instanceof FixCancelled) return; // cancelled: the API recorded it
    if (!(error instanceof FixError)) deps.log?.('fix run failed', { fix: fix.id, error: maskSecretsIn(String((error as Error)?.message)) });
    const message = error instanceof FixError ? maskSecretsIn(error.message) : 'the fix run failed unexpectedly';
    const told = changes.outcomes.size ? recordedOutcomes(changes) : {};
    await finishRun(deps, fix, { status: 'failed', changes: { error_message: message, ...told }, callerCaused: error instanceof FixError && error.callerCaused });
  } finally {
    watch.stop();
    await workspace?.dispose();
  }
}

/** Claims the run for this attempt: a pending fix starts, a running one whose attempt died is taken over. */
export async function claimRun(deps: FixRunnerDeps, fixId: string, run: number, attempt: number): Promise<FixRow | undefined> {
  const fix = await fixById(deps.db, fixId);
  if (!fix || fix.runs !== run) return undefined;
  const now = nowIso();
  const restart = { run_attempt: attempt, latest_activity_at: now, agent_steps_completed: 0 };
  if (fix.status === 'running') {
    const taken = await updateFixIn(deps.db, fix.id, 'running', restart, { runs: run, attemptBefore: attempt });
    return taken ? { ...fix, run_attempt: attempt } : undefined;
  }
  if (fix.status !== 'pending') return undefined;
  const started = await deps.db.transaction().execute(async (trx) => {
    if (!(await moveFix(trx, fix.id, 'running', { ...restart, started_at: now }, { from: ['pending'], runs: run }))) return false;
    await recordFixEvents(trx, fix.id, 'fix_started', { run });
    return true;
  });
  return started ? { ...fix, status: 'running', run_attempt: attempt, started_at: now } : undefined;
}

/** Cancellation arrives through the database; a poll turns it into an abort of everything under way. */
export function watchForCancellation(deps: FixRunnerDeps, fix: FixRow, jobSignal: AbortSignal): { signal: AbortSignal; stop(): void } {
  const controller = new AbortController();
  const onJobAbort = () => controller.abort(jobSignal.reason);
  jobSignal.addEventListener('abort', onJobAbort, { once: true });
  const poll = setInterval(async () => {
    const current = await fixById(deps.db, fix.id).catch(() => undefined);
    const ours = current && current.status === 'running' && current.runs === fix.runs && current.run_attempt === fix.run_attempt;
    if (current && !ours) controller.abort(new FixCancelled('cancelled or taken over'));
  }, deps.cancelPollMs ?? 500);
  return {
    signal: controller.signal,
    stop() {
      clearInterval(poll);
      jobSignal.removeEventListener('abort', onJobAbort);
    },
  };
}

/** Changes a fix still running on this run and attempt; false when it has moved on (cancelled). */
const updateRunning = (deps: FixRunnerDeps, fix: FixRow, changes: Partial<FixRow>) =>
  updateFixIn(deps.db, fix.id, 'running', changes, { runs: fix.runs, runAttempt: fix.run_attempt });

/**
 * Checks out the source branch (or, for a refinement, the fix's base commit with its current patch)
 * in a work tree of this attempt's own.
 */
export async function openWorkspace(deps: FixRunnerDeps, fix: FixRow, attempt: number, signal: AbortSignal): Promise<RunWorkspace> {
  const source = (await sourceReposOfUnit(deps.db, fix.unit_id)).find((s) => s.full_name === fix.source_repo && s.provider === fix.source_repo_provider);
  if (!source) throw new FixError(`the source repository ${fix.source_repo} was removed from this repository's sources`, { callerCaused: true });
  const token = source.token_ciphertext ? deps.tokenBox.open(source.token_ciphertext) : null;
  const checkoutSource = { id: source.id, provider: source.provider, cloneUrl: source.clone_url, token };
  // One work tree per attempt: a stale attempt still winding down never shares the new one's files.
  const workId = `fix-${fix.id}-${fix.runs}-${attempt}`;
  let checkout;
  try {
    checkout = fix.source_base_commit_sha
      ? await deps.checkouts.checkoutCommit(checkoutSource, fix.source_base_commit_sha, workId, signal)
      : await deps.checkouts.checkout(checkoutSource, fix.source_scan_branch ?? source.default_branch, workId, signal);
  } catch (error) {
    if (error instanceof CheckoutError) throw new FixError(error.message);
    throw error;
  }
  const options = { cwd: checkout.dir, timeoutMs: deps.gitTimeoutMs, signal };
  if (fix.source_base_commit_sha && fix.diff_ciphertext) {
    try {
      await applyPatch(checkout.dir, deps.tokenBox.open(fix.diff_ciphertext), options);
    } catch (error) {
      await checkout.dispose();
      if (error instanceof GitError) throw new FixError(`could not restore the fix's previous patch: ${error.message}`);
      throw error;
    }
  }
  const base = fix.source_base_commit_sha ?? checkout.commit;
  if (!fix.source_base_commit_sha) await setFixBaseCommit(deps.db, fix.id, base);
  let steps = 0;
  return {
    dir: checkout.dir,
    signal,
    base,
    options,
    dispose: checkout.dispose,
    facts: () => readRepoFacts(checkout.dir, { commit: base }),
    nowDoing: async (step) => {
      if (!(await updateRunning(deps, fix, { current_step: step, latest_activity_at: nowIso() }))) throw new FixCancelled('cancelled');
    },
    step: async () => {
      signal.throwIfAborted();
      steps++;
      if (!(await updateRunning(deps, fix, { agent_steps_completed: steps, latest_activity_at: nowIso() }))) throw new FixCancelled('cancelled');
    },
  };
}

/**
 * Applies the deterministic fixer of each finding, one after another, recording for each whether it was
 * fixed and why not; returns the findings left for the agent. A fixer that fails on one finding leaves
 * the others' edits in place.
 */
export async function applyFixers(deps: FixRunnerDeps, findings: FixFinding[], workspace: RunWorkspace, changes: Changes): Promise<FixFinding[]> {
  const forAgent: FixFinding[] = [];
  for (const [index, finding] of findings.entries()) {
    const fixer = deps.fixerFor(finding);
    if (!fixer) {
      changes.outcomes.set(finding.id, { fixed: false, detail: `no deterministic fixer handles ${finding.checkId}`, files: [] });
      forAgent.push(finding);
      continue;
    }
    await workspace.nowDoing(`fixing finding ${index + 1} of ${findings.length} (${finding.checkId} in ${finding.filePath}) with the ${fixer.name} fixer`);
    let outcome: FixerOutcome;
    try {
      outcome = await fixer.apply(finding, workspace);
    } catch (error) {
      if (workspace.signal.aborted) throw error;
      deps.log?.('fixer failed', { finding: finding.id, fixer: fixer.name, error: maskSecretsIn(String((error as Error)?.message)) });
      outcome = { fixed: false, changedFiles: [], note: `the ${fixer.name} fixer failed unexpectedly on ${finding.checkId}` };
    }
    await workspace.step();
    outcome.changedFiles.forEach((file) => changes.files.add(file));
    changes.outcomes.set(finding.id, { fixed: outcome.fixed, detail: outcome.note, files: outcome.changedFiles });
    if (outcome.fixed) for (const note of outcome.userNotes ?? []) if (!changes.notes.includes(note)) changes.notes.push(note);
    if (!outcome.fixed) forAgent.push(finding);
  }
  return forAgent;
}

/**
 * Hands the agent what the fixers left, the refinements, or a fix without findings; a no-op when nothing
 * is left. Without an agent, what the fixers fixed stands on its own; only a run that fixed nothing fails.
 */
export async function runAgent(
  deps: FixRunnerDeps,
  fix: FixRow,
  findings: FixFinding[],
  forAgent: FixFinding[],
  refinements: string[],
  workspace: RunWorkspace,
  changes: Changes,
): Promise<void> {
  if (!forAgent.length && !refinements.length && findings.length) return;
  if (!deps.agent) {
    if (findings.length === 0) throw new FixError(`a fix without findings needs an LLM agent to follow its instructions; set ${AGENT_SETTINGS}`);
    for (const finding of forAgent) {
      const outcome = changes.outcomes.get(finding.id)!;
      outcome.detail = `${outcome.detail}; set ${AGENT_SETTINGS} to let the agent fix it`;
    }
    if (!fixedIds(changes).length) {
      const why = forAgent.map((f) => changes.outcomes.get(f.id)!.detail);
      throw new FixError(`no deterministic fixer could fix ${forAgent.map((f) => f.checkId).join(', ')} (${why.join('; ')})`);
    }
    return;
  }
  await workspace.nowDoing(refinements.length ? 'the agent is following the refinement' : `the agent is fixing ${forAgent.length || findings.length} finding(s)`);
  const result = await deps.agent.run({
    workspace,
    findings: forAgent.length ? forAgent : findings,
    instructions: [fix.instructions, ...refinements],
    rescan: async (files) => describeVerification(await deps.verify(workspace.dir, findings, files, await originalsOf(workspace, files)), findings),
  });
  result.changedFiles.forEach((file) => changes.files.add(file));
  for (const finding of forAgent.length ? forAgent : findings) {
    changes.outcomes.set(finding.id, { fixed: true, detail: 'changed by the agent', files: result.changedFiles });
  }
  await updateRunning(deps, fix, {
    agent_input_tokens: fix.agent_input_tokens + result.usage.inputTokens,
    agent_output_tokens: fix.agent_output_tokens + result.usage.outputTokens,
  });
}

/**
 * Re-scans the changed files. A finding still detected, or whose change left a file unparsable, counts
 * as not fixed and its files go back to the base commit (unless a fixed finding changed them too); the
 * rest are verified again. The run completes when at least one finding is fixed and verified.
 */
export async function verifyRun(deps: FixRunnerDeps, fix: FixRow, findings: FixFinding[], workspace: RunWorkspace, changes: Changes): Promise<RunOutcome> {
  await workspace.nowDoing('verifying: re-scanning the changed files');
  for (;;) {
    const diff = await diffOf(workspace);
    if (!diff.trim()) throw new FixError(explainNothingChanged(findings, changes));
    const changedFiles = await changedPaths(workspace);
    const claimed = findings.length ? findings.filter((f) => changes.outcomes.get(f.id)?.fixed) : findings;
    const originals = await originalsOf(workspace, changedFiles);
    const verification = await deps.verify(workspace.dir, claimed, changedFiles, originals);
    const problems = verificationProblems(verification, findings);
    if (!problems.length) {
      return {
        status: 'completed',
        changes: {
          diff: maskDiff(diff),
          diff_ciphertext: deps.tokenBox.seal(diff),
          error_message: null,
          ...(fix.runs > 1 && !findings.length ? {} : recordedOutcomes(changes)),
          verification: maskSecretsIn(
            [
              `Re-scanned ${changedFiles.length} changed file(s): none of the ${claimed.length} finding(s) it fixed is detected any more, and every file still parses.`,
              ...findings.map((f) => changes.outcomes.get(f.id)?.detail).filter((d): d is string => !!d),
            ].join(' '),
          ),
        },
      };
    }
    const failed = failedFindings(verification, claimed, changes);
    if (!findings.length || !failed.size) throw new FixError(`verification failed: ${problems.join('; ')}`);
    for (const [id, why] of failed) changes.outcomes.set(id, { ...changes.outcomes.get(id)!, fixed: false, detail: why });
    if (!fixedIds(changes).length) throw new FixError(`verification failed: ${problems.join('; ')}`);
    await restoreFilesOnlyFailedFindingsChanged(workspace, changes, changedFiles, originals, failed);
  }
}

/** The findings a verification shows not fixed, with why: still detected, or a file of theirs no longer parses. */
function failedFindings(verification: VerificationResult, claimed: FixFinding[], changes: Changes): Map<string, string> {
  const failed = new Map<string, string>();
  for (const id of verification.stillDetected) failed.set(id, 'the change did not remove it: it is still detected after the change');
  for (const { file, reason } of verification.unparsable) {
    for (const finding of claimed) {
      if (changes.outcomes.get(finding.id)?.files.includes(file)) failed.set(finding.id, `its change left ${file} unparsable (${reason})`);
    }
  }
  return failed;
}

async function restoreFilesOnlyFailedFindingsChanged(
  workspace: RunWorkspace,
  changes: Changes,
  changedFiles: string[],
  originals: Map<string, string | null>,
  failed: Map<string, string>,
): Promise<void> {
  const keep = new Set([...changes.outcomes].filter(([, o]) => o.fixed).flatMap(([, o]) => o.files));
  const touchedByFailed = new Set([...failed.keys()].flatMap((id) => changes.outcomes.get(id)!.files));
  for (const file of changedFiles) {
    if (keep.has(file) || !touchedByFailed.has(file)) continue;
    const original = originals.get(file);
    if (original === null || original === undefined) await fs.rm(path.join(workspace.dir, file), { force: true });
    else await writeTreeFile(workspace.dir, file, original, { create: true });
  }
}

const fixedIds = (changes: Changes) => [...changes.outcomes].filter(([, o]) => o.fixed).map(([id]) => id);

/** The columns that tell the caller what the run did: each finding's outcome and the actions left to them. */
function recordedOutcomes(changes: Changes): Partial<FixRow> {
  const outcomes = [...changes.outcomes].map(([id, o]) => ({ finding_id: id, fixed: o.fixed, detail: maskSecretsIn(o.detail) }));
  return { finding_outcomes: encodeJson(outcomes), notes: encodeJson(changes.notes.map(maskSecretsIn)) };
}

function explainNothingChanged(findings: FixFinding[], changes: Changes): string {
  const details = findings.map((f) => changes.outcomes.get(f.id)?.detail).filter((d): d is string => !!d);
  return `the fix made no change to the repository${details.length ? ` (${details.join('; ')})` : ''}`;
}

/**
 * Ends a verified run. A diff is first held against the diffs of the repository's other completed fixes
 * made from the same commit: one that does not apply together with them, in either order, fails naming
 * the fix it conflicts with, and one whose every change such a fix already makes fails naming that fix;
 * nothing of either is kept and its credit is given back. Fixes of one unit complete one at a time, so a
 * fix that completed while this one was checked is checked too.
 */
async function completeRun(deps: FixRunnerDeps, fix: FixRow, verified: RunOutcome, workspace: RunWorkspace): Promise<void> {
  const checked = new Set<string>();
  for (;;) {
    const outcome = verified.status === 'completed' ? await refuseConflicts(deps, fix, verified, workspace, checked) : verified;
    if (await finishRun(deps, fix, outcome, outcome.status === 'completed' ? { base: workspace.base, checked } : undefined)) return;
  }
}

const sourceOf = (fix: FixRow) => ({ unitId: fix.unit_id, repo: fix.source_repo ?? '', provider: fix.source_repo_provider ?? 'github' });

async function refuseConflicts(deps: FixRunnerDeps, fix: FixRow, outcome: RunOutcome, workspace: RunWorkspace, checked: Set<string>): Promise<RunOutcome> {
  const sealed = outcome.changes.diff_ciphertext;
  if (!sealed) return outcome;
  const others = (await completedFixesAtCommit(deps.db, sourceOf(fix), workspace.base, fix.id))
    .filter((other) => !checked.has(other.id))
    .map((other) => ({ id: other.id, diff: deps.tokenBox.open(other.diff_ciphertext!) }));
  const { conflict, madeBy } = await checkAgainstCompleted(deps.tokenBox.open(sealed), others, workspace.base, workspace.options, checked);
  if (!conflict && !madeBy) return outcome;
  const why = madeBy ? alreadyMadeReason(madeBy) : conflictReason(conflict!);
  const outcomes = decodeJson<FindingOutcome[]>(outcome.changes.finding_outcomes ?? null, []).map((o) => ({ ...o, fixed: false, detail: why }));
  return { status: 'failed', changes: { error_message: why, finding_outcomes: encodeJson(outcomes), notes: encodeJson([]) } };
}

/**
 * Ends a run and writes its events in one transaction, unless the fix moved on (cancelled) meanwhile.
 * A refinement that fails leaves the fix as its last good run made it, with the failure told; a fix
 * that fails through no fault of the caller gives its credit back (see core/credits.ts). With
 * `conflictsChecked`, a completion waits for any other of the unit, and returns false without changing
 * anything when a fix of the same commit completed that was not checked against.
 */
export async function finishRun(deps: FixRunnerDeps, fix: FixRow, outcome: RunOutcome, conflictsChecked?: { base: string; checked: Set<string> }): Promise<boolean> {
  const now = nowIso();
  const failed = outcome.status === 'failed';
  const keepsPrevious = failed && fix.runs > 1 && fix.diff_ciphertext !== null;
  const status = keepsPrevious ? 'completed' : outcome.status;
  const changes = keepsPrevious
    ? { error_message: `The refinement failed (${outcome.changes.error_message}); the fix keeps its previous patch.` }
    : outcome.changes;
  return deps.db.transaction().execute(async (trx) => {
    if (conflictsChecked) {
      await lockFixCompletionsOfUnit(trx, fix.unit_id);
      const completed = await completedFixesAtCommit(trx, sourceOf(fix), conflictsChecked.base, fix.id);
      if (completed.some((other) => !conflictsChecked.checked.has(other.id))) return false;
    }
    const guard = { from: ['running' as const], runs: fix.runs, runAttempt: fix.run_attempt };
    if (!(await moveFix(trx, fix.id, status, { completed_at: now, latest_activity_at: now, current_step: null, ...changes }, guard))) return true;
    await recordFixEvents(trx, fix.id, failed ? 'fix_failed' : 'fix_completed', failed ? { error_message: changes.error_message } : {});
    if (status === 'failed' && !(outcome.status === 'failed' && outcome.callerCaused)) await refundFixCredit(trx, fix);
    return true;
  });
}

/** The queue stopped retrying: a fix it never got to run, or one whose runs kept dying, fails and gives its credit back. */
export async function giveUpFix(deps: FixRunnerDeps, key: string, reason: string): Promise<void> {
  const { fixId, run } = parseJobKey(key);
  const fix = await fixById(deps.db, fixId);
  if (!fix || fix.runs !== run) return;
  const error_message = `The fix could not be completed (${reason}).`;
  if (fix.status === 'running') {
    await finishRun(deps, fix, { status: 'failed', changes: { error_message } });
    return;
  }
  if (fix.status !== 'pending') return;
  const now = nowIso();
  await deps.db.transaction().execute(async (trx) => {
    if (!(await moveFix(trx, fix.id, 'failed', { error_message, completed_at: now, latest_activity_at: now }, { from: ['pending'], runs: run }))) return;
    await recordFixEvents(trx, fix.id, 'fix_failed', { error_message });
    await refundFixCredit(trx, fix);
  });
}

/** The files as the base commit has them, so verification blames a fix only for what it broke. */
async function originalsOf(workspace: RunWorkspace, files: string[]): Promise<Map<string, string | null>> {
  const originals = new Map<string, string | null>();
  for (const file of files) originals.set(file, await git(['show', `${workspace.base}:${file}`], workspace.options).catch(() => null));
  return originals;
}

/**
 * The fix's patch against the base commit. A patch that touches what changes how git or the code host treats
 * the repository (`.git`, attributes, submodules, symbolic links) is refused, whichever fixer or agent wrote it.
 */
async function diffOf(workspace: RunWorkspace): Promise<string> {
  await git(['add', '--all'], workspace.options);
  const raw = await git(['diff', '--cached', '--raw', '-z', '--no-renames', workspace.base], workspace.options);
  const fields = raw.split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode, newMode] = fields[i].slice(1).split(' ');
    const file = fields[i + 1];
    if (isGitControlPath(file)) throw new FixError(`the fix changed ${file}, which controls how git treats the repository; a fix never changes it`);
    if ([oldMode, newMode].some((mode) => mode === '120000' || mode === '160000')) {
      throw new FixError(`the fix changed ${file}, a symbolic link or submodule; a fix changes regular files only`);
    }
  }
  return git(['-c', 'core.quotepath=off', 'diff', '--cached', '--binary', '--no-color', workspace.base], workspace.options);
}

async function changedPaths(workspace: RunWorkspace): Promise<string[]> {
  const names = await git(['diff', '--cached', '--name-only', '-z', '--no-renames', '--diff-filter=AM', workspace.base], workspace.options);
  return names.split('\0').filter(Boolean);
}

async function applyPatch(dir: string, diff: string, options: GitOptions) {
  const file = path.join(dir, '..', `${path.basename(dir)}.patch`);
  await fs.writeFile(file, diff);
  try {
    await git(['apply', '--whitespace=nowarn', file], options);
  } finally {
    await fs.rm(file, { force: true });
  }
}

function verificationProblems(verification: VerificationResult, findings: FixFinding[]): string[] {
  return [
    ...verification.stillDetected.map((id) => {
      const finding = findings.find((f) => f.id === id);
      return `${finding?.checkId ?? id} is still detected in ${finding?.filePath ?? 'the patched files'}`;
    }),
    ...verification.unparsable.map((u) => `${u.file} no longer parses (${u.reason})`),
  ];
}

/** What the agent's rescan tool answers. */
function describeVerification(verification: VerificationResult, findings: FixFinding[]): string {
  const problems = verificationProblems(verification, findings);
  return problems.length ? problems.join('\n') : 'No finding of this fix is detected in those files, and they parse.';
}
