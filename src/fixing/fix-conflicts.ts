import fs from 'node:fs/promises';
import path from 'node:path';
import { git, GitError, type GitOptions } from '../scm/git-command.ts';

// Whether two diffs made from one commit merge, in both orders, as their pull requests would: one applied,
// then the other with `git apply --3way` (a three-way merge with the base's blobs, as merging branches
// does), so that changes a few lines apart merge while imports both add at one place of a file, a line both
// append to a shared template or two changes of adjacent lines conflict. A fix whose run touches lines
// beyond its findings is held against the repository's completed fixes this way before it completes.

/** The repository paths a diff changes (either side), from its `---`/`+++` lines. */
export function filesOfDiff(diff: string): Set<string> {
  const files = new Set<string>();
  for (const m of diff.matchAll(/^(?:---|\+\+\+) [ab]\/(.+?)\t?$/gm)) files.add(m[1]!);
  return files;
}

export interface DiffPair {
  /** The diff of the fix about to complete. */
  ours: string;
  theirs: string;
}

/**
 * Whether the two diffs conflict: the other fails to merge after ours, or ours after it, on the base
 * commit; false when they change no file in common, or when the other no longer applies to the base at
 * all. `options.cwd` is a work tree of the repository (its index and files are left as they are).
 */
export async function diffsConflict(pair: DiffPair, base: string, options: GitOptions & { cwd: string }): Promise<boolean> {
  const mine = filesOfDiff(pair.ours);
  if (![...filesOfDiff(pair.theirs)].some((file) => mine.has(file))) return false;
  // An index of its own, so the work tree and the fix's index stay as they are.
  const index = path.join(options.cwd, '..', `${path.basename(options.cwd)}.overlap-index`);
  const env = { ...options.env, GIT_INDEX_FILE: index };
  const apply = async (diff: string, args: string[]) => {
    try {
      await git(['apply', '--cached', ...args, '-'], { ...options, input: diff, env });
      return true;
    } catch (error) {
      if (error instanceof GitError) return false;
      throw error;
    }
  };
  const mergesAfter = async (first: string, second: string): Promise<boolean | 'stale'> => {
    await git(['read-tree', base], { ...options, env });
    if (!(await apply(first, []))) return 'stale';
    return apply(second, ['--3way']);
  };
  try {
    const theirsAfterOurs = await mergesAfter(pair.ours, pair.theirs);
    if (theirsAfterOurs === false) return true;
    const oursAfterTheirs = await mergesAfter(pair.theirs, pair.ours);
    // A diff that no longer applies to its own base says nothing about this pair.
    return oursAfterTheirs === false;
  } finally {
    await fs.rm(index, { force: true });
  }
}

/**
 * Whether every change of our diff is already in theirs (the same diff, or one that theirs holds): each
 * file ours changes ends as theirs leaves it, or, on the base commit with theirs applied, ours merges
 * without changing anything more. `options.cwd` is a work tree of the repository (its index and files are
 * left as they are).
 */
export async function diffContainedIn(pair: DiffPair, base: string, options: GitOptions & { cwd: string }): Promise<boolean> {
  if (pair.ours === pair.theirs) return true;
  const theirs = filesOfDiff(pair.theirs);
  const ours = [...filesOfDiff(pair.ours)];
  if (!ours.every((file) => theirs.has(file))) return false;
  const index = path.join(options.cwd, '..', `${path.basename(options.cwd)}.contained-index`);
  const env = { ...options.env, GIT_INDEX_FILE: index };
  const run = async (args: string[], input?: string): Promise<string | undefined> => {
    try {
      return await git(args, { ...options, env, ...(input === undefined ? {} : { input }) });
    } catch (error) {
      if (error instanceof GitError) return undefined;
      throw error;
    }
  };
  /** The tree of the base with the diffs applied in turn (the later ones merged three ways), undefined when one does not apply. */
  const treeWith = async (...diffs: string[]): Promise<string | undefined> => {
    await git(['read-tree', base], { ...options, env });
    for (const [i, diff] of diffs.entries()) {
      if ((await run(['apply', '--cached', ...(i ? ['--3way'] : []), '-'], diff)) === undefined) return undefined;
    }
    return (await run(['write-tree']))?.trim();
  };
  const blobsOf = async (tree: string) => run(['ls-tree', '-r', '-z', tree, '--', ...ours]);
  try {
    const withTheirs = await treeWith(pair.theirs);
    if (withTheirs === undefined) return false;
    const withOurs = await treeWith(pair.ours);
    if (withOurs !== undefined && (await blobsOf(withOurs)) === (await blobsOf(withTheirs))) return true;
    return (await treeWith(pair.theirs, pair.ours)) === withTheirs;
  } finally {
    await fs.rm(index, { force: true });
  }
}

/** The completed fixes a run's diff was held against, and the one it conflicts with or whose change already holds it (if any). */
export interface ConflictCheck {
  checked: Set<string>;
  conflict?: { fixId: string; files: string[] };
  /** A completed fix whose diff already makes every change of ours. */
  madeBy?: { fixId: string; files: string[] };
}

/**
 * Holds our diff against each completed fix of the repository made from the same commit that is not in
 * `checked` yet, adding each to it; stops at the first whose diff already holds ours, or that conflicts.
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
    const pair = { ours, theirs: other.diff };
    const files = () => {
      const theirs = filesOfDiff(other.diff);
      return [...filesOfDiff(ours)].filter((f) => theirs.has(f));
    };
    if (await diffContainedIn(pair, base, options)) {
      checked.add(other.id);
      return { checked, madeBy: { fixId: other.id, files: files() } };
    }
    const conflicts = await diffsConflict(pair, base, options);
    checked.add(other.id);
    if (conflicts) return { checked, conflict: { fixId: other.id, files: files() } };
  }
  return { checked };
}

/** Why a run that conflicts with a completed fix does not complete, naming that fix and the files both change. */
export function conflictReason(conflict: { fixId: string; files: string[] }): string {
  const files = conflict.files.length ? conflict.files.join(', ') : 'the same files';
  return (
    `its change conflicts with fix ${conflict.fixId}, completed earlier from the same commit: both change ${files} where the two ` +
    `would not merge one after the other; merge fix ${conflict.fixId} first, then scan again and fix what is left`
  );
}

/** Why a run whose every change a completed fix already makes does not complete, naming that fix. */
export function alreadyMadeReason(madeBy: { fixId: string; files: string[] }): string {
  const files = madeBy.files.length ? ` in ${madeBy.files.join(', ')}` : '';
  return (
    `its change is already made by fix ${madeBy.fixId}, completed earlier from the same commit: that fix's diff holds every change ` +
    `this one makes${files}, so merging fix ${madeBy.fixId} fixes this finding too and a second pull request would repeat it`
  );
}
