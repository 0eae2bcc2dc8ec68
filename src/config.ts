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
}

function intFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
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
  };
  return { ...settings, ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) };
}
