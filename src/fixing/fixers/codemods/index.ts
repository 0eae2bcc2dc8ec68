import type { Codemod } from './codemod.ts';
import { pythonParameterizedSql } from './python/parameterized-sql.ts';

// The catalog: one small module per codemod, each naming the rules it fixes. A rule has at most one.

export const CODEMODS: readonly Codemod[] = [pythonParameterizedSql];

const byRule = new Map<string, Codemod>();
for (const codemod of CODEMODS) {
  for (const rule of codemod.rules) {
    if (byRule.has(rule)) throw new Error(`${rule} has two codemods: ${byRule.get(rule)!.name} and ${codemod.name}`);
    byRule.set(rule, codemod);
  }
}

export function codemodFor(ruleId: string): Codemod | undefined {
  return byRule.get(ruleId);
}
