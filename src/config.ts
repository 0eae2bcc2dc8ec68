import os from 'node:os';
import path from 'node:path';
import { codeHostSettings, type CodeHostSettings } from './code-hosts/index.ts';
import type { OidcSettings } from './identity/oidc.ts';
import { secretsVerifyFromEnv, type SecretsVerifySettings } from './scanning/secrets/verify/settings.ts';

export interface Settings {
  /** BULWARK_PUBLIC_URL: where people reach the console (device login links, the OpenID redirect URI); unset: the request's own address. */
  publicUrl: string | null;
  /** BULWARK_TRUST_PROXY: whose X-Forwarded-For/-Proto to believe (Fastify's trustProxy): `true`, a hop count, or addresses/CIDRs. */
  trustProxy: boolean | number | string[];
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
  /** BULWARK_PAGE_CACHE_MB: how much of the list answers asked again before the data changed is kept, in bytes. */
  pageCacheBytes: number;
  /** A Bearer token `/metrics` requires; null serves it to anyone who reaches the port. */
  metricsToken: string | null;
  /** Where a `bulwark worker` process serves its own `GET /metrics`; null: it serves none. */
  workerMetricsPort: number | null;
  /** Longest a client may take to send a request's headers. */
  headersTimeoutSeconds: number;
  /** Longest a client may take to send a whole request, headers and body; a slower one gets 408 and is disconnected. */
  requestTimeoutSeconds: number;
  /** How long an idle keep-alive connection stays open between requests. */
  keepAliveTimeoutSeconds: number;
  /** Longest a connection may go without any data in either direction (longer than the slowest route, opening a pull request). */
  socketTimeoutSeconds: number;
  /** Requests one API key may make per minute in this process; 0 for no limit. */
  rateLimitPerMinute: number;
  /** Requests of one API key this process works on at once; 0 for no limit. */
  maxConcurrentRequestsPerKey: number;
  /** Jobs one worker process runs at once. */
  workerConcurrency: number;
  /** Scans of one organization running at once across every worker, so a large batch cannot starve the others. */
  orgScanConcurrency: number;
  /** Seconds a running job may go without a heartbeat before another worker takes it over. */
  jobLeaseSeconds: number;
  /** Runs a job gets before it is given up and its record failed. */
  jobMaxAttempts: number;
  /** Whether source repos may be cloned from file:// URLs and local paths (off in production). */
  allowLocalRepos: boolean;
  /**
   * The folder local repositories must live in; `{org}` stands for the organization's slug, so each
   * organization reaches only its own folder. Default `<dataDir>/local-repos/{org}`.
   */
  localReposRoot: string;
  /** Whether clone URLs may point at loopback, private, link-local or metadata addresses (off in production). */
  allowPrivateHosts: boolean;
  /** Where bare mirrors and work trees live; default `<dataDir>/git`. */
  checkoutDir: string;
  /** Where engines keep results between scans (SAST results by file content); default `<dataDir>/cache`. */
  cacheDir: string;
  /** The most the cache folder may hold before its oldest entries go. */
  cacheMaxBytes: number;
  /** Bytes the bare mirrors may take together before the least recently used unused ones are removed; 0 means no cap. */
  checkoutMaxBytes: number;
  /** Commits of history the secrets engine reads below the scanned head; 0 reads only the tree. */
  secretsHistoryDepth: number;
  /** What one scan of a repository may make the server do (see ScanBudgets). */
  scanBudgets: ScanBudgets;
  /**
   * OSV vulnerability records: the bucket synced from, hours between a worker's refreshes (0: none), and
   * the age after which a dependency scan warns its records are stale.
   */
  osv: { url: string; syncHours: number; maxAgeHours: number };
  /** BULWARK_SECRETS_VERIFY*: live validity checks of found credentials with their providers (off by default). */
  secretsVerify: SecretsVerifySettings;
  /** Longest a single git command may run. */
  gitTimeoutSeconds: number;
  /** Longest opening one pull request (checkout, push, the host's API) may take, 1–600 seconds. */
  pullRequestTimeoutSeconds: number;
  /** Minutes between two asks of a code host about one open fix pull request no webhook reports on (0: no poll). */
  pullRequestPollMinutes: number;
  /** Fault injection for restart tests: a pause after each checkout, in milliseconds. */
  faultScanDelayMs: number;
  faultFixDelayMs: number;
  /** Rule folders added to the built-in SAST rules. */
  sastRuleDirs: string[];
  /**
   * `--config` values for an external Semgrep or Opengrep run merged into the SAST engine's findings (rule
   * files or folders, registry names such as p/python, URLs); empty, or with neither binary on PATH, no
   * external run. Relative paths resolve against the server's working directory.
   */
  semgrepConfigs: string[];
  /** The model behind fixes no deterministic fixer handles, and behind refinements; null when none is configured. */
  llm: LlmSettings | null;
  /** BULWARK_OIDC_*: sign-in through an OpenID Connect provider; null without BULWARK_OIDC_ISSUER. */
  oidc: OidcSettings | null;
  /** What the model review of a deep scan may spend, when a model is configured. */
  deepReview: DeepReviewSettings;
  /** BULWARK_CHECKS_ENABLED: rules and whole-application checks that are off by default, turned on (their ids). */
  checksEnabled: string[];
  /** API roots of the code hosts pull requests are opened on, by host (each host's setting: src/code-hosts). */
  codeHosts: CodeHostSettings;
  /** Registries whose metadata dependency fixes resolve against (and npm regenerates lockfiles from). */
  packageRegistries: PackageRegistrySettings;
}

