import { detectSecrets, type SecretMatch } from '../../../scanning/secrets/detector.ts';
import type { SecretRule } from '../../../scanning/secrets/rules.ts';
import { maskSecret } from '../../../scanning/secrets/text-checks.ts';
import type { FixFinding } from '../../types.ts';
import { lineStarts } from '../shared/text-edits.ts';

/** Where a detected secret sits in a file's text. */
export interface LocatedSecret {
  rule: SecretRule;
  start: number;
  end: number;
  startLine: number;
}

/** How far a secret may have moved from its recorded line when its masked form cannot tell it apart. */
const NEARBY_LINES = 10;

/**
 * Whether the secrets detector reported the finding: its rules are named `secrets.<rule>`, and a bare rule
 * name filed under the `secrets` category is one of them too. Every other engine's rule ids are dotted
 * namespaces (`python.lang.secrets.…`, `ai.review.…`), so SAST credential rules, which share the
 * category, are not; but a SAST finding of a credential the detector found in code keeps the detector's
 * rule and secret hash in its metadata, as the detector's own findings do, and is located the same way.
 */
export function isDetectedSecret(finding: FixFinding): boolean {
  if (finding.checkId.startsWith('secrets.')) return true;
  return finding.category === 'secrets' && (!finding.checkId.includes('.') || (typeof finding.metadata.rule === 'string' && typeof finding.metadata.secret_hash === 'string'));
}

export function findingRule(finding: FixFinding): string {
  const rule = finding.metadata.rule;
  return typeof rule === 'string' ? rule : finding.checkId.replace(/^secrets\./, '');
}

function findingMask(finding: FixFinding): string | undefined {
  return typeof finding.metadata.masked_secret === 'string' ? finding.metadata.masked_secret : undefined;
}

/**
 * The detector's matches that are this finding's secret: the same rule and, where the finding kept one,
 * the same masked form (all it keeps of the value; its hash needs the server's key). The recorded line
 * is preferred; an earlier fix in the same file may have moved it, so otherwise the nearest one counts,
 * anywhere when the masked form shows characters of the secret, else within a few lines.
 */
export function findingMatches(text: string, finding: FixFinding): SecretMatch[] {
  const rule = findingRule(finding);
  const mask = findingMask(finding);
  const candidates = detectSecrets(text).filter((m) => m.rule.id === rule && (!mask || maskSecret(m.secret) === mask));
  const line = finding.startLine ?? 1;
  const onLine = candidates.filter((m) => m.startLine === line);
  if (onLine.length) return onLine;
  const distinctive = mask !== undefined && /[^*]/.test(mask);
  const reach = distinctive ? Infinity : NEARBY_LINES;
  const distance = (m: SecretMatch) => Math.abs(m.startLine - line);
  const nearest = Math.min(...candidates.map(distance));
  return nearest <= reach ? candidates.filter((m) => distance(m) === nearest) : [];
}

export function locateFindingSecrets(text: string, finding: FixFinding): LocatedSecret[] {
  const starts = lineStarts(text);
  const located = new Map<number, LocatedSecret>();
  for (const match of findingMatches(text, finding)) {
    const start = text.indexOf(match.secret, starts[match.startLine - 1]);
    if (start === -1 || located.has(start)) continue;
    located.set(start, { rule: match.rule, start, end: start + match.secret.length, startLine: match.startLine });
  }
  return [...located.values()].sort((a, b) => a.start - b.start);
}
