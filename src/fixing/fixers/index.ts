import { loadRuleSet, type RuleSet } from '../../scanning/sast/rule-set.ts';
import { allScanTypes } from '../../scanning/scan-types/index.ts';
import type { Fixer, FixerServices, FixFinding } from '../types.ts';

export type FixerLookup = (finding: FixFinding) => Fixer | undefined;

/**
 * The fixers that need no model, as each scan type declares them, with SAST rewrites taken from
 * `rules` (a server's rule set includes its operator folders). A finding gets the first fixer of its
 * own scan type that handles it.
 */
export async function fixersWithRules(rules: () => RuleSet, services: FixerServices = {}): Promise<FixerLookup> {
  const byType = new Map<string, Fixer[]>();
  for (const descriptor of allScanTypes()) byType.set(descriptor.name, await descriptor.fixers(rules, services));
  return (finding) => byType.get(finding.scanType)?.find((fixer) => fixer.handles(finding));
}

/** The fixer for a finding, with the SAST rules the scans run (built-in plus the configured operator folders). */
export const fixerFor: FixerLookup = await fixersWithRules(() => loadRuleSet());