/**
 * Per-scan limits on what a repository makes the server do. Each reached one leaves the scan complete
 * with a warning saying what was left out.
 */
export interface ScanBudgets {
  /** Files of the scanned commit written to its work tree (the rest are not checked out, so no engine reads them). */
  maxFiles: number;
  /** Bytes of those files together. */
  maxBytes: number;
  /** Size of one manifest or lockfile parsed; larger ones are skipped. */
  maxManifestBytes: number;
  /** Findings stored per scan; beyond it the least severe are dropped. */
  maxFindings: number;
}

export const DEFAULT_SCAN_BUDGETS: ScanBudgets = { maxFiles: 50_000, maxBytes: 1024 ** 3, maxManifestBytes: 32 * 1024 ** 2, maxFindings: 20_000 };

export interface PackageRegistrySettings {
  /** Root of a PyPI-compatible JSON API: `<pypiUrl>/pypi/<name>/json`. */
  pypiUrl: string;
  /** An npm registry root: `<npmUrl>/<name>` is a packument. */
  npmUrl: string;
}

/** The public registries, for callers that run without settings. */
export const DEFAULT_PACKAGE_REGISTRIES: PackageRegistrySettings = { pypiUrl: 'https://pypi.org', npmUrl: 'https://registry.npmjs.org' };

export interface DeepReviewSettings {
  /** Independent verification runs per candidate finding. */
  runs: number;
  /** Model requests, tokens and wall-clock seconds one deep scan's review may spend. */
  maxCalls: number;
  maxTokens: number;
  timeoutSeconds: number;
}

export interface LlmSettings {
  /** `openai` speaks the Chat Completions API (OpenAI, vLLM, Ollama, LiteLLM, DeepSeek, Moonshot…); `anthropic` the Messages API. */
  provider: 'openai' | 'anthropic';
  baseUrl: string | null;
  model: string;
  apiKey: string | null;
  /** Tool-loop steps one agent run may take. */
  maxSteps: number;
  /** Wall-clock seconds one agent run may take. */
  timeoutSeconds: number;
}

/** The clone URL rules the settings describe. */
export function cloneUrlPolicyOf(settings: Settings): { allowLocal: boolean; localRoot: string; allowPrivateHosts: boolean } {
  return { allowLocal: settings.allowLocalRepos, localRoot: settings.localReposRoot, allowPrivateHosts: settings.allowPrivateHosts };
}

const LLM_PROVIDERS = ['openai', 'anthropic'] as const;

/** The settings that configure the LLM agent, as refusals and failures name them. */
export const AGENT_SETTINGS = 'BULWARK_LLM_PROVIDER, BULWARK_LLM_MODEL and BULWARK_LLM_API_KEY';

