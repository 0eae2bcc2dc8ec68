import type { SgNode } from '@ast-grep/napi';
import { loadRuleSet, type RuleSet, type SastRule } from '../../../scanning/sast/rule-set.ts';
import { analyzeSource } from '../../../scanning/sast/sast-engine.ts';
import { notFixed, type Fixer, type FixerOutcome, type FixFinding, type FixWorkspace } from '../../types.ts';
import { renderFix } from './fix-template.ts';
import { codeParserFor, kindOf, nodesSpanning, parseCode, syntaxErrors, type CodeParser } from '../shared/syntax.ts';
import { applyEdits, type TextEdit } from '../shared/text-edits.ts';
import { readTreeFile, writeTreeFile } from '../shared/tree-files.ts';

// Applies a SAST rule's own `fix`: the matched node on the finding's line is replaced by the rule's
// template, metavariables filled from the match. A rule's fix is written for the shape its author had in
// mind, and a rule may match other shapes too, so the result must pass three checks before it is
// written: the file parses as well as before, the replacement reads as the same kind of node as the
// match (an argument stays an argument), and the rule no longer fires there.

/** How far a match may have moved from the finding's line (an earlier fix in the file added lines). */
const NEARBY_LINES = 3;

export function createSastRuleFixer(loadRules: () => RuleSet = () => loadRuleSet()): Fixer {
  let rules: RuleSet | undefined;
  const ruleSet = () => (rules ??= loadRules());
  return {
    name: 'sast-rule-fix',
    // A finding recorded before its rule gained a fix has none in its metadata; the rule set has the say.
    handles: (finding) => typeof finding.metadata.fix === 'string' || ruleSet().rules.some((r) => r.id === finding.checkId && r.fix),
    apply: (finding, workspace) => applyRuleFix(ruleSet(), finding, workspace),
  };
}

export const sastRuleFixer = createSastRuleFixer();

async function applyRuleFix(ruleSet: RuleSet, finding: FixFinding, workspace: FixWorkspace): Promise<FixerOutcome> {
  workspace.signal.throwIfAborted();
  const file = finding.filePath;
  const rule = ruleSet.rules.find((r) => r.id === finding.checkId);
  if (!rule?.fix) return notFixed(`There is no deterministic fix for ${finding.checkId}`);
  const parser = codeParserFor(file);
  if (!parser) return notFixed(`There is no deterministic fix for ${finding.checkId} in ${file}, which is not parsed into a syntax tree`);
  const text = await readTreeFile(workspace.dir, file);
  if (text === null) return { fixed: true, changedFiles: [], note: `${file} no longer exists, so ${rule.id} no longer applies to it` };

  const root = parseCode(parser, text);
  const nodes = matchesNear(ruleSet, rule, parser, text, root, finding.startLine ?? 1);
  if (!nodes.length) return { fixed: true, changedFiles: [], note: `${rule.id} no longer matches ${file} near line ${finding.startLine}; nothing to change` };

  const edits: TextEdit[] = [];
  for (const node of nodes) {
    const rendered = renderFix(rule.fix, node, text);
    if ('unbound' in rendered) return notFixed(`The fix of ${rule.id} uses ${rendered.unbound}, which the match at ${file}:${lineOf(node)} does not bind, so it does not apply there`);
    edits.push({ start: node.range().start.index, end: node.range().end.index, text: rendered.text });
  }
  const fixed = applyEdits(text, edits);
  const problem = checkFix(ruleSet, rule, parser, text, fixed, nodes, edits);
  if (problem) return notFixed(`The fix of ${rule.id} does not fit the match at ${file}:${lineOf(nodes[0])}: ${problem}`);

  await writeTreeFile(workspace.dir, file, fixed);
  return { fixed: true, changedFiles: [file], note: `Applied the fix of ${rule.id} (${rule.fix}) at ${file}:${lineOf(nodes[0])}` };
}

/** The rule's matches on the finding's line, or else the nearest within a few lines. */
function matchesNear(ruleSet: RuleSet, rule: SastRule, parser: CodeParser, text: string, root: SgNode, line: number): SgNode[] {
  const nodes = matchNodes(ruleSet, rule, parser, text, root);
  const distance = (node: SgNode) => Math.abs(lineOf(node) - line);
  const nearest = Math.min(...nodes.map(distance));
  if (nearest > NEARBY_LINES) return [];
  return outermost(nodes.filter((node) => distance(node) === nearest));
}

/** Matches not inside another match, in order: a fix replaces the outer one whole. */
function outermost(nodes: SgNode[]): SgNode[] {
  const sorted = [...nodes].sort((a, b) => a.range().start.index - b.range().start.index || b.range().end.index - a.range().end.index);
  const kept: SgNode[] = [];
  for (const node of sorted) {
    const last = kept.at(-1);
    if (last && node.range().start.index < last.range().end.index) continue;
    kept.push(node);
  }
  return kept;
}

/**
 * Nodes the rule reports, with their metavariables: a pattern rule's own matches; for a taint rule, the
 * sink patterns' matches where the engine reports a tainted sink.
 */
function matchNodes(ruleSet: RuleSet, rule: SastRule, parser: CodeParser, text: string, root: SgNode): SgNode[] {
  if (rule.mode === 'pattern') return findAll(root, rule.rule!, rule.constraints);
  if (rule.mode !== 'taint') return [];
  const reported = analyzeSource(ruleSet, parser, text).filter((m) => m.rule.id === rule.id);
  return rule.sinks
    .flatMap((sink) => findAll(root, sink.rule))
    .filter((node) => reported.some((m) => m.startLine === lineOf(node) && m.text === node.text()));
}

function findAll(root: SgNode, rule: Record<string, unknown>, constraints?: Record<string, unknown>): SgNode[] {
  try {
    return root.findAll({ rule: rule as never, constraints: constraints as never });
  } catch {
    return [];
  }
}

function checkFix(ruleSet: RuleSet, rule: SastRule, parser: CodeParser, before: string, after: string, nodes: SgNode[], edits: TextEdit[]): string | null {
  const newRoot = parseCode(parser, after);
  if (syntaxErrors(newRoot).count > syntaxErrors(parseCode(parser, before)).count) return 'the result would not parse';
  let shift = 0;
  const lines = new Set<number>();
  const ordered = edits.map((edit, i) => ({ edit, node: nodes[i] })).sort((a, b) => a.edit.start - b.edit.start);
  for (const { edit, node } of ordered) {
    const start = edit.start + shift;
    const spanning = nodesSpanning(newRoot, start, start + edit.text.length);
    if (!spanning.some((n) => kindOf(n) === kindOf(node))) return `the replacement does not read as the same kind of node (${kindOf(node)}) there`;
    lines.add(after.slice(0, start).split('\n').length);
    shift += edit.text.length - (edit.end - edit.start);
  }
  const still = analyzeSource(ruleSet, parser, after).some((m) => m.rule.id === rule.id && lines.has(m.startLine));
  return still ? 'the rule would still fire there' : null;
}

function lineOf(node: SgNode): number {
  return node.range().start.line + 1;
}

