import { execFile, spawn } from 'node:child_process';

export class GitError extends Error {}

export interface GitOptions {
  cwd?: string;
  /** Extra environment; credentials travel here, never in arguments, so `ps` cannot show them. */
  env?: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Strings to blank out of any error text (tokens, auth headers). */
  secrets?: string[];
  maxBuffer?: number;
  /** Written to git's standard input. */
  input?: string;
}

const BASE_ENV: Record<string, string> = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_ASKPASS: 'true',
  SSH_ASKPASS: 'true',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  LC_ALL: 'C',
};

export function scrub(text: string, secrets: string[] = []): string {
  let result = text;
  for (const secret of secrets) if (secret) result = result.split(secret).join('***');
  // Credentials someone put into a URL by hand.
  return result.replace(/(\w+:\/\/)[^/\s@]+@/g, '$1***@');
}

/** Runs `git` with an argument list (no shell), a bounded time and a scrubbed error. */
export function git(args: string[], options: GitOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      {
        cwd: options.cwd,
        env: { ...process.env, ...BASE_ENV, ...options.env },
        timeout: options.timeoutMs,
        signal: options.signal,
        maxBuffer: options.maxBuffer ?? 256 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        const timedOut = (error as NodeJS.ErrnoException & { killed?: boolean }).killed && !options.signal?.aborted;
        const detail = (stderr || error.message).trim().split('\n').filter(Boolean).slice(-3).join(' ');
        const message = timedOut ? `git ${args[0]} timed out after ${Math.round(options.timeoutMs / 1000)}s` : detail;
        reject(new GitError(scrub(message, options.secrets)));
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/**
 * Runs `git` and hands its output to `onRecord` one NUL-terminated record at a time, without holding it
 * all; `onRecord` returning false stops git there (what was read stands). Bounded in time like git().
 */
export function gitRecords(args: string[], options: GitOptions, onRecord: (record: string) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: options.cwd, env: { ...process.env, ...BASE_ENV, ...options.env }, signal: options.signal, timeout: options.timeoutMs });
    let pending = '';
    let stopped = false;
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (stopped) return;
      const records = (pending + chunk).split('\0');
      pending = records.pop()!;
      for (const record of records) {
        if (onRecord(record)) continue;
        stopped = true;
        child.kill();
        return;
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    child.on('error', (error) => {
      if (!stopped) reject(new GitError(scrub(error.message, options.secrets)));
    });
    child.on('close', (code) => {
      if (stopped || code === 0) return resolve();
      const detail = stderr.trim().split('\n').filter(Boolean).slice(-3).join(' ') || `git ${args[0]} exited with ${code}`;
      reject(new GitError(scrub(detail, options.secrets)));
    });
  });
}
