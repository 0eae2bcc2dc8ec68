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
      const remote = source.cloneUrl.startsWith('/') ? `file://${source.cloneUrl}` : source.cloneUrl;
      await git(['--git-dir', gitDir, 'config', 'remote.origin.url', remote], options);
      try {
        await git(
          ['--git-dir', gitDir, 'fetch', '--prune', '--no-tags', '--quiet', 'origin', '+refs/heads/*:refs/heads/*'],
          options,
        );
      } catch (error) {
        if (error instanceof GitError) throw new CheckoutError(`could not fetch the repository: ${error.message}`);
        throw error;
      }
      try {
        const commit = await git(['--git-dir', gitDir, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], options);
        return { gitDir, commit: commit.trim() };
      } catch {
        throw new CheckoutError(`branch "${branch}" does not exist in the repository`);
      }
    });
  }

  async checkout(source: CheckoutSource, branch: string, workId: string, signal?: AbortSignal): Promise<Checkout> {
    const { gitDir, commit } = await this.refresh(source, branch, signal);
    const dir = path.join(this.options.root, 'worktrees', workId);
    const options = this.gitOptions(source, signal);
    await this.serialized(source.id, async () => {
      await fs.rm(dir, { recursive: true, force: true });
      await git(['--git-dir', gitDir, 'worktree', 'prune'], options);
      await git(['--git-dir', gitDir, 'worktree', 'add', '--detach', '--force', dir, commit], options);
    });
    return {
      dir,
      gitDir,
      commit,
      dispose: async () => {
        await fs.rm(dir, { recursive: true, force: true });
        await this.serialized(source.id, () => git(['--git-dir', gitDir, 'worktree', 'prune'], options)).catch(() => {});
      },
    };
  }
}
