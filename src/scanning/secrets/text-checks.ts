/** Shannon entropy in bits per character; placeholders and repeated characters score low. */
export function shannonEntropy(value: string): number {
  if (!value) return 0;
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let entropy = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    entropy -= p * Math.log2(p);
  }
  return entropy;
}

const PLACEHOLDER = new RegExp(
  [
    'example', 'sample', 'dummy', 'placeholder', 'change_?me', 'redacted', 'your[_-]', 'insert[_-]', 'replace[_-]?me',
    'x{5,}', '\\*{4,}', '\\.{3,}', '<[^>]*>', '\\$\\{', '\\{\\{', '%\\(\\w+\\)[sdrfi]', '^\\$[A-Za-z_]', 'process\\.env', 'os\\.environ',
    'getenv', '^env\\(', 'not[_-]?a[_-]?real', 'fake', 'lorem', '^(?:some|my)?pass(?:word)?$',
    // format-string and template slots: {password}, {db_pass}, {a:20}
    '\\{[A-Za-z_][\\w:.-]*\\}',
  ].join('|'),
  'i',
);

const SEQUENTIAL = /0123456789|123456789|abcdefghij|qwertyuiop/i;

/** Values that stand for a secret rather than being one: examples, templates, references to the environment. */
export function isPlaceholder(secret: string): boolean {
  return PLACEHOLDER.test(secret) || SEQUENTIAL.test(secret) || /^(.)\1+$/.test(secret);
}

/**
 * camelCase, PascalCase, snake_case, kebab-case or CONSTANT_CASE words with no digit: a name, not a secret.
 * A random 20-character base62 string reads as one 0.05% of the time.
 */
export function isWordIdentifier(value: string): boolean {
  if (!/^_*[A-Za-z][A-Za-z_-]*$/.test(value)) return false;
  const words = value.split(/[_-]+|(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/).filter(Boolean);
  return words.every((w) => /^[A-Z]?[a-z]{2,}$|^[A-Z]{2,}$/.test(w));
}

/** For free-form assignments: a real secret mixes character classes and is not a code identifier or path. */
export function looksLikeGeneratedSecret(secret: string): boolean {
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((r) => r.test(secret)).length;
  if (classes < 2) return false;
  if (/^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)+$/.test(secret)) return false; // dotted identifier: config.key.name
  if (/[()]/.test(secret)) return false; // code: a call or a grouping
  if (/[^\x21-\x7e]/.test(secret)) return false; // non-ASCII: prose or a translated message
  if (isWordIdentifier(secret)) return false; // a name: challengePassword, _RSAPrivateKey, bare-quoted-string
  if (/^(?:\.{0,2}\/|[A-Za-z]:\\)/.test(secret)) return false; // a path
  if (/^https?:/.test(secret)) return false;
  return true;
}

/** A line-level opt-out a developer writes beside a known test credential. */
export const INLINE_ALLOW = /bulwark:allow|gitleaks:allow|pragma: allowlist secret/;

/** Shows enough to recognize a secret, never enough to use it. */
export function maskSecret(secret: string): string {
  const compact = secret.replace(/\s+/g, '');
  if (compact.length >= 16) return `${compact.slice(0, 4)}${'*'.repeat(8)}${compact.slice(-2)}`;
  return '*'.repeat(Math.min(compact.length, 8));
}
