import type { RuleSet } from '../../engines/sast/rule-set.ts';
import type { Fixer, FixFinding } from '../types.ts';
import { dependencyFixer } from './dependency-fixer.ts';
import { createSastRuleFixer, sastRuleFixer } from './sast-rule-fixer.ts';
import { secretFixer } from './secret-fixer.ts';

/** The fixers that need no model, each for one kind of finding; the first that handles a finding applies. */
export const DETERMINISTIC_FIXERS: readonly Fixer[] = [secretFixer, dependencyFixer, sastRuleFixer];

export function fixerFor(finding: FixFinding): Fixer | undefined {
  return DETERMINISTIC_FIXERS.find((fixer) => fixer.handles(finding));
}

/** The fixers for a server whose SAST rules include an operator's own folders. */
export function fixersWithRules(rules: () => RuleSet): (finding: FixFinding) => Fixer | undefined {
  const fixers = [secretFixer, dependencyFixer, createSastRuleFixer(rules)];
  return (finding) => fixers.find((fixer) => fixer.handles(finding));
}
