import fs from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { findingsOfFix, recordFixEvents } from '../core/fixes.ts';
import type { ScanType } from '../core/scan-types.ts';
import type { TokenBox } from '../crypto/token-box.ts';
import { nowIso } from '../ids.ts';
import type { JobContext, JobHandlers } from '../jobs/queue.ts';
import { CheckoutError, type CheckoutCache } from '../scm/checkout-cache.ts';
import { git, GitError } from '../scm/git-command.ts';
import type { Database, FindingRow, FixRow } from '../store/schema.ts';
import { maskDiff } from './diff-mask.ts';
import { FixError, type FixAgent, type Fixer, type FixFinding, type FixWorkspace, type VerificationResult } from './types.ts';

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
}

const AGENT_SETTINGS = 'BULWARK_LLM_PROVIDER, BULWARK_LLM_MODEL and BULWARK_LLM_API_KEY';

/** Job keys name the fix and its run, so a refinement's run is a job of its own. */
export const fixJobKey = (fixId: string, run: number) => `${fixId}#${run}`;

function parseJobKey(key: string): { fixId: string; run: number } {
  const [fixId, run] = key.split('#');
  return { fixId: fixId!, run: Number(run ?? 1) };
}

export function toFixFinding(row: FindingRow): FixFinding {
  return {
    id: row.id,
    scanType: row.scan_type as ScanType,
    checkId: row.check_id,
    severity: row.severity,
    title: row.title,
    message: row.message,
    filePath: row.file_path,
    startLine: row.start_line,
    endLine: row.end_line,
    cwe: JSON.parse(row.cwe),
    metadata: JSON.parse(row.metadata),
  };
}

/** Thrown inside a run when its fix was cancelled, so every layer unwinds without recording a failure. */
class FixCancelled extends Error {}

/**
 * Runs a fix: pending → running → completed | failed (cancelled by the API at any time). The run checks
 * out the source branch (or the fix's base commit with its current patch, for a refinement), applies the
 * deterministic fixers, hands what they leave to the agent, verifies the result with the originating
 * engines, and stores the diff. A run that dies midway starts over from a fresh work tree.
 */
