import type { SgNode } from '@ast-grep/napi';
import type { RuleSet } from '../../../scanning/sast/rule-set.ts';
import { analyzeSource, type SastMatch } from '../../../scanning/sast/sast-engine.ts';
import { SECRET_RULES } from '../../../scanning/secrets/rules.ts';
import type { FixFinding } from '../../types.ts';
import type { LocatedSecret } from './secret-location.ts';
import { fieldOf, kindOf, nodesSpanning, parseCode, type CodeParser } from '../shared/syntax.ts';
import { lineStarts } from '../shared/text-edits.ts';

// A SAST rule about hard-coded credentials reports the assignment, argument or pair that holds one; the
// secrets fixer moves the literal value of it, found here, the way it moves a detector's match.

/** How far a match may have moved from the finding's line (an earlier fix in the file added lines). */
const NEARBY_LINES = 3;

/** SAST rules are keyword rules: what the value is bound to names it, and a test's made-up value is a fixture. */
const KEYWORD_RULE = SECRET_RULES.find((rule) => rule.id === 'generic-secret-assignment')!;

export function isCredentialRule(ruleSet: RuleSet, ruleId: string): boolean {
  return ruleSet.rules.some((rule) => rule.id === ruleId && rule.category === 'secrets');
}

/** The literal values of the finding's rule matches on its line, or the nearest within a few lines. */
export function locateSastCredentials(ruleSet: RuleSet, parser: CodeParser, text: string, finding: FixFinding): LocatedSecret[] {
  const matches = analyzeSource(ruleSet, parser, text).filter((m) => m.rule.id === finding.checkId);
  const line = finding.startLine ?? 1;
  const distance = (startLine: number) => Math.abs(startLine - line);
  const nearest = Math.min(...matches.map((m) => distance(m.startLine)));
  if (!(nearest <= NEARBY_LINES)) return [];
  return literalsOf(matches.filter((m) => distance(m.startLine) === nearest), parser, text);
}

/** The literal values of every credential rule's matches in the text. */
export function sastCredentialsIn(ruleSet: RuleSet, parser: CodeParser, text: string): LocatedSecret[] {
  return literalsOf(analyzeSource(ruleSet, parser, text).filter((m) => m.rule.category === 'secrets'), parser, text);
}

function literalsOf(matches: SastMatch[], parser: CodeParser, text: string): LocatedSecret[] {
  const root = parseCode(parser, text);
  const starts = lineStarts(text);
  const located = new Map<number, LocatedSecret>();
  for (const match of matches) {
    const start = text.indexOf(match.text, starts[match.startLine - 1] ?? 0);
    if (start < 0) continue;
    const node = nodesSpanning(root, start, start + match.text.length).at(-1);
    const literal = node && credentialLiteral(node);
    const content = literal && contentRange(literal);
    if (!content || located.has(content.start)) continue;
    located.set(content.start, { rule: KEYWORD_RULE, ...content, startLine: literal.range().start.line + 1 });
  }
  return [...located.values()].sort((a, b) => a.start - b.start);
}

const STRING_KINDS = new Set(['string', 'template_string', 'interpreted_string_literal', 'raw_string_literal', 'string_literal', 'encapsed_string']);

/**
 * The string literal that is the credential: the literal a rule reports itself, the assigned or paired
 * value, a fallback's literal (`process.env.X || "…"`), or a call's second argument (`jwt.sign(payload, "…")`).
 */
function credentialLiteral(node: SgNode): SgNode | null {
  if (STRING_KINDS.has(kindOf(node))) return node;
  let value: SgNode | null = ['right', 'value'].map((field) => fieldOf(node, field)).find(Boolean) ?? null;
  if (!value && /call/.test(kindOf(node))) value = fieldOf(node, 'arguments')?.namedChildren()[1] ?? null;
  if (value && /binary/.test(kindOf(value))) value = fieldOf(value, 'right');
  return value && STRING_KINDS.has(kindOf(value)) ? value : null;
}

/** Where the characters of a literal are, inside its prefix and quotes. */
function contentRange(literal: SgNode): { start: number; end: number } | null {
  const match = /^([A-Za-z]*(?:"""|'''|"|'|`))([\s\S]*?)(?:"""|'''|"|'|`)$/.exec(literal.text());
  if (!match || !match[2]) return null;
  const start = literal.range().start.index + match[1].length;
  return { start, end: start + match[2].length };
}
