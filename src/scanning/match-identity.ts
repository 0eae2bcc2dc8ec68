import crypto from 'node:crypto';
import { maskCredentialLine, maskSecretsIn } from './secrets/mask-text.ts';
import { maskSecret } from './secrets/text-checks.ts';

// What engines give a finding besides its fingerprint so that it can be recognized in a later scan
// (src/core/finding-identity.ts matches on these) and shown: a path-free hash of the match, and an excerpt.

const SNIPPET_LINES = 5;
const SNIPPET_LINE_CHARS = 200;

/**
 * Matched code reduced to what a reformat does not change: no whitespace and no trailing comma before a
 * closing bracket, so re-indenting, re-wrapping or adding a trailing comma leaves it the same.
 */
export function normalizeMatch(text: string): string {
  return text.replace(/\s+/g, '').replace(/,([)\]}])/g, '$1');
}

export function hashParts(...parts: string[]): string {
  return crypto.createHash('sha256').update(parts.join('\0')).digest('hex');
}

/**
 * The first call in a piece of code, as its callee with whitespace removed (`requests.get`), or null when
 * it has none. For matches an engine has no syntax tree for.
 */
export function firstCallee(text: string): string | null {
  const call = /((?:[A-Za-z_$][\w$]*\s*(?:\.|::|->)\s*)*[A-Za-z_$][\w$]*)\s*\(/.exec(text);
  return call ? call[1].replace(/\s+/g, '') : null;
}

const KEY_BLOCK_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
const MAX_KEY_BLOCK_LINES = 400;
const MASKED_LINE = '*'.repeat(8);

/**
 * The private key blocks (PEM, OpenSSH, PGP) of a text's lines, as 0-based inclusive line ranges from the
 * BEGIN line to the END line (a block left open runs a bounded number of lines).
 */
function keyBlocks(all: string[]): [number, number][] {
  const blocks: [number, number][] = [];
  for (let i = 0; i < all.length; i++) {
    if (!KEY_BLOCK_BEGIN.test(all[i])) continue;
    let end = i;
    while (end + 1 < all.length && end - i < MAX_KEY_BLOCK_LINES && !all[end + 1].includes('-----END')) end++;
    if (end + 1 < all.length && all[end + 1].includes('-----END')) end++;
    blocks.push([i, end]);
    i = end;
  }
  return blocks;
}

/** A line inside a key block that the detector left as it was (a malformed key): its key material goes. */
function maskKeyBody(line: string): string {
  return /^[\sA-Za-z0-9+/=]+$/.test(line) ? MASKED_LINE : line.replace(/[A-Za-z0-9+/=]{16,}/g, MASKED_LINE);
}

/**
 * Lines `startLine`..`endLine` (1-based) of a whole text, at most a few and each cut short, with every
 * credential the detector finds masked. Masking reads the lines of every key block the excerpt touches from
 * its BEGIN to its END line, whatever part of it the excerpt shows, and a key's body line shown is never
 * left as it was. Given `secrets`, the lines hold those credentials: they and every random-looking run
 * beside them are masked.
 */
export function snippetOf(text: string, startLine: number, endLine: number, secrets: string[] = []): string | null {
  const all = text.split('\n');
  const first = Math.max(0, startLine - 1);
  const shown = Math.max(1, Math.min(endLine, startLine + SNIPPET_LINES - 1) - startLine + 1);
  let from = first;
  let last = Math.max(startLine, secrets.length ? endLine : Math.min(endLine, startLine + SNIPPET_LINES - 1));
  const blocks = text.includes('PRIVATE KEY') ? keyBlocks(all).filter(([b, e]) => b < last && e >= first) : [];
  for (const [b, e] of blocks) {
    from = Math.min(from, b);
    last = Math.max(last, e + 1);
  }
  let excerpt = all.slice(from, last).join('\n');
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) if (secret) excerpt = excerpt.split(secret).join(maskSecret(secret));
  excerpt = secrets.length ? maskCredentialLine(excerpt) : maskSecretsIn(excerpt);
  const lines = excerpt
    .split('\n')
    .slice(first - from, first - from + shown)
    .map((line, i) => (line === all[first + i] && blocks.some(([b, e]) => first + i > b && first + i < e) ? maskKeyBody(line) : line))
    .map((line) => (line.length > SNIPPET_LINE_CHARS ? `${line.slice(0, SNIPPET_LINE_CHARS)}…` : line));
  const joined = lines.join('\n').replace(/\s+$/, '');
  return joined.trim() ? joined : null;
}
