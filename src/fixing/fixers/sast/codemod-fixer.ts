import type { SgNode } from '@ast-grep/napi';
import { parserFor, type ParserName } from '../../../languages/index.ts';
import { loadRuleSet, type RuleSet } from '../../../scanning/sast/rule-set.ts';
import { analyzeSource, type SastMatch } from '../../../scanning/sast/sast-engine.ts';
import { notFixed, type Fixer, type FixerOutcome, type FixFinding, type FixWorkspace } from '../../types.ts';
import type { Codemod, CodemodEdit } from './codemods/codemod.ts';
import { codemodFor } from './codemods/index.ts';
import { statementLines, statementOf } from './codemods/edit-kit.ts';
import { nodesSpanning, parseCode, syntaxErrors } from '../shared/syntax.ts';
import { applyEdits, lineStarts } from '../shared/text-edits.ts';
import { readTreeFile, writeTreeFile } from '../shared/tree-files.ts';
import { treeFiles } from './tree-listing.ts';
import { factsOf, type RepoFacts } from '../../repo-facts.ts';
import { templatePath } from '../secrets/env-template.ts';

// Applies the catalog's codemod for a SAST finding (see codemods/index.ts). The file is parsed once, the
// rule's matches nearest the finding's line are handed to the codemod, and its edits are written only when
// they pass four checks: every edit stays inside the finding's statement, a statement the codemod names
// as building the finding's value, or an import or helper added between top-level statements; the file
// parses as well as before; the rule no longer fires there; and no other rule reports more than before.
// Environment variables the rewritten code requires are named in the fix's notes, with where to list them
// (see variableNote).

/** How far a match may have moved from the finding's line (an earlier fix in the file added lines). */
const NEARBY_LINES = 3;

export function createCodemodFixer(loadRules: () => RuleSet = () => loadRuleSet()): Fixer {
  let rules: RuleSet | undefined;
  const ruleSet = () => (rules ??= loadRules());
  return {
    name: 'sast-codemod',
    handles: (finding) => codemodFor(finding.checkId) !== undefined,
    apply: (finding, workspace) => applyCodemod(ruleSet(), codemodFor(finding.checkId)!, finding, workspace),
  };
}

export const codemodFixer = createCodemodFixer();

interface Located {
  match: SastMatch;
  start: number;
  end: number;
  node: SgNode | null;
  /** What the edits may touch: the finding's statement (the match itself in a template). */
  span: { start: number; end: number };
}

async function applyCodemod(ruleSet: RuleSet, codemod: Codemod, finding: FixFinding, workspace: FixWorkspace): Promise<FixerOutcome> {
  workspace.signal.throwIfAborted();
  const file = finding.filePath;
  const parser = parserFor(file);
  if (!parser) return notFixed(`${file} is not a file ${codemod.name} reads`);
  const text = await readTreeFile(workspace.dir, file);
  if (text === null) return { fixed: true, changedFiles: [], note: `${file} no longer exists, so ${finding.checkId} no longer applies to it` };
  const before = analyzeSource(ruleSet, parser, text);
  const root = parser === 'template' ? null : parseCode(parser, text);
  const located = nearestMatches(before, finding, text, root);
  if (!located.length) return { fixed: true, changedFiles: [], note: `${finding.checkId} no longer matches ${file} near line ${finding.startLine}; nothing to change` };

  const edits: CodemodEdit[] = [];
  const notes: string[] = [];
  const variables: string[] = [];
  let listing: Promise<string[]> | undefined;
  const files = () => (listing ??= treeFiles(workspace.dir));
  for (const site of located) {
    const answer = await codemod.rewrite({
      rule: finding.checkId,
      file,
      parser,
      text,
      root,
      node: site.node,
      match: { start: site.start, end: site.end, text: site.match.text },
      readFile: (relative) => readTreeFile(workspace.dir, relative).catch(() => null),
      files,
      facts: () => factsOf(workspace),
    });
    if ('refuse' in answer) return notFixed(`${codemod.name} does not fix ${finding.checkId} at ${file}:${site.match.startLine}: ${answer.refuse}`);
    const outside = answer.edits.find((edit) => !allowed(edit, site, root, text));
    if (outside) return notFixed(`${codemod.name} would change ${file} outside the finding's statement at line ${lineAt(text, outside.start)}, so nothing was written`);
    for (const edit of answer.edits) {
      // A helper goes above the statement that uses it: sites in two statements add it once, above the first.
      const same = edits.findIndex((e) => e.text === edit.text && ((e.start === edit.start && e.end === edit.end) || (e.topLevel && edit.topLevel && e.start === e.end && edit.start === edit.end)));
      if (same === -1) edits.push(edit);
      else if (edit.start < edits[same]!.start) edits[same] = edit;
    }
    notes.push(answer.note);
    variables.push(...(answer.variables ?? []));
  }
  let after: string;
  try {
    after = applyEdits(text, edits);
  } catch {
    return notFixed(`${codemod.name} found edits that overlap at ${file}:${finding.startLine}, so nothing was written`);
  }
  const problem = checkResult(ruleSet, parser, finding.checkId, text, after, before, edits, located);
  if (problem) return notFixed(`${codemod.name} does not fix ${finding.checkId} at ${file}:${located[0]!.match.startLine}: ${problem}`);
  await writeTreeFile(workspace.dir, file, after);
  const note = `${[...new Set(notes)].join(' ')} (${codemod.name}, ${file}:${located[0]!.match.startLine})`;
  if (!variables.length) return { fixed: true, changedFiles: [file], note };
  const facts = await factsOf(workspace);
  return { fixed: true, changedFiles: [file], note, userNotes: [...new Set(variables)].map((name) => variableNote(facts, file, name)) };
}

