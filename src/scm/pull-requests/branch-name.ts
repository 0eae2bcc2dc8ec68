import os from 'node:os';
import { git, GitError } from '../git-command.ts';

/** The branch a fix is pushed to when the caller names none. */
export function defaultBranchName(fixId: string): string {
  // The whole id: fix ids are UUIDv7, whose leading characters are a timestamp shared by every fix made in
  // the same minute, so a prefix would send two fixes to one branch.
  return `bulwark/fix-${fixId}`;
}

/** Longest accepted name, in bytes: code hosts and file systems trip over longer refs. */
export const MAX_BRANCH_NAME_BYTES = 200;

/**
 * Why `name` breaks one of `git check-ref-format --branch`'s rules, in words a caller can act on; null
 * when none of the rules written out here is broken (git has the last word).
 */
export function branchNameProblem(name: string): string | null {
  if (name === '') return 'it is empty';
  if (Buffer.byteLength(name) > MAX_BRANCH_NAME_BYTES) return `it is longer than ${MAX_BRANCH_NAME_BYTES} bytes`;
  if (name.startsWith('-')) return 'it starts with "-"';
  if (name === 'HEAD' || name === '@') return `"${name}" is reserved`;
  // git would take it as a branch under refs/heads/refs/…, and people reading it would take it for another ref.
  if (name.startsWith('refs/')) return 'it starts with "refs/": give the branch name alone';
  if (/[\x00-\x20\x7f]/.test(name)) return 'it contains a space or a control character';
  // Bidirectional controls and invisible characters make a name read differently from what it is.
  if (/[\u0080-\u009f\u00a0\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\uffff]|[\u{e0000}-\u{e0fff}]/u.test(name)) {
    return 'it contains a bidirectional, invisible or non-printing character';
  }
  if (!name.isWellFormed()) return 'it is not valid Unicode';
  const special = /[~^:?*[\\]/.exec(name);
  if (special) return `it contains "${special[0]}"`;
  if (name.includes('..')) return 'it contains ".."';
  if (name.includes('@{')) return 'it contains "@{"';
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//')) return 'it starts or ends with "/" or contains "//"';
  if (name.endsWith('.')) return 'it ends with "."';
  for (const component of name.split('/')) {
    if (component.startsWith('.')) return 'a part of it starts with "."';
    if (component.endsWith('.lock')) return 'a part of it ends with ".lock"';
  }
  return null;
}

export class InvalidBranchNameError extends Error {
  readonly branchName: string;

  constructor(name: string, reason: string) {
    super(`"${name}" is not a valid git branch name: ${reason}`);
    this.branchName = name;
  }
}

/**
 * Checks `name` as a branch name the way git does (`git check-ref-format --branch`), after refusing on its
 * own what git would expand rather than judge (`@{-1}`) or read as an option (`-x`).
 */
export async function validateBranchName(name: string, timeoutMs = 10_000): Promise<string> {
  const problem = branchNameProblem(name);
  if (problem) throw new InvalidBranchNameError(name, problem);
  try {
    // Run outside any repository, so nothing about the server's own working directory can matter.
    await git(['check-ref-format', '--branch', name], { cwd: os.tmpdir(), timeoutMs, env: { GIT_CEILING_DIRECTORIES: os.tmpdir() } });
  } catch (error) {
    if (error instanceof GitError) throw new InvalidBranchNameError(name, 'git does not accept it as a branch name');
    throw error;
  }
  return name;
}
