import { loadRuleSet, type RuleSet } from '../scanning/sast/rule-set.ts';
import { parseProblem } from './fixers/shared/parse-check.ts';
import { scanTypeNamed } from '../scanning/scan-types/index.ts';
import { TreeTexts } from './tree-texts.ts';
import type { FixFinding, VerificationResult } from './types.ts';

// Checks a patched tree the way the scan would: each finding's own file is run through its originating
// engine again, and each changed file must still parse. `originals` holds the changed files as the base
// commit has them (null for a file the fix added), so that a file that did not parse before is not
// blamed on the fix, and so SAST matches can be followed across lines the fix moved.
//
// When a finding counts as still detected is its scan type's check (still-detected.ts), which its
// descriptor names (src/scanning/scan-types/); an unknown type throws.

export interface VerifyOptions {
  /** The SAST rules the scan ran; by default the built-in ones plus the configured operator folders. */
  ruleSet?: RuleSet;
}

export async function verifyFix(
  dir: string,
  findings: FixFinding[],
  changedFiles: string[],
  originals: ReadonlyMap<string, string | null> = new Map(),
  options: VerifyOptions = {},
): Promise<VerificationResult> {
  const tree = new TreeTexts(dir, changedFiles, originals);
  const ruleSet = options.ruleSet ?? loadRuleSet();
  const stillDetected: string[] = [];
  for (const finding of findings) {
    if (await isStillDetected(finding, tree, ruleSet)) stillDetected.push(finding.id);
  }
  const unparsable: VerificationResult['unparsable'] = [];
  for (const file of [...new Set(changedFiles)].sort()) {
    const text = await tree.current(file);
    if (text === null) continue;
    const problem = await parseProblem(file, text, tree.context);
    if (!problem) continue;
    const original = tree.original(file);
    // A file that already failed the same way before the fix is not the fix's doing.
    if (typeof original === 'string' && (await parseProblem(file, original, tree.context))) continue;
    unparsable.push({ file, reason: problem });
  }
  return { stillDetected, unparsable };
}

/** Judged by the finding's own scan type; a type the registry does not know is refused, never passed. */
async function isStillDetected(finding: FixFinding, tree: TreeTexts, ruleSet: RuleSet): Promise<boolean> {
  const stillDetected = await scanTypeNamed(finding.scanType).stillDetected();
  return stillDetected(finding, tree, ruleSet);
}