export function createFixRunner(deps: FixRunnerDeps): JobHandlers {
  const { db } = deps;

  const load = (fixId: string) => db.selectFrom('fixes').selectAll().where('id', '=', fixId).executeTakeFirst();

  /** Changes a fix that is still running in this run; false when it has moved on (cancelled). */
  async function update(fix: FixRow, changes: Partial<FixRow>): Promise<boolean> {
    const result = await db
      .updateTable('fixes')
      .set({ ...changes, updated_at: nowIso() })
      .where('id', '=', fix.id)
      .where('status', '=', 'running')
      .where('runs', '=', fix.runs)
      .where('run_attempt', '=', fix.run_attempt)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Ends a run and writes its events in one transaction, unless the fix moved on (cancelled) meanwhile. */
  async function finish(fix: FixRow, outcome: { status: 'completed' | 'failed'; changes: Partial<FixRow> }) {
    const now = nowIso();
    const failed = outcome.status === 'failed';
    // A refinement that fails leaves the fix as its last good run made it, with the failure told.
    const keepsPrevious = failed && fix.runs > 1 && fix.diff_ciphertext !== null;
    const status = keepsPrevious ? 'completed' : outcome.status;
    const changes = keepsPrevious
      ? { error_message: `The refinement failed (${outcome.changes.error_message}); the fix keeps its previous patch.` }
      : outcome.changes;
    await db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('fixes')
        .set({ status, completed_at: now, latest_activity_at: now, ...changes, updated_at: now })
        .where('id', '=', fix.id)
        .where('status', '=', 'running')
        .where('runs', '=', fix.runs)
        .where('run_attempt', '=', fix.run_attempt)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return;
      await recordFixEvents(trx, fix.id, failed ? 'fix_failed' : 'fix_completed', failed ? { error_message: changes.error_message } : {});
    });
  }

  /** Claims the run for this attempt: a pending fix starts, a running one whose attempt died is taken over. */
  async function start(fixId: string, run: number, attempt: number): Promise<FixRow | undefined> {
    const fix = await load(fixId);
    if (!fix || fix.runs !== run) return undefined;
    const now = nowIso();
    if (fix.status === 'running') {
      const result = await db
        .updateTable('fixes')
        .set({ run_attempt: attempt, latest_activity_at: now, agent_steps_completed: 0, updated_at: now })
        .where('id', '=', fix.id)
        .where('status', '=', 'running')
        .where('runs', '=', run)
        .where('run_attempt', '<', attempt)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0 ? { ...fix, run_attempt: attempt } : undefined;
    }
    if (fix.status !== 'pending') return undefined;
    const started = await db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('fixes')
        .set({ status: 'running', run_attempt: attempt, started_at: now, latest_activity_at: now, agent_steps_completed: 0, updated_at: now })
        .where('id', '=', fix.id)
        .where('status', '=', 'pending')
        .where('runs', '=', run)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      await recordFixEvents(trx, fix.id, 'fix_started', { run });
      return true;
    });
    return started ? { ...fix, status: 'running', run_attempt: attempt, started_at: now } : undefined;
  }

  async function run(key: string, context: JobContext): Promise<void> {
    const { fixId, run: runNumber } = parseJobKey(key);
    const fix = await start(fixId, runNumber, context.attempt);
    if (!fix) return;

    // Cancellation arrives through the database; a poll turns it into an abort of everything under way.
    const controller = new AbortController();
    const onJobAbort = () => controller.abort(context.signal.reason);
    context.signal.addEventListener('abort', onJobAbort, { once: true });
    const poll = setInterval(async () => {
      const current = await load(fixId).catch(() => undefined);
      const ours = current && current.status === 'running' && current.runs === fix.runs && current.run_attempt === fix.run_attempt;
      if (current && !ours) controller.abort(new FixCancelled('cancelled or taken over'));
    }, deps.cancelPollMs ?? 500);

    let workspace: Awaited<ReturnType<typeof openWorkspace>> | undefined;
    try {
      workspace = await openWorkspace(fix, context.attempt, controller.signal);
      const outcome = await applyFix(fix, workspace);
      await finish(fix, outcome);
    } catch (error) {
      if (context.signal.aborted) throw error; // lease lost or worker stopping: the job runs again
      if (controller.signal.aborted || error instanceof FixCancelled) return; // cancelled: the API recorded it
      const message = error instanceof FixError ? error.message : 'the fix run failed unexpectedly';
      if (!(error instanceof FixError)) deps.log?.('fix run failed', { fix: fix.id, error: (error as Error).message });
      await finish(fix, { status: 'failed', changes: { error_message: message } });
    } finally {
      clearInterval(poll);
      context.signal.removeEventListener('abort', onJobAbort);
      await workspace?.dispose();
    }
  }

  async function openWorkspace(fix: FixRow, attempt: number, signal: AbortSignal) {
    const unitSources = await db.selectFrom('source_repos').selectAll().where('unit_id', '=', fix.unit_id).execute();
    const source = unitSources.find((s) => s.full_name === fix.source_repo && s.provider === fix.source_repo_provider);
    if (!source) throw new FixError(`the source repository ${fix.source_repo} was removed from this repository's sources`);
    const token = source.token_ciphertext ? deps.tokenBox.open(source.token_ciphertext) : null;
    const checkoutSource = { id: source.id, provider: source.provider, cloneUrl: source.clone_url, token };
    // One work tree per attempt: a stale attempt still winding down never shares the new one's files.
    const workId = `fix-${fix.id}-${fix.runs}-${attempt}`;
    let checkout;
    try {
      // A refinement continues the fix where it stands: its base commit plus its current patch.
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
    if (!fix.source_base_commit_sha) await db.updateTable('fixes').set({ source_base_commit_sha: base }).where('id', '=', fix.id).execute();
    const steps = { count: 0 };
    const workspace: FixWorkspace = {
      dir: checkout.dir,
      signal,
      step: async () => {
        signal.throwIfAborted();
        steps.count++;
        const moved = await update(fix, { agent_steps_completed: steps.count, latest_activity_at: nowIso() });
        if (!moved) throw new FixCancelled('cancelled');
      },
    };
    return { ...workspace, base, options, dispose: checkout.dispose };
  }

  async function applyFix(fix: FixRow, workspace: FixWorkspace & { base: string; options: { cwd: string; timeoutMs: number; signal: AbortSignal } }) {
    const findings = (await findingsOfFix(db, fix.id)).map(toFixFinding);
    // The files as the base commit has them, so verification blames a fix only for what it broke.
    const originalsOf = async (files: string[]) => {
      const originals = new Map<string, string | null>();
      for (const file of files) originals.set(file, await git(['show', `${workspace.base}:${file}`], workspace.options).catch(() => null));
      return originals;
    };
    const changed = new Set<string>();
    const notes: string[] = [];
    let forAgent: FixFinding[] = [];
    const refinements = fix.runs > 1 ? await refinementsOf(fix.id) : [];

    if (refinements.length) {
      forAgent = findings;
    } else {
      for (const finding of findings) {
        const fixer = deps.fixerFor(finding);
        if (!fixer) {
          forAgent.push(finding);
          continue;
        }
        const outcome = await fixer.apply(finding, workspace);
        await workspace.step();
        outcome.changedFiles.forEach((file) => changed.add(file));
        notes.push(outcome.note);
        if (!outcome.fixed) forAgent.push(finding);
      }
    }

    let usage = { inputTokens: 0, outputTokens: 0 };
    const needsAgent = forAgent.length > 0 || refinements.length > 0 || findings.length === 0;
    if (needsAgent) {
      if (!deps.agent) {
        const unhandled = forAgent.map((f) => f.checkId).join(', ');
        const why = notes.length ? ` (${notes.join('; ')})` : '';
        throw new FixError(
          findings.length === 0
            ? `a fix without findings needs an LLM agent to follow its instructions; set ${AGENT_SETTINGS}`
            : `no deterministic fixer could fix ${unhandled}${why}; set ${AGENT_SETTINGS} to let the agent fix it`,
        );
      }
      const result = await deps.agent.run({
        workspace,
        findings: forAgent.length ? forAgent : findings,
        instructions: [fix.instructions, ...refinements],
        rescan: async (files) => describeVerification(await deps.verify(workspace.dir, findings, files, await originalsOf(files)), findings),
      });
      result.changedFiles.forEach((file) => changed.add(file));
      usage = result.usage;
      await update(fix, { agent_input_tokens: fix.agent_input_tokens + usage.inputTokens, agent_output_tokens: fix.agent_output_tokens + usage.outputTokens });
    }

    const diff = await diffOf(workspace);
    if (!diff.trim()) throw new FixError('the fix made no change to the repository');
    const changedFiles = await changedPaths(workspace);
    const verification = await deps.verify(workspace.dir, findings, changedFiles, await originalsOf(changedFiles));
    const problems = verificationProblems(verification, findings);
    if (problems.length) throw new FixError(`verification failed: ${problems.join('; ')}`);
    return {
      status: 'completed' as const,
      changes: {
        diff: maskDiff(diff),
        diff_ciphertext: deps.tokenBox.seal(diff),
        error_message: null,
        verification: [
          `Re-scanned ${changedFiles.length} changed file(s): none of the ${findings.length} finding(s) is detected any more, and every file still parses.`,
          ...notes,
        ].join(' '),
      },
    };
  }

  const refinementsOf = async (fixId: string) =>
    (await db.selectFrom('fix_refinements').select('instructions').where('fix_id', '=', fixId).orderBy('created_at').execute()).map((r) => r.instructions);

  async function diffOf(workspace: { base: string; options: { cwd: string; timeoutMs: number; signal: AbortSignal } }): Promise<string> {
    await git(['add', '--all'], workspace.options);
    return git(['-c', 'core.quotepath=off', 'diff', '--cached', '--binary', '--no-color', workspace.base], workspace.options);
  }

  async function changedPaths(workspace: { base: string; options: { cwd: string; timeoutMs: number; signal: AbortSignal } }): Promise<string[]> {
    const names = await git(['diff', '--cached', '--name-only', '-z', '--no-renames', '--diff-filter=AM', workspace.base], workspace.options);
    return names.split('\0').filter(Boolean);
  }

  return {
    run,
    async giveUp(key, reason) {
      const { fixId } = parseJobKey(key);
      const fix = await load(fixId);
      if (!fix || fix.status !== 'running') return;
      await finish(fix, { status: 'failed', changes: { error_message: `The fix could not be completed (${reason}).` } });
    },
  };
}

async function applyPatch(dir: string, diff: string, options: { cwd: string; timeoutMs: number; signal: AbortSignal }) {
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
