import { loadRuleSet, type RuleSet } from '../../scanning/sast/rule-set.ts';
import type { Fixer, FixerServices, FixFinding } from '../types.ts';
import { createDependencyFixer } from './dependencies/dependency-fixer.ts';
import { createCodemodFixer } from './sast/codemod-fixer.ts';
import { createSastRuleFixer } from './sast/sast-rule-fixer.ts';
import { createSastCredentialFixer, secretFixer } from './secrets/secret-fixer.ts';

// Every deterministic fixer, once. Each says by the finding's rule whether it fixes it (a SAST rule id of
// the server's rule set, a secrets detector rule, an advisory on a package), never by the scan type that
// reported it: a deep_ai_scan finding of a SAST rule is fixed as the semgrep_scan finding of that rule is.
// A finding gets the first fixer here that handles it, so the narrower fixers come first: a rule's codemod,
// then a SAST credential rule (moved as the secrets fixer moves a secret), then the rule's own `fix`
// template, then the detector's secrets, then vulnerable dependencies.
//
// To add a fixer: its module in the family folder (secrets/, dependencies/, sast/; shared/ holds what
// families share), one line below, its test in test/fixes/. To add a codemod: its module in
// sast/codemods/<language>/, one line in sast/codemods/index.ts, its cases in test/fixes/codemods.test.ts.

/** Builds a fixer from the server's SAST rule set (loaded on first use) and the services it may need. */
type FixerFactory = (rules: () => RuleSet, services: FixerServices) => Fixer;

const FIXERS: readonly FixerFactory[] = [
  (rules) => createCodemodFixer(rules),
  (rules) => createSastCredentialFixer(rules),
  (rules) => createSastRuleFixer(rules),
  () => secretFixer,
  (_rules, services) => createDependencyFixer(services),
];

export type FixerLookup = (finding: FixFinding) => Fixer | undefined;

/** The fixers in the order a finding is offered to them, SAST rewrites taken from `rules` (operator folders included). */
export function allFixers(rules: () => RuleSet, services: FixerServices = {}): Fixer[] {
  let loaded: RuleSet | undefined;
  const ruleSet = () => (loaded ??= rules());
  return FIXERS.map((create) => create(ruleSet, services));
}

/** The lookup the fix pipeline asks: the first fixer that handles the finding's rule. */
export function fixersWithRules(rules: () => RuleSet, services: FixerServices = {}): FixerLookup {
  const fixers = allFixers(rules, services);
  return (finding) => fixers.find((fixer) => fixer.handles(finding));
}

/** The fixer for a finding, with the SAST rules the scans run (built-in plus the configured operator folders). */
export const fixerFor: FixerLookup = fixersWithRules(() => loadRuleSet());
