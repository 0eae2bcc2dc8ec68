// The real server for the console's browser tests, started the way `bulwark serve` starts it (startServer)
// on a free loopback port and a fresh test database (SQLite, or a PostgreSQL schema on the suite's PostgreSQL
// run). People are created with the admin CLI, as an operator would. The console is built first if needed
// (scripts/build-console.ts skips the build when console/dist is up to date).
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadSettings } from '../../../src/config.ts';
import { startServer, type RunningServer } from '../../../src/server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/store.ts';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const CLI = path.join(ROOT, 'src/cli/main.ts');

export interface ConsoleServer {
  url: string;
  /** The key printed at first start, for the default organization. */
  adminKey: string;
  database: TestDatabase;
  /** `bulwark user create … --org default --role <role>` against this server's database. */
  createUser(email: string, password: string, role?: 'owner' | 'admin' | 'member' | 'viewer'): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds console/dist when it is missing or older than console/src (a no-op otherwise). Browser test files
 * run in parallel, so one build at a time: a lock file per checkout, taken over when a crashed run left it.
 */
export async function buildConsole(): Promise<void> {
  const lock = path.join(os.tmpdir(), `bulwark-console-build-${crypto.createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
  for (const deadline = Date.now() + 300_000; ; ) {
    try {
      fs.closeSync(fs.openSync(lock, 'wx'));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000 || Date.now() > deadline) fs.rmSync(lock, { force: true });
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    await run(process.execPath, [path.join(ROOT, 'scripts/build-console.ts'), '--strict'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

export async function startConsoleServer(options: { env?: Record<string, string>; worker?: boolean } = {}): Promise<ConsoleServer> {
  const database = await createTestDatabase();
  await database.store.close();
  const lines: string[] = [];
  let server: RunningServer;
  try {
    const settings = loadSettings({ ...database.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...options.env });
    server = await startServer(settings, { print: (line) => lines.push(line), worker: options.worker ?? false });
  } catch (error) {
    await database.cleanup().catch(() => {});
    throw error;
  }
  const adminKey = lines.join('\n').match(/bwk_[A-Za-z0-9_-]+/)?.[0] ?? '';
  return {
    url: server.url,
    adminKey,
    database,
    async createUser(email, password, role = 'owner') {
      await run(process.execPath, [CLI, 'user', 'create', '--email', email, '--password-env', 'BULWARK_TEST_USER_PASSWORD', '--org', 'default', '--role', role], {
        cwd: ROOT,
        env: { ...process.env, ...database.env, BULWARK_TEST_USER_PASSWORD: password },
      });
    },
    async close() {
      await server.close();
      await database.cleanup().catch(() => {});
    },
  };
}
