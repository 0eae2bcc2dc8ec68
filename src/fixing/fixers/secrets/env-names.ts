// Names of the environment variables a moved secret is read from.

/** Rules whose match is more than the credential, so the whole value moves and is named for what it is. */
const RULE_NAMES: Record<string, string> = {
  'generic-secret-assignment': 'SECRET',
  'database-url-password': 'DATABASE_URL',
  'url-basic-credentials': 'CREDENTIALS_URL',
  'private-key': 'PRIVATE_KEY',
};

/** `stripeKey`, `aws-secret`, `SECRET_KEY`, `api.key` → `STRIPE_KEY`, `AWS_SECRET`, `SECRET_KEY`, `API_KEY`; null for nothing usable. */
export function toEnvName(word: string): string | null {
  const parts = word
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  if (!parts.length) return null;
  const name = parts.join('_').toUpperCase();
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

/**
 * The word an assignment target names: the key of a subscript or a quoted key (`app.config["SECRET_KEY"]`,
 * `"api_key"`), else the last identifier (`self.api_key`, `$this->apiKey`, `@token`, `token:`).
 */
export function targetWord(target: string): string | null {
  const quoted = [...target.matchAll(/(["'`])((?:(?!\1)[^\\]|\\.)*)\1/g)].at(-1);
  if (quoted && /[A-Za-z]/.test(quoted[2])) return quoted[2];
  const identifiers = target.match(/[A-Za-z_][A-Za-z0-9_]*/g);
  return identifiers?.at(-1) ?? null;
}

export function envNameForTarget(target: string): string | null {
  const word = targetWord(target);
  return word ? toEnvName(word) : null;
}

/** When nothing in the code names the value: the detector rule's id, as `github-pat` → `GITHUB_PAT`. */
export function envNameForRule(ruleId: string): string {
  return RULE_NAMES[ruleId] ?? toEnvName(ruleId) ?? 'SECRET';
}
