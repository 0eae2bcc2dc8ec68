import fs from 'node:fs/promises';
import path from 'node:path';
import { git, GitError, type GitOptions } from '../scm/git-command.ts';

// Whether two diffs made from one commit apply together, in both orders, as `git apply` applies them:
// a fix whose run touches lines beyond its findings (an import at the top of a file, a shared template)
// is held against the repository's completed fixes this way before it completes.

/** The repository paths a diff changes (either side), from its `---`/`+++` lines. */
export function filesOfDiff(diff: string): Set<string> {
  const files = new Set<string>();
  for (const m of diff.matchAll(/^(?:---|\+\+\+) [ab]\/(.+?)\t?$/gm)) files.add(m[1]!);
  return files;
}

export interface DiffPair {
  /** The diff of the fix about to complete: already applied in the work tree `options.cwd` and staged. */
  ours: string;
  theirs: string;
}

/**
 * Whether the other diff fails to apply after ours, or ours after it, on the base commit; false when
 * they change no file in common. `options.cwd` is a work tree at `base` with our diff applied.
 */
export async function diffsConflict(pair: DiffPair, base: string, options: GitOptions & { cwd: string }): Promise<boolean> {
  const mine = filesOfDiff(pair.ours);
  if (![...filesOfDiff(pair.theirs)].some((file) => mine.has(file))) return false;
  const check = async (diff: string, args: string[], env?: Record<string, string>) => {
    try {
      await git(['apply', ...args, '-'], { ...options, input: diff, env: { ...options.env, ...env } });
      return true;
    } catch (error) {
      if (error instanceof GitError) return false;
      throw error;
    }
  };
  if (!(await check(pair.theirs, ['--check']))) return true;
  // Theirs first: in an index of its own, so the work tree and the fix's index stay as they are.
  const index = path.join(options.cwd, '..', `${path.basename(options.cwd)}.overlap-index`);
  const env = { GIT_INDEX_FILE: index };
  try {
    await git(['read-tree', base], { ...options, env: { ...options.env, ...env } });
    // A diff that no longer applies to its own base says nothing about this pair.
    if (!(await check(pair.theirs, ['--cached'], env))) return false;
    return !(await check(pair.ours, ['--cached', '--check'], env));
  } finally {
    await fs.rm(index, { force: true });
  }
}

/** The completed fixes a run's diff was held against, and the one it conflicts with (if any). */
export interface ConflictCheck {
  checked: Set<string>;
  conflict?: { fixId: string; files: string[] };
}

/**
 * Holds our diff against each completed fix of the repository made from the same commit that is not in
 * `checked` yet, adding each to it; stops at the first that conflicts.
 */
export async function checkAgainstCompleted(
  ours: string,
  others: { id: string; diff: string }[],
  base: string,
  options: GitOptions & { cwd: string },
  checked: Set<string>,
): Promise<ConflictCheck> {
  for (const other of others) {
    if (checked.has(other.id)) continue;
    const conflicts = await diffsConflict({ ours, theirs: other.diff }, base, options);
    checked.add(other.id);
    if (conflicts) {
      const theirs = filesOfDiff(other.diff);
      return { checked, conflict: { fixId: other.id, files: [...filesOfDiff(ours)].filter((f) => theirs.has(f)) } };
    }
  }
  return { checked };
}

/** Why a run that conflicts with a completed fix does not complete, naming that fix and the files both change. */
export function conflictReason(conflict: { fixId: string; files: string[] }): string {
  const files = conflict.files.length ? conflict.files.join(', ') : 'the same files';
  return (
    `its change conflicts with fix ${conflict.fixId}, completed earlier from the same commit: both change ${files} where the two diffs ` +
    `would not apply one after the other; merge fix ${conflict.fixId} first, then scan again and fix what is left`
  );
}
