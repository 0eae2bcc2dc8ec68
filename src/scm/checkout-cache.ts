import fs from 'node:fs/promises';
import path from 'node:path';
import { git, GitError, type GitOptions } from './git-command.ts';

export interface CheckoutSource {
  id: string;
  provider: string;
  cloneUrl: string;
  token: string | null;
}

export interface Checkout {
  dir: string;
  /** The bare mirror the worktree belongs to, for reading history. */
  gitDir: string;
  commit: string;
  dispose(): Promise<void>;
}

export interface CheckoutCacheOptions {
  root: string;
  allowLocal: boolean;
  timeoutMs: number;
}

/** A failure a person can act on, safe to show as a scan's status_reason. */
export class CheckoutError extends Error {}

/** The HTTP Basic user each code host expects in front of an access token. */
const TOKEN_USERS: Record<string, string> = { github: 'x-access-token', gitlab: 'oauth2', azure_devops: '' };

function classify(url: string): 'https' | 'http' | 'local' | 'other' {
  if (/^https:\/\//i.test(url)) return 'https';
  if (/^http:\/\//i.test(url)) return 'http';
  if (/^file:\/\//i.test(url) || path.isAbsolute(url)) return 'local';
  return 'other';
}

/**
 * One bare mirror per source repo under `<root>/mirrors`, refreshed with a fetch before each scan, and a
 * detached worktree per scan at the branch head under `<root>/worktrees`. Fetches of the same source are
 * serialized within this process.
 */
export class CheckoutCache {
  private readonly options: CheckoutCacheOptions;
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(options: CheckoutCacheOptions) {
    this.options = options;
  }

  private gitOptions(source: CheckoutSource, signal?: AbortSignal): GitOptions {
    const kind = classify(source.cloneUrl);
    const env: Record<string, string> = { GIT_ALLOW_PROTOCOL: kind === 'local' ? 'file' : 'https' };
    const secrets: string[] = [];
    if (source.token) {
      const basic = Buffer.from(`${TOKEN_USERS[source.provider] ?? 'x-access-token'}:${source.token}`).toString('base64');
      // GIT_CONFIG_* passes the header as configuration through the environment: not in argv, not on disk.
      Object.assign(env, {
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'http.extraHeader',
        GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
      });
      secrets.push(source.token, basic);
    }
    return { env, secrets, timeoutMs: this.options.timeoutMs, signal };
  }

  private checkUrl(url: string): void {
    const kind = classify(url);
    if (kind === 'local' && !this.options.allowLocal) {
      throw new CheckoutError('cloning from local paths is disabled on this server (BULWARK_ALLOW_LOCAL_REPOS)');
    }
    if (kind === 'http') throw new CheckoutError('refusing to clone over plain http; use an https:// clone URL');
    if (kind === 'other') throw new CheckoutError('unsupported clone URL: only https:// (and local paths when enabled) are accepted');
  }

  private async serialized<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(work);
    this.locks.set(key, next);
    try {
      return await next;
    } finally {
      if (this.locks.get(key) === next) this.locks.delete(key);
    }
  }

  /** Brings the mirror up to date and returns the commit the branch points at. */
  private async refresh(source: CheckoutSource, branch: string, signal?: AbortSignal): Promise<{ gitDir: string; commit: string }> {
    const gitDir = await this.fetchMirror(source, signal);
    try {
      const commit = await git(['--git-dir', gitDir, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], this.gitOptions(source, signal));
      return { gitDir, commit: commit.trim() };
    } catch {
      throw new CheckoutError(`branch "${branch}" does not exist in the repository`);
    }
  }

  async checkout(source: CheckoutSource, branch: string, workId: string, signal?: AbortSignal): Promise<Checkout> {
    const { gitDir, commit } = await this.refresh(source, branch, signal);
    return this.addWorktree(source, gitDir, commit, workId, signal);
  }

  /** A detached worktree of the mirror at `commit` under `<root>/worktrees/<workId>`, removed by dispose(). */
  private async addWorktree(source: CheckoutSource, gitDir: string, commit: string, workId: string, signal?: AbortSignal): Promise<Checkout> {
    const dir = path.join(this.options.root, 'worktrees', workId);
    const options = this.gitOptions(source, signal);
    await this.serialized(source.id, async () => {
      await fs.rm(dir, { recursive: true, force: true });
      await git(['--git-dir', gitDir, 'worktree', 'prune'], options);
      try {
        await git(['--git-dir', gitDir, 'worktree', 'add', '--detach', '--force', dir, commit], options);
      } catch (error) {
        // An interrupted checkout leaves a partial copy of the repository behind; it goes too.
        await fs.rm(dir, { recursive: true, force: true });
        throw error;
      }
    });
    return {
      dir,
      gitDir,
      commit,
      dispose: async () => {
        await fs.rm(dir, { recursive: true, force: true });
        // Pruning needs no credentials and must run even when the job's signal has fired.
        await this.serialized(source.id, () => git(['--git-dir', gitDir, 'worktree', 'prune'], { timeoutMs: this.options.timeoutMs })).catch(() => {});
      },
    };
  }

  // Fix branches: a worktree at an exact commit (a fix's base) and a push of a worktree's HEAD to a new
  // branch, with the same credentials and URL rules as fetching.

  /** Brings every branch of the mirror up to date with the remote; returns the mirror's git directory. */
  private async fetchMirror(source: CheckoutSource, signal?: AbortSignal): Promise<string> {
    this.checkUrl(source.cloneUrl);
    const gitDir = path.join(this.options.root, 'mirrors', `${source.id}.git`);
    const options = this.gitOptions(source, signal);
    return this.serialized(source.id, async () => {
      try {
        await fs.access(path.join(gitDir, 'HEAD'));
      } catch {
        await fs.rm(gitDir, { recursive: true, force: true });
        await fs.mkdir(gitDir, { recursive: true });
        await git(['init', '--bare', '--quiet', gitDir], options);
      }
      await git(['--git-dir', gitDir, 'config', 'remote.origin.url', remoteUrlOf(source.cloneUrl)], options);
      try {
        await git(['--git-dir', gitDir, 'fetch', '--prune', '--no-tags', '--quiet', 'origin', '+refs/heads/*:refs/heads/*'], options);
      } catch (error) {
        if (error instanceof GitError) throw new CheckoutError(`could not fetch the repository: ${error.message}`);
        throw error;
      }
      return gitDir;
    });
  }

  /**
   * A detached worktree at `commit`, which must be in the repository's history: the mirror is refreshed
   * first, and a commit no branch reaches any more is asked for by id.
   */
  async checkoutCommit(source: CheckoutSource, commit: string, workId: string, signal?: AbortSignal): Promise<Checkout> {
    if (!/^[0-9a-f]{7,64}$/i.test(commit)) throw new CheckoutError(`"${commit}" is not a commit id`);
    const gitDir = await this.fetchMirror(source, signal);
    const options = this.gitOptions(source, signal);
    const resolve = () => git(['--git-dir', gitDir, 'rev-parse', '--verify', '--quiet', `${commit}^{commit}`], options).then((s) => s.trim());
    let resolved = await resolve().catch(() => null);
    if (!resolved) {
      await this.serialized(source.id, () =>
        git(['--git-dir', gitDir, 'fetch', '--no-tags', '--quiet', 'origin', commit], options).catch(() => {}),
      );
      resolved = await resolve().catch(() => null);
    }
    if (!resolved) throw new CheckoutError(`commit ${commit} is no longer in the repository`);
    return this.addWorktree(source, gitDir, resolved, workId, signal);
  }

  /**
   * Pushes the worktree's HEAD to a new branch `refs/heads/<branch>` of the source, never over an existing
   * one: the lease expects the branch to be absent, so the remote refuses atomically if it is there.
   */
  async push(source: CheckoutSource, dir: string, branch: string, signal?: AbortSignal): Promise<void> {
    this.checkUrl(source.cloneUrl);
    const options = this.gitOptions(source, signal);
    const ref = `refs/heads/${branch}`;
    const valid = !branch.startsWith('-') && (await git(['check-ref-format', ref], options).then(() => true, () => false));
    if (!valid) throw new CheckoutError(`"${branch}" is not a valid branch name`);
    try {
      await git(
        ['-c', 'core.hooksPath=/dev/null', 'push', '--quiet', '--no-verify', `--force-with-lease=${ref}:`, remoteUrlOf(source.cloneUrl), `HEAD:${ref}`],
        { ...options, cwd: dir },
      );
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      if (/stale info|already exists|fetch first|non-fast-forward/i.test(error.message)) {
        throw new RemoteBranchExistsError(`branch "${branch}" already exists in the repository`);
      }
      throw new CheckoutError(`could not push branch "${branch}": ${error.message}`);
    }
  }
}

/** A push found the branch already on the remote; nothing was changed there. */
export class RemoteBranchExistsError extends CheckoutError {}

/** Where git fetches from and pushes to: a bare absolute path becomes a file:// URL. */
function remoteUrlOf(cloneUrl: string): string {
  return cloneUrl.startsWith('/') ? `file://${cloneUrl}` : cloneUrl;
}
