// The shape of a credential rule and the helpers the rule tables are written with.
//
// Sample templates: {a:N} letters and digits, {h:N} lowercase hex, {H:N} uppercase hex, {A:N} uppercase
// letters and digits, {l:N} lowercase letters and digits, {u:N} base64url, {b:N} base64, {d:N} digits,
// {B:N} lowercase base32, {L:N} letters only, {Z:N} bech32, and two computed slots: {C:6} the base62
// CRC32 of the slot before it (GitHub and npm tokens), {K:6} the bech32 checksum of the slot before it
// (age keys). Fixtures are generated at test time, so no credential-shaped literal lives here.
import { crc32 } from 'node:zlib';
import type { Severity } from '../../../core/severity.ts';

export interface SecretRule {
  id: string;
  title: string;
  keywords: string[];
  pattern: RegExp;
  /** Minimum Shannon entropy, in bits per character, of the secret group. */
  entropy: number;
  severity: Severity;
  sample: string;
  /** A check of the format's own structure or checksum; a match that fails it is not a credential. */
  validate?: (secret: string) => boolean;
  /** Sample templates that look close to a credential of this type but are not one (tested never to match). */
  negatives?: string[];
}

export interface RuleOptions {
  entropy?: number;
  validate?: (secret: string) => boolean;
  negatives?: string[];
}

export const rule = (
  id: string,
  title: string,
  severity: Severity,
  keywords: string[],
  pattern: RegExp,
  sample: string,
  options: number | RuleOptions = {},
): SecretRule => {
  const { entropy = 3, validate, negatives } = typeof options === 'number' ? { entropy: options } : options;
  return { id, title, severity, keywords, pattern, sample, entropy, ...(validate && { validate }), ...(negatives && { negatives }) };
};

// A credential must not run on into more credential characters: these bound a token on both sides.
export const B = String.raw`(?<![A-Za-z0-9_-])`;
export const E = String.raw`(?![A-Za-z0-9_-])`;
export const re = (source: string, flags = '') => new RegExp(source, flags);
export const QUOTE = String.raw`["'\x60]?`;
export const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
export const UUID_SAMPLE = '{h:8}-{h:4}-{h:4}-{h:4}-{h:12}';
/**
 * The rest of a name after the name itself (`aws` in `aws_secret_key_id`, `_API_KEY` after `stripe`): up to 24
 * name characters that stop where the name begins again. A name a file writes back to back (`ado` in
 * `ADOADO…`, `cf_api`) is then read from each place it starts up to the next one only, so a run of names
 * costs its own length, however short the name and however it is repeated; the value found is the same,
 * read from the name's last start before the `=`.
 */
const nameRest = (name: string) => String.raw`(?:${name})(?:(?!${name})[\w.-]){0,24}`;

/** `name … = "value"` / `name: value` with the value in the `secret` group. */
export const assigned = (name: string, value: string) =>
  re(String.raw`${nameRest(name)}${QUOTE}\s*(?:=|:|:=|=>|,|\|\||\?\?)\s*${QUOTE}(?<secret>${value})${E}`, 'i');

/**
 * `name … = "value"` as the keyed rules read it: as `assigned`, and also with the name in brackets or braces
 * or escaped quotes (`config["api_key"] = "…"`, `os.environ[\"API_KEY\"] = \"…\"`, `{"key"}: "…"`), as a
 * call's first argument (`put("api_key", "…")`), a brace initialiser (`ApiKey{"…"}`), a string in a
 * string (Gradle's `"\"…\""`, PowerShell's `` `"…`" ``), an XML element (`<api_key>…`) and an environment
 * lookup's default (`ENV['API_KEY'] ||= '…'`, `getenv("API_KEY") ?: "…"`).
 */
export const assignedKeyed = (name: string, value: string) =>
  re(
    String.raw`${nameRest(name)}(?:\\?["'\x60])?[\]})]?\s*(?:=|:|:=|=>|,|\|\||\|\|=|\?\?|\?\?=|\?:|\{|>)\s*(?:\\?["'\x60]){0,2}(?<secret>${value})${E}`,
    'i',
  );

/** Rules that need a provider's name beside the value: they run after the rules that know a token by its shape. */
export const CONTEXT_RULES = new WeakSet<SecretRule>();

