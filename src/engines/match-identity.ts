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

/** A key block (PEM, OpenSSH, PGP) opened in the lines but not closed there. */
const OPEN_KEY_BLOCK = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?![\s\S]*-----END)/;
const MAX_KEY_BLOCK_LINES = 400;

/**
 * Lines `startLine`..`endLine` (1-based) of a text, at most a few and each cut short, with every credential
 * the detector finds masked (before cutting, so no cut leaves part of one showing: the lines read for
 * masking run to the end of the match and of any key block opened in it). Given `secrets`, the lines hold
 * those credentials: they and every random-looking run beside them are masked.
 */
export function snippetOf(text: string, startLine: number, endLine: number, secrets: string[] = []): string | null {
  const all = text.split('\n');
  const first = Math.max(0, startLine - 1);
  let last = Math.max(startLine, secrets.length ? endLine : Math.min(endLine, startLine + SNIPPET_LINES - 1));
  if (OPEN_KEY_BLOCK.test(all.slice(first, last).join('\n'))) {
    const end = all.findIndex((line, i) => i >= last && i < last + MAX_KEY_BLOCK_LINES && line.includes('-----END'));
    if (end !== -1) last = end + 1;
  }
  let excerpt = all.slice(first, last).join('\n');
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) if (secret) excerpt = excerpt.split(secret).join(maskSecret(secret));
  excerpt = secrets.length ? maskCredentialLine(excerpt) : maskSecretsIn(excerpt);
  const lines = excerpt
    .split('\n')
    .slice(0, Math.max(1, Math.min(endLine, startLine + SNIPPET_LINES - 1) - startLine + 1))
    .map((line) => (line.length > SNIPPET_LINE_CHARS ? `${line.slice(0, SNIPPET_LINE_CHARS)}…` : line));
  const joined = lines.join('\n').replace(/\s+$/, '');
  return joined.trim() ? joined : null;
}