/** The LLM settings, or null without BULWARK_LLM_PROVIDER; a half-configured provider is refused at start. */
function llmFromEnv(env: NodeJS.ProcessEnv): LlmSettings | null {
  const provider = env.BULWARK_LLM_PROVIDER?.trim();
  if (!provider) return null;
  if (!(LLM_PROVIDERS as readonly string[]).includes(provider)) {
    throw new Error(`BULWARK_LLM_PROVIDER must be one of ${LLM_PROVIDERS.join(', ')}, got "${provider}"`);
  }
  const model = env.BULWARK_LLM_MODEL?.trim();
  if (!model) throw new Error('BULWARK_LLM_MODEL is required when BULWARK_LLM_PROVIDER is set');
  return {
    provider: provider as LlmSettings['provider'],
    baseUrl: env.BULWARK_LLM_BASE_URL?.trim() || null,
    model,
    apiKey: env.BULWARK_LLM_API_KEY || null,
    maxSteps: Math.max(1, intFromEnv(env, 'BULWARK_LLM_MAX_STEPS', 30)),
    timeoutSeconds: Math.max(1, intFromEnv(env, 'BULWARK_LLM_TIMEOUT_SECONDS', 600)),
  };
}

/** The OpenID Connect settings, or null without BULWARK_OIDC_ISSUER; a half-configured provider is refused at start. */
function oidcFromEnv(env: NodeJS.ProcessEnv): OidcSettings | null {
  const issuer = env.BULWARK_OIDC_ISSUER?.trim();
  if (!issuer) return null;
  if (!URL.canParse(issuer)) throw new Error(`BULWARK_OIDC_ISSUER must be the provider's issuer URL, got "${issuer}"`);
  const clientId = env.BULWARK_OIDC_CLIENT_ID?.trim();
  const clientSecret = env.BULWARK_OIDC_CLIENT_SECRET;
  if (!clientId || !clientSecret) throw new Error('BULWARK_OIDC_CLIENT_ID and BULWARK_OIDC_CLIENT_SECRET are required when BULWARK_OIDC_ISSUER is set');
  return { issuer, clientId, clientSecret, name: env.BULWARK_OIDC_NAME?.trim() || 'single sign-on' };
}

/** Behind a reverse proxy the client's address and scheme are in its headers: believed only when told so. */
function trustProxyFromEnv(raw: string | undefined): boolean | number | string[] {
  const value = raw?.trim() ?? '';
  if (!value || /^(0|false|no|off)$/i.test(value)) return false;
  if (/^(true|yes|on)$/i.test(value)) return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value.split(',').map((s) => s.trim()).filter(Boolean);
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

/** A scan budget: a non-negative integer, 0 lifting it. */
function budgetFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  return intFromEnv(env, name, fallback) || Number.POSITIVE_INFINITY;
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

/** BULWARK_ENGINE_THREADS: the threads that run engine work (parsing, matching); one per available core by default. */
export function engineThreadsFrom(env: NodeJS.ProcessEnv = process.env): number {
  return Math.max(1, intFromEnv(env, 'BULWARK_ENGINE_THREADS', os.availableParallelism()));
}

/**
 * The cache folder of a local `bulwark scan`: BULWARK_CACHE_DIR, else the user's cache folder
 * ($XDG_CACHE_HOME/bulwark or ~/.cache/bulwark), so a scan leaves nothing in the scanned or current folder.
 */
export function localCacheDirFrom(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BULWARK_CACHE_DIR) return path.resolve(env.BULWARK_CACHE_DIR);
  return path.join(env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(os.homedir(), '.cache'), 'bulwark');
}

/** BULWARK_SAST_RULES_DIRS: the operator's rule folders, absolute, in the order given. */
export function sastRuleDirsFrom(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.BULWARK_SAST_RULES_DIRS ?? '').split(path.delimiter).filter(Boolean).map((d) => path.resolve(d));
}

type RequestLimitSettings = Pick<
  Settings,
  'headersTimeoutSeconds' | 'requestTimeoutSeconds' | 'keepAliveTimeoutSeconds' | 'socketTimeoutSeconds' | 'rateLimitPerMinute' | 'maxConcurrentRequestsPerKey'
>;

