import { parserFor } from '../languages/index.ts';
import type { RuleSet } from '../scanning/sast/rule-set.ts';
import { analyzeSource, type SastMatch } from '../scanning/sast/sast-engine.ts';
import { ECOSYSTEMS, type Ecosystem } from '../inventory/component.ts';
import { ExtractError } from '../inventory/extractors/extractor.ts';
import { affectedCopies, type AffectedPackage } from './fixers/dependencies/affected-copies.ts';
import { lineMapper, type LineSpan } from './fixers/shared/line-map.ts';
import { findingMatches } from './fixers/secrets/secret-location.ts';
import type { TreeTexts } from './tree-texts.ts';
import type { FixFinding } from './types.ts';

// Whether a finding is still there in a patched tree, judged the way its engine would judge it: verify.ts
// asks the check its scan type's descriptor (src/scanning/scan-types/) names. A finding counts as still
// detected:
// - secrets: the detector fires with the same rule in the file on a value with the same masked form
//   (all the finding keeps of it): anywhere in the file when that form shows some of the value, within
//   ten lines of the recorded line when it is all asterisks. A secret found only in the history is
//   always still detected: no edit of the tree removes it.
// - SAST: the same rule fires in the file on a match that overlaps where the finding's match went (its
//   lines followed through a line diff with the original), or on a match with the same text (the
//   engine's fingerprint is the rule, the file and the matched text) that is not where another of the
//   rule's original matches went, so code moved elsewhere still counts. Without the original, a match of
//   the rule within three lines of the recorded line counts. For a rule not in the rule set (an external
//   Semgrep finding) nothing can be run: it counts while its file is unchanged.
// - dependencies: the finding's manifest, extracted again, still has the package at the installed
//   version or between it and the fixed one (see affected-copies.ts).
// - deep AI review findings cannot be re-run offline, so they never count as still detected.

const NEARBY_LINES = 3;

export async function secretStillDetected(finding: FixFinding, tree: TreeTexts): Promise<boolean> {
  if (finding.metadata.source === 'history') return true;
  const text = await tree.current(finding.filePath);
  if (text !== null && findingMatches(text, finding).length > 0) return true;
  return secretMoved(finding, tree);
}

/**
 * Whether the fix only hid the secret from the detector: its value, compared by letters and digits
 * alone (so a literal split into concatenated pieces still counts), is in some changed file.
 */
async function secretMoved(finding: FixFinding, tree: TreeTexts): Promise<boolean> {
  const original = tree.original(finding.filePath);
  if (typeof original !== 'string') return false;
  const alnum = (value: string) => value.replace(/[^A-Za-z0-9]/g, '');
  const values = findingMatches(original, finding)
    .map((m) => alnum(m.secret))
    .filter((value) => value.length >= 12);
  if (!values.length) return false;
  for (const file of tree.changedFiles()) {
    const text = await tree.current(file);
    if (text !== null && values.some((value) => alnum(text).includes(value))) return true;
  }
  return false;
}

export async function sastStillDetected(finding: FixFinding, tree: TreeTexts, ruleSet: RuleSet): Promise<boolean> {
  const file = finding.filePath;
  const text = await tree.current(file);
  if (text === null) return false;
  const parser = parserFor(file);
  const known = ruleSet.rules.some((r) => r.id === finding.checkId);
  if (!parser || !known) {
    const original = await tree.originalOrUnchanged(file);
    return original === undefined ? !tree.isChanged(file) : original === text;
  }
  const matchesOf = (source: string) => analyzeSource(ruleSet, parser, source).filter((m) => m.rule.id === finding.checkId);
  const now = matchesOf(text);
  if (!now.length) return false;
  const line = finding.startLine ?? 1;
  const original = await tree.originalOrUnchanged(file);
  if (typeof original !== 'string') return now.some((m) => Math.abs(m.startLine - line) <= NEARBY_LINES);

  const all = matchesOf(original);
  const own = nearestTo(all, line);
  const toNew = lineMapper(original, text);
  const spanOf = (m: { startLine: number; endLine: number }) => ({ from: toNew(m.startLine).from, to: toNew(m.endLine).to });
  // A span with `to < from` is a match whose lines the fix removed: nothing overlaps it.
  const overlaps = (m: SastMatch, s: LineSpan) => s.from <= s.to && m.startLine <= s.to && m.endLine >= s.from;
  const ownSpans = own.length ? own.map(spanOf) : [toNew(line)];
  const otherSpans = all.filter((m) => !own.includes(m)).map(spanOf);
  const ownTexts = new Set(own.map(normalized));
  return now.some(
    (m) => ownSpans.some((s) => overlaps(m, s)) || (ownTexts.has(normalized(m)) && !otherSpans.some((s) => overlaps(m, s))),
  );
}

/** The original matches the finding stands for: those on its line, else the nearest within a few lines. */
function nearestTo(matches: SastMatch[], line: number): SastMatch[] {
  const distance = (m: SastMatch) => (m.startLine <= line && line <= m.endLine ? 0 : Math.abs(m.startLine - line));
  const nearest = Math.min(...matches.map(distance));
  return nearest <= NEARBY_LINES ? matches.filter((m) => distance(m) === nearest) : [];
}

function normalized(match: SastMatch): string {
  return match.text.replace(/\s+/g, ' ').trim();
}

export async function dependencyStillDetected(finding: FixFinding, tree: TreeTexts): Promise<boolean> {
  const target = affectedPackageOf(finding);
  if (!target) return false;
  const file = finding.filePath;
  const text = await tree.current(file);
  if (text === null) return false;
  try {
    const copies = await affectedCopies(file, text, target, tree.context);
    return copies === null ? !tree.isChanged(file) : copies.length > 0;
  } catch (error) {
    // A manifest the scan cannot read reports nothing; the parse check names the file.
    if (error instanceof ExtractError) return false;
    throw error;
  }
}

function affectedPackageOf(finding: FixFinding): AffectedPackage | null {
  const { package: name, ecosystem, installed_version: installed, fixed_version: fixed } = finding.metadata;
  if (typeof name !== 'string' || typeof installed !== 'string' || !ECOSYSTEMS.includes(ecosystem as Ecosystem)) return null;
  return { name, ecosystem: ecosystem as Ecosystem, installed, fixed: typeof fixed === 'string' && fixed ? fixed : null };
}
