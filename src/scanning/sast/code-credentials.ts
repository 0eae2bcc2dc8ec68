import crypto from 'node:crypto';
import type { RawFinding } from '../engine.ts';
import { hashParts, snippetOf } from '../match-identity.ts';
import type { SecretMatch } from '../secrets/detector.ts';
import { CONNECTION_STRING_RULE, GENERIC_RULE } from '../secrets/generic.ts';
import { SECRET_RULES, type SecretRule } from '../secrets/rules.ts';
import { maskSecret } from '../secrets/text-checks.ts';
import type { RuleLanguage } from '../../languages/index.ts';
import type { StoredMatch } from './result-cache.ts';

// Hard-coded credentials in the code SAST reads, found by the secrets engine's detector (its token rules,
// context detectors, placeholder checks and validators) rather than by patterns of SAST's own, and
// reported as SAST findings: `<language>.lang.secrets.hardcoded-credential`, each credential once.

/** The check id a language's credentials are reported under. */
export const credentialCheckId = (language: RuleLanguage) => `${language}.lang.secrets.hardcoded-credential`;

const CWE_KEY = 'CWE-321: Use of Hard-coded Cryptographic Key';
const CWE_CREDENTIAL = 'CWE-798: Use of Hard-coded Credentials';
const OWASP = ['A07:2021 - Identification and Authentication Failures'];
const REFERENCE = (cwe: string) => `https://cwe.mitre.org/data/definitions/${/^CWE-(\d+)/.exec(cwe)![1]}.html`;

/** Names of keys that sign or encrypt (a framework's session key, a JWT secret, an HMAC or cipher key). */
const SIGNING_KEY_NAME = /(?:secret[_-]?key|signing[_-]?(?:key|secret)|jwt[_-]?(?:secret|key)|(?:session|cookie)[_-]?secret|(?:encryption|encrypt|crypt|cipher|aes|hmac|private)[_-]?(?:key|secret)|secret[_-]?key[_-]?base)$/i;
/** Detector rules whose credential is a key by what it is: a private key, a framework's signing key. */
const KEY_RULES = /^(?:[a-z]+-)*private-key$|^app-secret-key$|^rails-secret-key-base$/;

/** The name the value is written under: the last identifier before it on its line (`app.config["SECRET_KEY"] = `). */
function nameBefore(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const before = text.slice(Math.max(lineStart, offset - 120), offset);
  return [...before.matchAll(/[A-Za-z_][\w-]*/g)].at(-1)?.[0] ?? '';
}

/**
 * CWE-321 for a key that signs or encrypts, CWE-798 for any other credential. A password is reported as
 * CWE-798 too rather than as its child CWE-259: one CWE per finding, and CWE-798 is the one that names a
 * hard-coded password in a connection string or a seeded account as well as one a login compares against.
 */
export function credentialCwe(match: SecretMatch, text: string): string {
  return KEY_RULES.test(match.rule.id) || SIGNING_KEY_NAME.test(nameBefore(text, match.offset)) ? CWE_KEY : CWE_CREDENTIAL;
}

// The result cache keeps a credential as it keeps a rule's match: where the value lies in the file (which a
// hit, same content, reads back), under the detector's rule as `secrets.<rule>`; never the value itself.
const STORED_PREFIX = 'secrets.';
const DETECTOR_RULES = new Map<string, SecretRule>([CONNECTION_STRING_RULE, GENERIC_RULE, ...SECRET_RULES].map((rule) => [rule.id, rule]));

/** A credential as the result cache keeps it, or null when its rule could not be found again on a hit. */
export function storedCredential(match: SecretMatch): StoredMatch | null {
  if (DETECTOR_RULES.get(match.rule.id) !== match.rule) return null;
  return { ruleId: STORED_PREFIX + match.rule.id, startLine: match.startLine, endLine: match.endLine, at: match.offset, length: match.secret.length, anchor: null };
}

/** Whether a cached entry is a credential's rather than a SAST rule's. */
export const isStoredCredential = (stored: StoredMatch): boolean => stored.ruleId.startsWith(STORED_PREFIX) && DETECTOR_RULES.has(stored.ruleId.slice(STORED_PREFIX.length));

/** A cached credential read back from the content its entry was made from. */
export function credentialFromStore(stored: StoredMatch, text: string): SecretMatch {
  const rule = DETECTOR_RULES.get(stored.ruleId.slice(STORED_PREFIX.length))!;
  return { rule, secret: text.slice(stored.at, stored.at + stored.length), offset: stored.at, startLine: stored.startLine, endLine: stored.endLine };
}

/**
 * The credentials of a code file as SAST findings, leaving out those on a line a SAST finding of the
 * `secrets` category already reports (that rule's finding stands for the credential). `key` keys the hash
 * of each secret, so stored findings reveal nothing of it. The detector's rule, masked value and hash go
 * in the metadata, as a secrets finding's do: the secrets fixer locates the value by them.
 */
export function codeCredentialFindings(
  matches: SecretMatch[], text: string, filePath: string, language: RuleLanguage, key: Uint8Array, reported: RawFinding[],
): RawFinding[] {
  const checkId = credentialCheckId(language);
  const taken = reported.filter((f) => f.category === 'secrets');
  const findings: RawFinding[] = [];
  for (const match of matches) {
    if (taken.some((f) => f.startLine <= match.startLine && match.startLine <= f.endLine)) continue;
    if (findings.some((f) => f.startLine === match.startLine)) continue;
    const secretHash = crypto.createHmac('sha256', key).update(match.secret.replace(/\s+/g, '')).digest('hex');
    const masked = maskSecret(match.secret);
    const cwe = credentialCwe(match, text);
    findings.push({
      checkId,
      severity: match.rule.severity,
      category: 'secrets',
      title: `${match.rule.title} hard-coded in the source`,
      message:
        `${match.rule.title} (${masked}) is written in the source. Anyone who reads the code can use it: ` +
        'revoke it, then load it from the environment or a secret store.',
      filePath,
      startLine: match.startLine,
      endLine: match.endLine,
      cwe: [cwe],
      owasp: OWASP,
      references: [REFERENCE(cwe)],
      fingerprint: crypto.createHash('sha256').update(`${checkId}\0${filePath}\0${secretHash}`).digest('hex'),
      matchHash: hashParts(checkId, secretHash),
      anchor: secretHash,
      snippet: snippetOf(text, match.startLine, match.endLine, [match.secret]),
      commitSha: null,
      metadata: { confidence: 'high', mode: 'secrets', rule: match.rule.id, masked_secret: masked, secret_hash: secretHash, source: 'tree' },
    });
  }
  return findings;
}
