import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CheckoutError, RemoteBranchExistsError, type Checkout, type CheckoutCache, type CheckoutSource } from '../checkout-cache.ts';
import { git, GitError, type GitOptions } from '../git-command.ts';

export interface CommitIdentity {
  name: string;
  email: string;
}

export const DEFAULT_COMMIT_IDENTITY: CommitIdentity = { name: 'Bulwark', email: 'bulwark@localhost' };

export interface FixBranchInput {
  source: CheckoutSource;
  /** The commit the diff was made against; null falls back to the head of `baseBranch`. */
  baseCommit: string | null;
  baseBranch: string;
  /** A unified diff, as `git diff` writes it, relative to the repository root. */
  diff: string;
  /** A validated branch name (see branch-name.ts), without `refs/heads/`. */
  branch: string;
  message: string;
  identity?: CommitIdentity;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called when the branch is about to be pushed (after checkout, patch and commit). */
  onPushing?: () => void;
}

export interface FixBranch {
  branch: string;
  /** The fix commit: one commit on top of `baseCommit`. */
  commit: string;
  baseCommit: string;
  /** True when the branch was already on the remote with exactly this change (a retry), so nothing was pushed. */
  reused: boolean;
}

export type FixBranchFailure = 'checkout' | 'patch' | 'push' | 'branch_exists';

/** Why a fix could not be put on a branch; the message is safe to show and never contains a token. */
export class FixBranchError extends Error {
  readonly failure: FixBranchFailure;

  constructor(failure: FixBranchFailure, message: string) {
    super(message);
    this.failure = failure;
  }
}

function localOptions(dir: string, input: FixBranchInput, extraEnv: Record<string, string> = {}): GitOptions {
  const secrets = input.source.token ? [input.source.token] : [];
  return { cwd: dir, timeoutMs: input.timeoutMs ?? 120_000, signal: input.signal, secrets, env: extraEnv };
}

/** Applies the diff to the worktree and its index; a diff that does not apply leaves a clear reason. */
async function applyDiff(checkout: Checkout, input: FixBranchInput): Promise<void> {
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'bulwark-patch-'));
  try {
    const patch = path.join(scratch, 'fix.diff');
    await fs.writeFile(patch, input.diff.endsWith('\n') ? input.diff : `${input.diff}\n`);
    try {
      await git(['apply', '--index', '--whitespace=nowarn', patch], localOptions(checkout.dir, input));
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      const detail = /No valid patches/i.test(error.message)
        ? 'the stored diff holds no changes git can read'
        : error.message
            .split(scratch + path.sep)
            .join('')
            .split(/\s*\berror:\s+/)
            .filter(Boolean)
            .join('; ');
      throw new FixBranchError('patch', `the fix's changes do not apply to commit ${checkout.commit.slice(0, 12)}: ${detail}`);
    }
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

async function commitChanges(checkout: Checkout, input: FixBranchInput): Promise<string> {
  const identity = input.identity ?? DEFAULT_COMMIT_IDENTITY;
  const env = {
    GIT_AUTHOR_NAME: identity.name,
    GIT_AUTHOR_EMAIL: identity.email,
    GIT_COMMITTER_NAME: identity.name,
    GIT_COMMITTER_EMAIL: identity.email,
  };
  const options = localOptions(checkout.dir, input, env);
  const staged = await git(['diff', '--cached', '--name-only'], options);
  if (!staged.trim()) throw new FixBranchError('patch', `the fix's changes make no difference to commit ${checkout.commit.slice(0, 12)}`);
  await git(
    ['-c', 'core.hooksPath=/dev/null', '-c', 'commit.gpgsign=false', 'commit', '--quiet', '--no-verify', '--cleanup=verbatim', '-m', input.message],
    options,
  );
  return (await git(['rev-parse', 'HEAD'], options)).trim();
}

/**
 * What the mirror (just fetched) has at `branch`: nothing, exactly our change (one commit on the same
 * base with the same tree: a retry after the push went through and the pull request did not), or other work.
 */
async function branchOnRemote(
  checkout: Checkout,
  input: FixBranchInput,
  commit: string,
): Promise<{ state: 'absent' } | { state: 'same'; commit: string } | { state: 'different' }> {
  const options = localOptions(checkout.dir, input);
  const read = (rev: string) =>
    git(['--git-dir', checkout.gitDir, 'rev-parse', '--verify', '--quiet', rev], options).then(
      (s) => s.trim(),
      () => null,
    );
  const remote = await read(`refs/heads/${input.branch}^{commit}`);
  if (!remote) return { state: 'absent' };
  const [remoteTree, remoteParent, ourTree] = await Promise.all([read(`${remote}^{tree}`), read(`${remote}^1`), read(`${commit}^{tree}`)]);
  return remoteTree === ourTree && remoteParent === checkout.commit ? { state: 'same', commit: remote } : { state: 'different' };
}

/**
 * Puts a fix on a new branch of its source: a worktree at the base commit, the diff applied and
 * committed as one commit, pushed without force. The worktree is removed whatever happens.
 */
export async function pushFixBranch(checkouts: CheckoutCache, input: FixBranchInput): Promise<FixBranch> {
  const workId = `pr-${crypto.randomUUID()}`;
  let checkout: Checkout;
  try {
    checkout = input.baseCommit
      ? await checkouts.checkoutCommit(input.source, input.baseCommit, workId, input.signal)
      : await checkouts.checkout(input.source, input.baseBranch, workId, input.signal);
  } catch (error) {
    if (error instanceof CheckoutError) throw new FixBranchError('checkout', error.message);
    throw error;
  }
  try {
    await applyDiff(checkout, input);
    const commit = await commitChanges(checkout, input).catch((error: unknown) => {
      if (error instanceof GitError) throw new FixBranchError('patch', `could not commit the fix's changes: ${error.message}`);
      throw error;
    });
    const existing = await branchOnRemote(checkout, input, commit);
    if (existing.state === 'different') throw new FixBranchError('branch_exists', `branch "${input.branch}" already exists in the repository`);
    if (existing.state === 'same') return { branch: input.branch, commit: existing.commit, baseCommit: checkout.commit, reused: true };
    input.onPushing?.();
    try {
      await checkouts.push(input.source, checkout.dir, input.branch, input.signal);
    } catch (error) {
      if (error instanceof RemoteBranchExistsError) throw new FixBranchError('branch_exists', error.message);
      if (error instanceof CheckoutError) throw new FixBranchError('push', error.message);
      throw error;
    }
    return { branch: input.branch, commit, baseCommit: checkout.commit, reused: false };
  } finally {
    await checkout.dispose();
  }
}
