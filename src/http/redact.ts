import { credentialsToMask } from '../scanning/secrets/detector.ts';
import { maskSecretsIn } from '../scanning/secrets/mask-text.ts';

// What leaves in an error body or a log line never holds a credential a caller sent: an API key in the
// wrong field, a token pasted into a query parameter. Values that look like one are replaced whole.

export const REDACTED = '[redacted]';

/** A Bulwark API key, or a fragment long enough to matter (a truncated or mistyped key is still secret). */
const API_KEY_LIKE = /bwk_[A-Za-z0-9_-]{8,}/g;
const MAX_DEPTH = 64;

export function looksLikeCredential(text: string): boolean {
  API_KEY_LIKE.lastIndex = 0;
  return API_KEY_LIKE.test(text) || credentialsToMask(text).length > 0;
}

/** Text with each credential in it masked in place: for messages, where the rest still helps a reader. */
export function maskCredentials(text: string): string {
  return maskSecretsIn(text).replace(API_KEY_LIKE, REDACTED);
}

/**
 * A JSON value with every string that is, or holds, a credential replaced by the marker; also a property's
 * value that reads as a credential only beside its name (`"password": "…"`), and a property name that is
 * one. Values that serialize to nothing suspicious come back as they are.
 */
export function redactCredentials<T>(value: T): T {
  let serialized: string | undefined;
  try {
    serialized = JSON.stringify(value);
  } catch {
    return value;
  }
  if (serialized === undefined || !looksLikeCredential(serialized)) return value;
  return redact(value, 0) as T;
}

function redact(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return looksLikeCredential(value) ? REDACTED : value;
  if (!value || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const name = looksLikeCredential(key) ? REDACTED : key;
    const paired = typeof item === 'string' && looksLikeCredential(JSON.stringify({ [key]: item }));
    out[name] = paired ? REDACTED : redact(item, depth + 1);
  }
  return out;
}

/** A request URL for a log line: each path segment and query value that is a credential replaced. */
export function redactUrl(url: string): string {
  if (!looksLikeCredential(safeDecode(url))) return url;
  const [pathPart, query] = splitOnce(url, '?');
  const path = pathPart.split('/').map((segment) => (looksLikeCredential(safeDecode(segment)) ? REDACTED : segment)).join('/');
  if (query === undefined) return path;
  const params = query.split('&').map((pair) => {
    const [name, val = ''] = splitOnce(pair, '=');
    if (looksLikeCredential(safeDecode(name))) return REDACTED;
    const decoded = safeDecode(val);
    return looksLikeCredential(decoded) || looksLikeCredential(`${safeDecode(name)}="${decoded}"`) ? `${name}=${REDACTED}` : pair;
  });
  return `${path}?${params.join('&')}`;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
