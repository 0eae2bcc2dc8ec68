// Credential rules as data, in the manner of gitleaks: keywords that must appear in a file before the
// regex runs, the regex (its `secret` group marks the credential itself), an entropy floor that turns
// away placeholders, an optional structure or checksum check, and a sample template from which tests
// build a positive fixture (the template syntax is described in rules/helpers.ts).
//
// The rules live in rules/<category>.ts, one table per kind of service. Rules that know a credential by
// its own shape come first; rules that need a provider's name beside a value follow, so a token both
// could claim is reported under its own type; the hard-coded-password rule is last.
import { AI_RULES } from './rules/ai.ts';
import { CLOUD_RULES } from './rules/cloud.ts';
import { DATABASE_RULES } from './rules/databases.ts';
import { DEVTOOLS_RULES } from './rules/devtools.ts';
import { CONTEXT_RULES, QUOTE, re, rule, type SecretRule } from './rules/helpers.ts';
import { KEY_RULES } from './rules/keys.ts';
import { MESSAGING_RULES } from './rules/messaging.ts';
import { OBSERVABILITY_RULES } from './rules/observability.ts';
import { PAYMENTS_RULES } from './rules/payments.ts';
import { REGISTRY_RULES } from './rules/registries.ts';
import { SAAS_RULES } from './rules/saas.ts';

export type { SecretRule } from './rules/helpers.ts';

const CATALOG: SecretRule[] = [
  ...CLOUD_RULES,
  ...DEVTOOLS_RULES,
  ...REGISTRY_RULES,
  ...MESSAGING_RULES,
  ...PAYMENTS_RULES,
  ...OBSERVABILITY_RULES,
  ...SAAS_RULES,
  ...AI_RULES,
  ...DATABASE_RULES,
  ...KEY_RULES,
];

export const SECRET_RULES: SecretRule[] = [
  ...CATALOG.filter((r) => !CONTEXT_RULES.has(r)),
  ...CATALOG.filter((r) => CONTEXT_RULES.has(r)),
  rule('generic-secret-assignment', 'Hard-coded password or secret', 'medium',
    ['pass', 'pwd', 'secret', 'token', 'api_key', 'apikey', 'api-key', 'credential', 'auth_key', 'private_key'],
    re(String.raw`(?:passw(?:or)?d|pwd|secret|token|api[_-]?key|credential|auth[_-]?key|private[_-]?key)[\w.-]{0,20}${QUOTE}\s*(?:=|:|:=|=>|\|\||\?\?)\s*["'\x60](?<secret>[^"'\x60\s]{8,128})["'\x60]`, 'i'),
    'db_password = "{a:24}"', 3.5),
];