/** A token known by its own shape (a prefix, a fixed structure), bounded on both sides. */
export const token = (
  id: string,
  title: string,
  severity: Severity,
  keywords: string[],
  body: string,
  sample: string,
  options?: number | RuleOptions,
  flags = '',
) => rule(id, title, severity, keywords, re(String.raw`${B}(?<secret>${body})${E}`, flags), sample, options);

/** A value that only the provider's name beside it identifies (`ASANA_CLIENT_SECRET=…`). */
export const keyed = (
  id: string,
  title: string,
  severity: Severity,
  keywords: string[],
  name: string,
  value: string,
  sample: string,
  options?: number | RuleOptions,
) => {
  // `aws_secret_key` is also written `awsSecretKey`, and `aws-secret-key` (YAML keys, command-line options):
  // every keyword with an underscore gets its joined and kebab forms, and the name's optional underscores
  // take a hyphen too.
  const joined = keywords.map((k) => k.replaceAll('_', '')).filter((k) => k.length >= 5);
  const kebab = keywords.filter((k) => k.includes('_')).map((k) => k.replaceAll('_', '-'));
  const anySeparator = name.replaceAll('_?', '[_-]?').replaceAll('[._]', '[._-]');
  const made = rule(id, title, severity, [...new Set([...keywords, ...joined, ...kebab])], assignedKeyed(anySeparator, value), sample, options);
  CONTEXT_RULES.add(made);
  return made;
};

// ---- checksums

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** CRC32 of a string, as 6 base62 digits (leading zeros kept): the checksum GitHub and npm tokens end with. */
export function base62Crc32(payload: string): string {
  let n = crc32(payload);
  let out = '';
  while (n > 0) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out.padStart(6, '0');
}

/** `pre_` + 30 random base62 characters + their 6-character CRC32: GitHub's and npm's 40-character tokens. */
export function hasBase62Checksum(secret: string): boolean {
  const body = secret.slice(secret.indexOf('_') + 1);
  if (body.length !== 36) return false;
  return base62Crc32(body.slice(0, 30)) === body.slice(30);
}

const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32_GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function bech32Polymod(values: number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = (((chk & 0x1ffffff) << 5) ^ v) >>> 0;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk = (chk ^ BECH32_GEN[i]) >>> 0;
  }
  return chk;
}

const hrpExpand = (hrp: string) => [...[...hrp].map((c) => c.charCodeAt(0) >> 5), 0, ...[...hrp].map((c) => c.charCodeAt(0) & 31)];

/** The 6-character bech32 checksum of `data` (bech32 characters) under a human-readable part. */
export function bech32Checksum(hrp: string, data: string): string {
  const values = [...data.toLowerCase()].map((c) => BECH32.indexOf(c));
  const mod = bech32Polymod([...hrpExpand(hrp.toLowerCase()), ...values, 0, 0, 0, 0, 0, 0]) ^ 1;
  return Array.from({ length: 6 }, (_, i) => BECH32[(mod >>> (5 * (5 - i))) & 31]).join('');
}

/** A bech32 string (`hrp1data`) whose checksum holds. */
export function hasBech32Checksum(secret: string): boolean {
  const at = secret.lastIndexOf('1');
  if (at < 1) return false;
  const values = [...secret.slice(at + 1).toLowerCase()].map((c) => BECH32.indexOf(c));
  if (values.some((v) => v < 0)) return false;
  return bech32Polymod([...hrpExpand(secret.slice(0, at).toLowerCase()), ...values]) === 1;
}

/**
 * Random letters and digits, as a generated token is: every 64-character stretch holds a lowercase letter,
 * an uppercase letter and a digit (a run of one case, or a word, in a blob does not).
 */
export function mixedAlongside(secret: string): boolean {
  for (let at = 0; at < secret.length; at += 64) {
    const part = secret.slice(at, Math.min(secret.length, at + 64));
    if (part.length < 24 && at > 0) break;
    if (!/[a-z]/.test(part) || !/[A-Z]/.test(part) || !/[0-9]/.test(part)) return false;
  }
  return true;
}

/** A JSON Web Token whose header decodes to a JSON object naming an algorithm. */
export function hasJwtHeader(secret: string): boolean {
  try {
    const header: unknown = JSON.parse(Buffer.from(secret.slice(0, secret.indexOf('.')), 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && 'alg' in header;
  } catch {
    return false;
  }
}
