import path from 'node:path';

export interface Settings {
  /** postgres://… when set; otherwise the embedded SQLite file under dataDir. */
  databaseUrl: string | null;
  dataDir: string;
  host: string;
  port: number;
  logLevel: string;
  /** 32-byte key (hex or base64) that encrypts source-repo tokens at rest; generated under dataDir when unset. */
  encryptionKey: string | null;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** Jobs one worker process runs at once. */
  workerConcurrency: number;
  /** Seconds a running job may go without a heartbeat before another worker takes it over. */
  jobLeaseSeconds: number;
  /** Runs a job gets before it is given up and its record failed. */
  jobMaxAttempts: number;
  /** Whether source repos may be cloned from file:// URLs and local paths (off in production). */
  allowLocalRepos: boolean;
  /** Commits of history the secrets engine reads below the scanned head; 0 reads only the tree. */
  secretsHistoryDepth: number;
  /** Longest a single git command may run. */
  gitTimeoutSeconds: number;
  /** Fault injection for restart tests: a pause after each checkout, in milliseconds. */
  faultScanDelayMs: number;
  /** Rule folders added to the built-in SAST rules. */
  sastRuleDirs: string[];
  /**
   * `--config` values for an external Semgrep or Opengrep run merged into the SAST engine's findings (rule
   * files or folders, registry names such as p/python, URLs); empty, or with neither binary on PATH, no
   * external run. Relative paths resolve against the server's working directory.
   */
  semgrepConfigs: string[];
}

function boolFromEnv(env: NodeJS.ProcessEnv, name: string): boolean {
  return /^(1|true|yes|on)$/i.test(env[name] ?? '');
}

function intFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

/**
 * Splits a path-delimiter-separated list. On POSIX the delimiter is `:`, so a URL's scheme is joined back
 * to the rest (`https` + `//host/rules.yml`).
 */
export function splitList(raw: string | undefined): string[] {
  const parts = (raw ?? '').split(path.delimiter);
  const items: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    if (path.delimiter === ':' && /^[a-z][a-z0-9+.-]*$/i.test(parts[i]) && parts[i + 1]?.startsWith('//')) {
      items.push(`${parts[i]}:${parts[++i]}`);
    } else {
      items.push(parts[i]);
    }
  }
  return items.map((item) => item.trim()).filter(Boolean);
}

/** The one place that reads the environment; everything else receives typed settings. */
export function loadSettings(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Settings> = {}): Settings {
  const settings: Settings = {
    databaseUrl: env.DATABASE_URL || null,
    dataDir: path.resolve(env.BULWARK_DATA_DIR || 'data'),
    host: env.HOST || '127.0.0.1',
    port: intFromEnv(env, 'PORT', 8080),
    logLevel: env.LOG_LEVEL || 'info',
    encryptionKey: env.BULWARK_ENCRYPTION_KEY || null,
    bodyLimit: intFromEnv(env, 'BULWARK_BODY_LIMIT', 1024 * 1024),
    workerConcurrency: Math.max(1, intFromEnv(env, 'BULWARK_WORKER_CONCURRENCY', 2)),
    jobLeaseSeconds: Math.max(1, intFromEnv(env, 'BULWARK_JOB_LEASE_SECONDS', 60)),
    jobMaxAttempts: Math.max(1, intFromEnv(env, 'BULWARK_JOB_MAX_ATTEMPTS', 3)),
    allowLocalRepos: boolFromEnv(env, 'BULWARK_ALLOW_LOCAL_REPOS'),
    secretsHistoryDepth: intFromEnv(env, 'BULWARK_SECRETS_HISTORY_DEPTH', 500),
    gitTimeoutSeconds: Math.max(1, intFromEnv(env, 'BULWARK_GIT_TIMEOUT_SECONDS', 600)),
    faultScanDelayMs: intFromEnv(env, 'BULWARK_FAULT_SCAN_DELAY_MS', 0),
    sastRuleDirs: (env.BULWARK_SAST_RULES_DIRS ?? '').split(path.delimiter).filter(Boolean).map((d) => path.resolve(d)),
    semgrepConfigs: splitList(env.BULWARK_SEMGREP_CONFIGS),
  };
  return { ...settings, ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) };
}
