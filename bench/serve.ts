// A real `bulwark serve` for the benches, started and stopped the way an operator would run it.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

export interface Server {
  child: ChildProcess;
  port: number;
}

/** The Node flags `npm start` gives the service (package.json's start script), so the bench runs it the same way. */
const startFlags = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start
  .split(/\s+/)
  .filter((word) => word.startsWith('--'));

/**
 * `bulwark serve` on a free port: the API alone, or with `worker` the API and the job worker in one process.
 * Per-key request limits are raised so a bench's load is never turned away, unless `serviceLimits` asks for
 * the service's defaults (what an operator who changed nothing runs).
 */
export async function startBulwark(env: Record<string, string>, { worker = false, serviceLimits = false } = {}): Promise<Server> {
  const args = [...startFlags, path.join(root, 'src/cli/main.ts'), 'serve', '--host', '127.0.0.1', '--port', '0', ...(worker ? [] : ['--no-worker'])];
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: {
      ...process.env,
      ...env,
      PORT: '0',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      ...(serviceLimits ? {} : { BULWARK_RATE_LIMIT_PER_MINUTE: '100000000', BULWARK_MAX_CONCURRENT_REQUESTS_PER_KEY: '100000' }),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (data: Buffer) => {
      text += data.toString();
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(text);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`bulwark serve exited with ${code}: ${text}`)));
  });
  child.stdout!.resume();
  return { child, port };
}

/** Stops a child process: SIGTERM, then SIGKILL after 10 seconds. */
export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

/** Runs `file` (a bench script) in `mode` as a child process and gives what it printed on stdout once it exits. */
export function benchChild(file: string, mode: string, args: string[]) {
  const child = spawn(process.execPath, [file, mode, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let printed = '';
  child.stdout!.on('data', (data: Buffer) => (printed += data.toString()));
  const output = new Promise<string>((resolve) => child.once('exit', () => resolve(printed)));
  return { process: child, output };
}
