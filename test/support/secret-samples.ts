import type { SecretRule } from '../../src/scanning/secrets/rules.ts';
import { base62Crc32, bech32Checksum } from '../../src/scanning/secrets/rules/helpers.ts';

const ALPHABETS: Record<string, string> = {
  a: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  h: '0123456789abcdef',
  H: '0123456789ABCDEF',
  A: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567',
  l: 'abcdefghijklmnopqrstuvwxyz0123456789',
  u: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-',
  b: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
  d: '0123456789',
  B: 'abcdefghijklmnopqrstuvwxyz234567',
  Z: 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L',
  L: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
};

/** A small deterministic generator (mulberry32), so fixtures are the same on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Fills a rule's sample template: random characters for a positive fixture, or `filler` for a placeholder.
 * Two slots are computed from the slot before them rather than drawn: {C:6}, the base62 CRC32 that GitHub
 * and npm tokens end with, and {K:6}, the bech32 checksum of an age secret key. A placeholder fills them
 * with `filler` too, so it never carries a valid checksum.
 */
export function fillTemplate(template: string, random: () => number, filler?: string): string {
  let previous = '';
  return template.replace(/\{([a-zA-Z]):(\d+)\}/g, (_, alphabet: string, length: string) => {
    if (alphabet === 'C' || alphabet === 'K') {
      if (filler !== undefined) return filler.repeat(Number(length));
      return alphabet === 'C' ? base62Crc32(previous) : bech32Checksum('age-secret-key-', previous).toUpperCase();
    }
    const chars = ALPHABETS[alphabet];
    if (!chars) throw new Error(`unknown template alphabet ${alphabet}`);
    let out = '';
    for (let i = 0; i < Number(length); i++) out += filler ?? chars[Math.floor(random() * chars.length)];
    previous = out;
    return out;
  });
}

export function positiveSample(rule: SecretRule, seed: number): string {
  return fillTemplate(rule.sample, seededRandom(seed));
}

/** The same shape filled with one repeated character: what documentation and templates look like. */
export function placeholderSample(rule: SecretRule): string {
  return fillTemplate(rule.sample, () => 0, 'x');
}
