import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { codeHostNamed } from '../code-hosts/index.ts';
import { checkCloneUrl, classifyCloneUrl, CloneUrlError, curloptResolveOf, resolveCloneHost, type CloneUrlPolicy } from './clone-url.ts';
import { git, GitError, gitRecords, type GitOptions } from './git-command.ts';
import { branchNameProblem } from './pull-requests/branch-name.ts';
import { PARTIAL_RESULT } from '../scanning/engine.ts';

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
  /** What the scan budget left out of the work tree, said to whoever reads the scan; absent when it holds every file. */
  budgetWarning?: string;
  dispose(): Promise<void>;
}

/** How much of a commit a scan's work tree may hold (see ScanBudgets in config.ts). */
export interface CheckoutBudget {
  maxFiles: number;
  maxBytes: number;
}

export interface CheckoutCacheOptions {
  root: string;
  allowLocal: boolean;
  /** Folder local repositories must be in (`{org}` matches any organization's folder here); null: none allowed. */
  localRoot?: string | null;
  /** Whether clone URLs may reach loopback, private, link-local or metadata addresses. */
  allowPrivateHosts?: boolean;
  timeoutMs: number;
  /** Bytes the mirrors may take together; beyond it the least recently used unused mirrors are removed. 0: no cap. */
  maxMirrorBytes?: number;
  /** Host name resolution for https clone URLs, replaceable in tests. */
  lookup?: (host: string) => Promise<string[]>;
  /** Scans' work trees hold at most this much of the commit; fixes' work trees hold all of it. None: no limit. */
  scanBudget?: CheckoutBudget;
}

/** The file in a process's work-tree folder naming the process that owns it. */
const OWNER_FILE = 'owner.json';
/** The file in a mirror whose modification time is the mirror's last use. */
const LAST_USED_FILE = 'bulwark-last-used';

