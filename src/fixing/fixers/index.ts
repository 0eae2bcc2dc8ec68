import { loadRuleSet, type RuleSet } from '../../engines/sast/rule-set.ts';
import type { Fixer, FixFinding } from '../types.ts';
import { dependencyFixer } from './dependency-fixer.ts';
import { createSastRuleFixer } from './sast-rule-fixer.ts';
import { secretFixer } from './secret-fixer.ts';

/**
 * The fixers that need no model, each for one kind of finding, with SAST rewrites taken from `rules`
 * (a server's rule set includes its operator folders); the first fixer that handles a finding applies.
 */
export function fixersWithRules(rules: () => RuleSet): (finding: FixFinding) => Fixer | undefined {
  const fixers = [secretFixer, dependencyFixer, createSastRuleFixer(rules)];
  return (finding) => fixers.find((fixer) => fixer.handles(finding));
}

/** The fixer for a finding, with the SAST rules the scans run (built-in plus the configured operator folders). */
export const fixerFor = fixersWithRules(() => loadRuleSet());