function requestLimitsFromEnv(env: NodeJS.ProcessEnv): RequestLimitSettings {
  const headersTimeoutSeconds = Math.max(1, intFromEnv(env, 'BULWARK_HEADERS_TIMEOUT_SECONDS', 30));
  const requestTimeoutSeconds = Math.max(1, intFromEnv(env, 'BULWARK_REQUEST_TIMEOUT_SECONDS', 60));
  // Node refuses a headers timeout longer than the whole request's.
  if (headersTimeoutSeconds > requestTimeoutSeconds) {
    throw new Error(`BULWARK_HEADERS_TIMEOUT_SECONDS (${headersTimeoutSeconds}) must not exceed BULWARK_REQUEST_TIMEOUT_SECONDS (${requestTimeoutSeconds})`);
  }
  const pullRequestSeconds = Math.min(600, Math.max(1, intFromEnv(env, 'BULWARK_PR_TIMEOUT_SECONDS', 300)));
  return {
    headersTimeoutSeconds,
    requestTimeoutSeconds,
    keepAliveTimeoutSeconds: Math.max(1, intFromEnv(env, 'BULWARK_KEEP_ALIVE_TIMEOUT_SECONDS', 72)),
    socketTimeoutSeconds: Math.max(1, intFromEnv(env, 'BULWARK_SOCKET_TIMEOUT_SECONDS', pullRequestSeconds + 60)),
    rateLimitPerMinute: intFromEnv(env, 'BULWARK_RATE_LIMIT_PER_MINUTE', 600),
    maxConcurrentRequestsPerKey: intFromEnv(env, 'BULWARK_MAX_CONCURRENT_REQUESTS_PER_KEY', 16),
  };
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
    pageCacheBytes: Math.max(0, intFromEnv(env, 'BULWARK_PAGE_CACHE_MB', 64)) * 1024 * 1024,
    metricsToken: env.BULWARK_METRICS_TOKEN || null,
    publicUrl: env.BULWARK_PUBLIC_URL?.trim().replace(/\/+$/, '') || null,
    trustProxy: trustProxyFromEnv(env.BULWARK_TRUST_PROXY),
    workerMetricsPort: env.BULWARK_WORKER_METRICS_PORT ? intFromEnv(env, 'BULWARK_WORKER_METRICS_PORT', 0) : null,
    ...requestLimitsFromEnv(env),
    workerConcurrency: Math.max(1, intFromEnv(env, 'BULWARK_WORKER_CONCURRENCY', 2)),
    orgScanConcurrency: Math.max(1, intFromEnv(env, 'BULWARK_ORG_SCAN_CONCURRENCY', 4)),
    jobLeaseSeconds: Math.max(1, intFromEnv(env, 'BULWARK_JOB_LEASE_SECONDS', 60)),
    jobMaxAttempts: Math.max(1, intFromEnv(env, 'BULWARK_JOB_MAX_ATTEMPTS', 3)),
    allowLocalRepos: boolFromEnv(env, 'BULWARK_ALLOW_LOCAL_REPOS'),
    localReposRoot: env.BULWARK_LOCAL_REPOS_ROOT
      ? path.resolve(env.BULWARK_LOCAL_REPOS_ROOT)
      : path.join(path.resolve(env.BULWARK_DATA_DIR || 'data'), 'local-repos', '{org}'),
    allowPrivateHosts: boolFromEnv(env, 'BULWARK_ALLOW_PRIVATE_HOSTS'),
    checkoutDir: env.BULWARK_CHECKOUT_DIR ? path.resolve(env.BULWARK_CHECKOUT_DIR) : path.join(path.resolve(env.BULWARK_DATA_DIR || 'data'), 'git'),
    checkoutMaxBytes: intFromEnv(env, 'BULWARK_CHECKOUT_MAX_BYTES', 20 * 1024 ** 3),
    cacheDir: env.BULWARK_CACHE_DIR ? path.resolve(env.BULWARK_CACHE_DIR) : path.join(path.resolve(env.BULWARK_DATA_DIR || 'data'), 'cache'),
    cacheMaxBytes: intFromEnv(env, 'BULWARK_CACHE_MAX_BYTES', 256 * 1024 ** 2),
    secretsHistoryDepth: intFromEnv(env, 'BULWARK_SECRETS_HISTORY_DEPTH', 500),
    scanBudgets: {
      maxFiles: budgetFromEnv(env, 'BULWARK_SCAN_MAX_FILES', DEFAULT_SCAN_BUDGETS.maxFiles),
      maxBytes: budgetFromEnv(env, 'BULWARK_SCAN_MAX_BYTES', DEFAULT_SCAN_BUDGETS.maxBytes),
      maxManifestBytes: budgetFromEnv(env, 'BULWARK_SCAN_MAX_MANIFEST_BYTES', DEFAULT_SCAN_BUDGETS.maxManifestBytes),
      maxFindings: budgetFromEnv(env, 'BULWARK_SCAN_MAX_FINDINGS', DEFAULT_SCAN_BUDGETS.maxFindings),
    },
    osv: {
      url: (env.BULWARK_OSV_URL || 'https://osv-vulnerabilities.storage.googleapis.com').replace(/\/+$/, ''),
      syncHours: intFromEnv(env, 'BULWARK_OSV_SYNC_HOURS', 24),
      maxAgeHours: intFromEnv(env, 'BULWARK_OSV_MAX_AGE_HOURS', 72),
    },
    secretsVerify: secretsVerifyFromEnv(env),
    gitTimeoutSeconds: Math.max(1, intFromEnv(env, 'BULWARK_GIT_TIMEOUT_SECONDS', 600)),
    pullRequestTimeoutSeconds: Math.min(600, Math.max(1, intFromEnv(env, 'BULWARK_PR_TIMEOUT_SECONDS', 300))),
    pullRequestPollMinutes: Math.max(0, intFromEnv(env, 'BULWARK_PR_POLL_MINUTES', 10)),
    faultScanDelayMs: intFromEnv(env, 'BULWARK_FAULT_SCAN_DELAY_MS', 0),
    faultFixDelayMs: intFromEnv(env, 'BULWARK_FAULT_FIX_DELAY_MS', 0),
    sastRuleDirs: sastRuleDirsFrom(env),
    semgrepConfigs: splitList(env.BULWARK_SEMGREP_CONFIGS),
    llm: llmFromEnv(env),
    oidc: oidcFromEnv(env),
    deepReview: {
      runs: Math.min(5, Math.max(1, intFromEnv(env, 'BULWARK_DEEP_REVIEW_RUNS', 1))),
      maxCalls: Math.max(1, intFromEnv(env, 'BULWARK_DEEP_REVIEW_MAX_CALLS', 200)),
      maxTokens: Math.max(1, intFromEnv(env, 'BULWARK_DEEP_REVIEW_MAX_TOKENS', 2_000_000)),
      timeoutSeconds: Math.max(1, intFromEnv(env, 'BULWARK_DEEP_REVIEW_TIMEOUT_SECONDS', 900)),
    },
    checksEnabled: (env.BULWARK_CHECKS_ENABLED ?? '').split(/[\s,]+/).filter(Boolean),
    codeHosts: codeHostSettings(env),
    packageRegistries: {
      pypiUrl: (env.BULWARK_PYPI_URL || DEFAULT_PACKAGE_REGISTRIES.pypiUrl).replace(/\/+$/, ''),
      npmUrl: (env.BULWARK_NPM_REGISTRY_URL || DEFAULT_PACKAGE_REGISTRIES.npmUrl).replace(/\/+$/, ''),
    },
  };
  const merged: Settings = { ...settings, ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) };
  // Paths that default to inside the data folder follow a data folder given as an override.
  if (overrides.dataDir && !env.BULWARK_CHECKOUT_DIR && !overrides.checkoutDir) merged.checkoutDir = path.join(merged.dataDir, 'git');
  if (overrides.dataDir && !env.BULWARK_CACHE_DIR && !overrides.cacheDir) merged.cacheDir = path.join(merged.dataDir, 'cache');
  if (overrides.dataDir && !env.BULWARK_LOCAL_REPOS_ROOT && !overrides.localReposRoot) merged.localReposRoot = path.join(merged.dataDir, 'local-repos', '{org}');
  return merged;
}