interface Owner {
  pid: number;
  host: string;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function sizeOf(target: string): Promise<number> {
  let total = 0;
  let entries;
  try {
    entries = await fs.readdir(target, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(target, entry.name);
    if (entry.isDirectory()) total += await sizeOf(full);
    else total += await fs.lstat(full).then((stat) => stat.size, () => 0);
  }
  return total;
}

/** A failure a person can act on, safe to show as a scan's status_reason. */
export class CheckoutError extends Error {}

/**
 * One bare mirror per source repo under `<root>/mirrors`, refreshed with a fetch before each scan, and a
 * detached worktree per scan at the branch head under `<root>/worktrees/<process>`, a folder of this
 * process's own. Fetches of the same source are serialized within this process.
 *
 * Crash hygiene: `cleanLeftovers()` (at process start) removes the work-tree folders of processes of this
 * machine that are gone; `withinJob()` removes every work tree a job made when it ends, however it ends;
 * mirrors beyond `maxMirrorBytes` are removed least recently used first, never one a work tree uses.
 */
export class CheckoutCache {
  private readonly options: CheckoutCacheOptions;
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly ownDir: string;
  private ownDirReady: Promise<void> | null = null;
  private readonly jobs = new AsyncLocalStorage<Set<Checkout>>();

  constructor(options: CheckoutCacheOptions) {
    this.options = options;
    this.ownDir = path.join(options.root, 'worktrees', `${os.hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`);
  }

  private get policy(): CloneUrlPolicy {
    const localRoot = this.options.localRoot ?? null;
    return {
      allowLocal: this.options.allowLocal,
      // Which organization a source belongs to is checked at registration; here any organization's folder is inside.
      localRoot: localRoot && localRoot.includes('{org}') ? localRoot.slice(0, localRoot.indexOf('{org}')) : localRoot,
      allowPrivateHosts: this.options.allowPrivateHosts ?? false,
    };
  }

  private gitOptions(source: CheckoutSource, signal?: AbortSignal, config: [string, string][] = []): GitOptions {
    const kind = classifyCloneUrl(source.cloneUrl);
    const env: Record<string, string> = { GIT_ALLOW_PROTOCOL: kind === 'local' ? 'file' : 'https' };
    const secrets: string[] = [];
    const entries = [...config];
    if (source.token) {
      const basic = Buffer.from(`${codeHostNamed(source.provider)?.gitTokenUser ?? 'x-access-token'}:${source.token}`).toString('base64');
      // GIT_CONFIG_* passes the header as configuration through the environment: not in argv, not on disk.
      entries.push(['http.extraHeader', `Authorization: Basic ${basic}`]);
      secrets.push(source.token, basic);
    }
    if (entries.length) {
      env.GIT_CONFIG_COUNT = String(entries.length);
      entries.forEach(([key, value], i) => {
        env[`GIT_CONFIG_KEY_${i}`] = key;
        env[`GIT_CONFIG_VALUE_${i}`] = value;
      });
    }
    return { env, secrets, timeoutMs: this.options.timeoutMs, signal };
  }

  /**
   * Options for a git command that talks to the source: the URL is checked again, and an https host is
   * resolved now, checked, and pinned for git with `http.curloptResolve`, so git connects to exactly the
   * addresses checked (DNS rebinding cannot reach an internal address); redirects are not followed.
   */
  private async networkOptions(source: CheckoutSource, signal?: AbortSignal): Promise<GitOptions> {
    const kind = this.checkUrl(source.cloneUrl);
    if (kind !== 'https') return this.gitOptions(source, signal);
    let pin: string;
    try {
      pin = curloptResolveOf(await resolveCloneHost(source.cloneUrl, this.policy, this.options.lookup));
    } catch (error) {
      if (error instanceof CloneUrlError) throw new CheckoutError(error.message);
      throw error;
    }
    return this.gitOptions(source, signal, [
      ['http.curloptResolve', pin],
      ['http.followRedirects', 'false'],
    ]);
  }

  private checkUrl(url: string): ReturnType<typeof classifyCloneUrl> {
    try {
      return checkCloneUrl(url, this.policy);
    } catch (error) {
      if (error instanceof CloneUrlError) throw new CheckoutError(error.message);
      throw error;
    }
  }

  /**
   * Runs one job; every work tree the job made and did not dispose of is removed when it ends (success,
   * failure or abort), then mirrors beyond the size cap are evicted.
   */
  async withinJob<T>(work: () => Promise<T>): Promise<T> {
    const made = new Set<Checkout>();
    try {
      return await this.jobs.run(made, work);
    } finally {
      for (const checkout of made) await checkout.dispose().catch(() => {});
      await this.evictMirrors().catch(() => {});
    }
  }

  /**
   * At process start: removes the work-tree folders of processes on this machine that are no longer
   * running (a crash or kill -9 leaves their checkouts, secrets included, on disk), prunes the mirrors'
   * records of them, and applies the size cap. Folders of live processes, and of other machines sharing
   * the root, are left alone.
   */
  async cleanLeftovers(): Promise<void> {
    const worktrees = path.join(this.options.root, 'worktrees');
    const entries = await fs.readdir(worktrees, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const dir = path.join(worktrees, entry.name);
      if (dir === this.ownDir) continue;
      let owner: Owner | null = null;
      try {
        owner = JSON.parse(await fs.readFile(path.join(dir, OWNER_FILE), 'utf8')) as Owner;
      } catch {
        owner = null;
      }
      if (owner && (owner.host !== os.hostname() || processAlive(owner.pid))) continue;
      if (!owner) {
        // A folder whose owner file is still being written belongs to a process starting right now.
        const age = await fs.stat(dir).then((stat) => Date.now() - stat.mtimeMs, () => 0);
        if (age < 60_000) continue;
      }
      await fs.rm(dir, { recursive: true, force: true });
    }
    for (const gitDir of await this.mirrorDirs()) {
      await git(['--git-dir', gitDir, 'worktree', 'prune'], { timeoutMs: this.options.timeoutMs }).catch(() => {});
    }
    await this.evictMirrors();
  }

  private async mirrorDirs(): Promise<string[]> {
    const mirrors = path.join(this.options.root, 'mirrors');
    const entries = await fs.readdir(mirrors, { withFileTypes: true }).catch(() => []);
    return entries.filter((e) => e.isDirectory() && e.name.endsWith('.git')).map((e) => path.join(mirrors, e.name));
  }

  /** Whether a mirror has a work tree that still exists, or was fetched into within the last git timeout. */
  private async mirrorInUse(gitDir: string, lastUsed: number): Promise<boolean> {
    if (this.locks.has(path.basename(gitDir, '.git'))) return true;
    if (Date.now() - lastUsed < this.options.timeoutMs) return true;
    const admin = path.join(gitDir, 'worktrees');
    for (const name of await fs.readdir(admin).catch(() => [] as string[])) {
      const pointer = await fs.readFile(path.join(admin, name, 'gitdir'), 'utf8').catch(() => '');
      if (pointer && (await fs.access(path.dirname(pointer.trim())).then(() => true, () => false))) return true;
    }
    return false;
  }

  /** Removes least recently used mirrors no work tree uses until all mirrors fit in `maxMirrorBytes`. */
  async evictMirrors(): Promise<string[]> {
    const cap = this.options.maxMirrorBytes ?? 0;
    if (!cap) return [];
    const mirrors = await Promise.all(
      (await this.mirrorDirs()).map(async (gitDir) => ({
        gitDir,
        bytes: await sizeOf(gitDir),
        lastUsed: await fs.stat(path.join(gitDir, LAST_USED_FILE)).then((stat) => stat.mtimeMs, () => 0),
      })),
    );
    let total = mirrors.reduce((sum, m) => sum + m.bytes, 0);
    const evicted: string[] = [];
    for (const mirror of mirrors.sort((a, b) => a.lastUsed - b.lastUsed)) {
      if (total <= cap) break;
      if (await this.mirrorInUse(mirror.gitDir, mirror.lastUsed)) continue;
      await fs.rm(mirror.gitDir, { recursive: true, force: true });
      total -= mirror.bytes;
      evicted.push(mirror.gitDir);
    }
    return evicted;
  }

  /** This process's work-tree folder, created with its owner file on first use. */
  private async worktreeDir(workId: string): Promise<string> {
    this.ownDirReady ??= (async () => {
      await fs.mkdir(this.ownDir, { recursive: true });
      const owner: Owner = { pid: process.pid, host: os.hostname() };
      await fs.writeFile(path.join(this.ownDir, OWNER_FILE), JSON.stringify(owner));
    })();
    try {
      await this.ownDirReady;
    } catch (error) {
      this.ownDirReady = null;
      throw error;
    }
    // The folder may have been removed meanwhile (a test, an operator): recreate it with its owner file.
    await fs.access(path.join(this.ownDir, OWNER_FILE)).catch(async () => {
      this.ownDirReady = null;
      await this.worktreeDir(workId);
    });
    return path.join(this.ownDir, workId);
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
    const problem = branchNameProblem(branch);
    if (problem) throw new CheckoutError(`"${branch}" is not a valid branch name: ${problem}`);
    const gitDir = await this.fetchMirror(source, signal);
    // The branch is looked up among the mirror's refs by its exact name, never evaluated as a revision (`main~1`).
    const refs = await git(['--git-dir', gitDir, 'for-each-ref', '--format=%(objectname) %(refname)', `refs/heads/${branch}`], this.gitOptions(source, signal));
    const line = refs.split('\n').find((l) => l.slice(l.indexOf(' ') + 1) === `refs/heads/${branch}`);
    if (!line) throw new CheckoutError(`branch "${branch}" does not exist in the repository`);
    return { gitDir, commit: line.slice(0, line.indexOf(' ')) };
  }

  /**
   * Whether `branch` is a branch of the source repository right now, asked of the remote with
   * `git ls-remote` and matched by exact name (never evaluated as a revision).
   */
  async branchExists(source: CheckoutSource, branch: string, signal?: AbortSignal): Promise<boolean> {
    if (branchNameProblem(branch)) return false;
    const options = await this.networkOptions(source, signal);
    let listing: string;
    try {
      listing = await git(['ls-remote', '--heads', '--', remoteUrlOf(source.cloneUrl), `refs/heads/${branch}`], { ...options, cwd: os.tmpdir() });
    } catch (error) {
      if (error instanceof GitError) throw new CheckoutError(`could not read the repository's branches: ${error.message}`);
      throw error;
    }
    return listing.split('\n').some((line) => line.split('\t')[1] === `refs/heads/${branch}`);
  }

  async checkout(source: CheckoutSource, branch: string, workId: string, signal?: AbortSignal): Promise<Checkout> {
    const { gitDir, commit } = await this.refresh(source, branch, signal);
    return this.addWorktree(source, gitDir, commit, workId, signal, this.options.scanBudget);
  }

  /**
   * The files of `commit` a work tree within `budget` holds: the first `maxFiles` entries in path order,
   * less those that would take it past `maxBytes`; null when every file fits. Read from the mirror's
   * listing, which is cut short there, before anything is written: a tree that reuses its objects to
   * name millions of files costs the listing of the budget's worth.
   */
  private async filesWithin(gitDir: string, commit: string, budget: CheckoutBudget, options: GitOptions): Promise<{ entries: string[]; warning: string } | null> {
    // `<mode> <object>\t<path>`, as `git update-index --index-info` reads them.
    const entries: string[] = [];
    let bytes = 0;
    let seen = 0;
    let tooMany = false;
    let tooLarge = 0;
    await gitRecords(['--git-dir', gitDir, 'ls-tree', '-r', '-l', '-z', '--full-tree', commit], options, (record) => {
      const tab = record.indexOf('\t');
      const [mode, type, object, size] = record.slice(0, tab).split(/ +/);
      if (type !== 'blob') return true;
      if (++seen > budget.maxFiles) {
        tooMany = true;
        return false;
      }
      const length = Number(size) || 0;
      if (bytes + length > budget.maxBytes) tooLarge++;
      else {
        bytes += length;
        entries.push(`${mode} ${object}\t${record.slice(tab + 1)}`);
      }
      return true;
    });
    if (!tooMany && !tooLarge) return null;
    const said = [
      tooMany && `the commit has more than ${budget.maxFiles} files (BULWARK_SCAN_MAX_FILES), so only the first ${budget.maxFiles} in path order were checked out`,
      tooLarge && `${tooLarge} file${tooLarge === 1 ? ' was' : 's were'} left out to keep the files scanned within ${budget.maxBytes} bytes (BULWARK_SCAN_MAX_BYTES)`,
    ].filter(Boolean);
    return { entries, warning: `${PARTIAL_RESULT} ${said.join('; ')}; findings in what was left out are not reported and none was resolved` };
  }

  /** A detached worktree of the mirror at `commit` under this process's folder, removed by dispose(). */
  private async addWorktree(source: CheckoutSource, gitDir: string, commit: string, workId: string, signal?: AbortSignal, budget?: CheckoutBudget): Promise<Checkout> {
    if (!/^[\w.-]+$/.test(workId) || workId.startsWith('.')) throw new CheckoutError(`"${workId}" is not a work tree name`);
    const dir = await this.worktreeDir(workId);
    const options = this.gitOptions(source, signal);
    const within = budget ? await this.filesWithin(gitDir, commit, budget, options) : null;
    await this.serialized(source.id, async () => {
      await fs.rm(dir, { recursive: true, force: true });
      await git(['--git-dir', gitDir, 'worktree', 'prune'], options);
      try {
        if (!within) {
          await git(['--git-dir', gitDir, 'worktree', 'add', '--detach', '--force', dir, commit], options);
        } else {
          // Only the files within the budget enter the index and are written: the rest of the commit never
          // reaches the disk (an index built from the listing, in one pass, rather than pathspecs matched per file).
          await git(['--git-dir', gitDir, 'worktree', 'add', '--detach', '--force', '--no-checkout', dir, commit], options);
          const inTree = { ...options, cwd: dir };
          await git(['read-tree', '--empty'], inTree);
          await git(['update-index', '-z', '--index-info'], { ...inTree, input: within.entries.map((entry) => `${entry}\0`).join('') });
          await git(['checkout-index', '--all', '--force'], inTree);
        }
      } catch (error) {
        // An interrupted checkout leaves a partial copy of the repository behind; it goes too.
        await fs.rm(dir, { recursive: true, force: true });
        throw error;
      }
    });
    const job = this.jobs.getStore();
    const checkout: Checkout = {
      dir,
      gitDir,
      commit,
      ...(within ? { budgetWarning: within.warning } : {}),
      dispose: async () => {
        job?.delete(checkout);
        await fs.rm(dir, { recursive: true, force: true });
        // Pruning needs no credentials and must run even when the job's signal has fired.
        await this.serialized(source.id, () => git(['--git-dir', gitDir, 'worktree', 'prune'], { timeoutMs: this.options.timeoutMs })).catch(() => {});
      },
    };
    job?.add(checkout);
    return checkout;
  }

  // Fix branches: a worktree at an exact commit (a fix's base) and a push of a worktree's HEAD to a new
  // branch, with the same credentials and URL rules as fetching.

  /** Brings every branch of the mirror up to date with the remote; returns the mirror's git directory. */
  private async fetchMirror(source: CheckoutSource, signal?: AbortSignal): Promise<string> {
    if (!/^[\w-]+$/.test(source.id)) throw new CheckoutError(`"${source.id}" is not a source id`);
    const gitDir = path.join(this.options.root, 'mirrors', `${source.id}.git`);
    return this.serialized(source.id, async () => {
      const options = await this.networkOptions(source, signal);
      try {
        await fs.access(path.join(gitDir, 'HEAD'));
      } catch {
        await fs.rm(gitDir, { recursive: true, force: true });
        await fs.mkdir(gitDir, { recursive: true });
        await git(['init', '--bare', '--quiet', gitDir], options);
      }
      await fs.writeFile(path.join(gitDir, LAST_USED_FILE), '');
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
   * first, and a commit no branch reaches any more is asked for by id. `forScan` holds it to the scan budget,
   * as a branch checked out for a scan is (a pull request's head is anyone's code).
   */
  async checkoutCommit(source: CheckoutSource, commit: string, workId: string, signal?: AbortSignal, forScan = false): Promise<Checkout> {
    if (!/^[0-9a-f]{7,64}$/i.test(commit)) throw new CheckoutError(`"${commit}" is not a commit id`);
    const gitDir = await this.fetchMirror(source, signal);
    const options = this.gitOptions(source, signal);
    const resolve = () => git(['--git-dir', gitDir, 'rev-parse', '--verify', '--quiet', `${commit}^{commit}`], options).then((s) => s.trim());
    let resolved = await resolve().catch(() => null);
    if (!resolved) {
      await this.serialized(source.id, async () =>
        git(['--git-dir', gitDir, 'fetch', '--no-tags', '--quiet', 'origin', commit], await this.networkOptions(source, signal)).catch(() => {}),
      );
      resolved = await resolve().catch(() => null);
    }
    if (!resolved) throw new CheckoutError(`commit ${commit} is no longer in the repository`);
    return this.addWorktree(source, gitDir, resolved, workId, signal, forScan ? this.options.scanBudget : undefined);
  }

  /**
   * Pushes the worktree's HEAD to a new branch `refs/heads/<branch>` of the source, never over an existing
   * one: the lease expects the branch to be absent, so the remote refuses atomically if it is there.
   */
  async push(source: CheckoutSource, dir: string, branch: string, signal?: AbortSignal): Promise<void> {
    const options = await this.networkOptions(source, signal);
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
