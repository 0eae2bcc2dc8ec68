import crypto from 'node:crypto';
import { promisify } from 'node:util';

// Node's own scrypt (RFC 7914, memory-hard) is used rather than a package: it is the same primitive the
// argon2/scrypt packages wrap, with nothing to compile. A hash names its parameters, so raising the cost
// later still verifies the passwords stored before.
const scrypt = promisify(crypto.scrypt) as (password: string, salt: Buffer, length: number, options: crypto.ScryptOptions) => Promise<Buffer>;

const SCHEME = 'scrypt';
const KEY_LENGTH = 32;
/** 2^15 × 8 × 128 bytes = 32 MiB of memory per hash, OWASP's recommended minimum for scrypt. */
const DEFAULT_COST = { N: 2 ** 15, r: 8, p: 1 };

const optionsFor = (cost: { N: number; r: number; p: number }): crypto.ScryptOptions => ({ ...cost, maxmem: 256 * cost.N * cost.r });

/** `scrypt$N$r$p$salt$hash`, base64url. */
export async function hashPassword(password: string, cost = DEFAULT_COST): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, optionsFor(cost));
  return [SCHEME, cost.N, cost.r, cost.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== SCHEME || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password.normalize('NFKC'), Buffer.from(salt, 'base64url'), expected.length, optionsFor({ N: Number(n), r: Number(r), p: Number(p) }));
  return crypto.timingSafeEqual(actual, expected);
}

/** A hash of a password nobody has, verified when the email is unknown so the answer takes as long either way. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(crypto.randomBytes(16).toString('base64url'));
  return decoy;
}

/** Random tokens for sessions, CSRF and device codes. */
export const randomToken = (bytes = 32) => crypto.randomBytes(bytes).toString('base64url');
export const tokenHash = (token: string) => crypto.hash('sha256', token, 'hex');
