import crypto from 'node:crypto';

const KEY_PREFIX = 'bwk_';
const KEY_PATTERN = /^bwk_[A-Za-z0-9_-]{40}$/;
/** Characters shown back to people so they can tell keys apart; far too few to guess the rest. */
const VISIBLE_PREFIX_LENGTH = KEY_PREFIX.length + 8;

export interface GeneratedKey {
  key: string;
  prefix: string;
  hash: string;
}

/** API keys carry 240 random bits, so a plain SHA-256 is enough to make the stored hash useless to a thief. */
export function hashApiKey(key: string): string {
  return crypto.hash('sha256', key, 'hex');
}

export function isWellFormedApiKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function generateApiKey(): GeneratedKey {
  const key = KEY_PREFIX + crypto.randomBytes(30).toString('base64url');
  return { key, prefix: key.slice(0, VISIBLE_PREFIX_LENGTH), hash: hashApiKey(key) };
}