/**
 * What to set for a variable the rewritten code requires. The environment template and compose files are
 * shared by every fix of the repository, and two fixes adding lines to one file conflict, so a codemod's fix
 * leaves them as they are and says what to add there; the credential fixes' one writer (secrets/) lists only
 * the variables of credentials.
 */
function variableNote(facts: RepoFacts, file: string, name: string): string {
  const compose = facts.start.compose.filter((c) => c.services.some((s) => s.build !== null)).map((c) => c.path);
  const where = `add \`${name}=\` to ${templatePath(facts)}${compose.length ? ` and pass it to the app's services in ${compose.join(', ')}` : ''}`;
  return `Set the environment variable ${name} wherever ${file} runs (${where})`;
}

/** The rule's matches on the finding's line, or else the nearest within a few lines, with their nodes. */
function nearestMatches(matches: SastMatch[], finding: FixFinding, text: string, root: SgNode | null): Located[] {
  const line = finding.startLine ?? 1;
  const own = matches.filter((m) => m.rule.id === finding.checkId);
  const distance = (m: SastMatch) => Math.abs(m.startLine - line);
  const nearest = Math.min(...own.map(distance));
  if (!(nearest <= NEARBY_LINES)) return [];
  const starts = lineStarts(text);
  const located: Located[] = [];
  for (const match of own.filter((m) => distance(m) === nearest)) {
    const start = text.indexOf(match.text, starts[match.startLine - 1] ?? 0);
    if (start < 0) continue;
    const end = start + match.text.length;
    if (located.some((l) => l.start <= start && end <= l.end)) continue; // inside another match: the outer one is fixed whole
    const node = root ? (nodesSpanning(root, start, end).at(-1) ?? null) : null;
    if (root && !node) continue;
    const statement = node ? statementOf(node).range() : null;
    located.push({ match, start, end, node, span: statement ? { start: statement.start.index, end: statement.end.index } : { start, end } });
  }
  return located;
}

function allowed(edit: CodemodEdit, site: Located, root: SgNode | null, text: string): boolean {
  const within = (span: { start: number; end: number }) => span.start <= edit.start && edit.end <= span.end;
  if (within(site.span)) return true;
  if (edit.related) {
    // A related statement may also be removed with its line.
    const related = statementOf(edit.related).range();
    return within(statementLines(text, related.start.index, related.end.index));
  }
  if (edit.topLevel && root && edit.start === edit.end) {
    return !root.children().some((c) => c.range().start.index < edit.start && edit.start < c.range().end.index);
  }
  return false;
}

function checkResult(ruleSet: RuleSet, parser: ParserName, ruleId: string, text: string, after: string, before: SastMatch[], edits: CodemodEdit[], sites: Located[]): string | null {
  if (parser !== 'template' && syntaxErrors(parseCode(parser, after)).count > syntaxErrors(parseCode(parser, text)).count) return 'the result would not parse';
  const now = analyzeSource(ruleSet, parser, after);
  const moved = (offset: number) => offset + edits.filter((e) => e.end <= offset).reduce((sum, e) => sum + e.text.length - (e.end - e.start), 0);
  // A site whose statement an edit deletes whole has nothing left to fire on.
  const kept = sites.filter((site) => !edits.some((e) => e.text === '' && e.start <= site.span.start && site.span.end <= e.end));
  const regions = kept.map((site) => {
    const start = moved(site.span.start);
    const grown = edits.filter((e) => site.span.start <= e.start && e.end <= site.span.end).reduce((sum, e) => sum + e.text.length - (e.end - e.start), 0);
    return { from: lineAt(after, start), to: lineAt(after, start + site.span.end - site.span.start + grown) };
  });
  if (now.some((m) => m.rule.id === ruleId && regions.some((r) => m.startLine <= r.to && r.from <= m.endLine))) return 'the rule would still fire there';
  // A rule reporting more matches than before is something new (a changed match of a rule counts once).
  const counts = (matches: SastMatch[]) => matches.reduce((m, x) => m.set(x.rule.id, (m.get(x.rule.id) ?? 0) + 1), new Map<string, number>());
  const old = counts(before);
  for (const [id, n] of counts(now)) {
    if (id !== ruleId && n > (old.get(id) ?? 0)) return `the result would be reported by ${id}`;
  }
  return null;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

