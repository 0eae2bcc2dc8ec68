import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ParserName, RuleLanguage } from '../src/engines/sast/languages.ts';
import { loadRuleSet } from '../src/engines/sast/rule-set.ts';
import { analyzeSource } from '../src/engines/sast/sast-engine.ts';

// Every rule carries its own vulnerable and safe snippets: a vulnerable one must raise that rule, a safe
// one must not.

const ruleSet = loadRuleSet();

const PARSERS: Record<RuleLanguage, ParserName[]> = {
  python: ['python'],
  javascript: ['javascript', 'typescript'],
  java: ['java'],
  go: ['go'],
  php: ['php'],
  ruby: ['ruby'],
  template: ['template'],
};

describe('SAST rules', () => {
  test('the rule set loads, with unique ids and the fields every finding needs', () => {
    assert.ok(ruleSet.rules.length >= 10);
    assert.equal(new Set(ruleSet.rules.map((r) => r.id)).size, ruleSet.rules.length);
    for (const rule of ruleSet.rules) {
      assert.match(rule.id, new RegExp(`^${rule.language === 'javascript' ? '(javascript|typescript)' : rule.language}\\.`), rule.id);
      assert.ok(rule.cwe.length === 1, `${rule.id}: one CWE per rule keeps each finding a single claim`);
      assert.ok(rule.owasp.length >= 1, `${rule.id}: an OWASP category`);
    }
  });

  for (const rule of ruleSet.rules) {
    describe(rule.id, () => {
      for (const parser of PARSERS[rule.language]) {
        rule.tests.vulnerable.forEach((snippet, i) => {
          test(`vulnerable snippet ${i + 1} (${parser}) is reported`, () => {
            const hits = analyzeSource(ruleSet, parser, snippet).filter((m) => m.rule.id === rule.id);
            assert.ok(hits.length > 0, `not reported:\n${snippet}`);
          });
        });
        rule.tests.safe.forEach((snippet, i) => {
          test(`safe snippet ${i + 1} (${parser}) is not reported`, () => {
            const hits = analyzeSource(ruleSet, parser, snippet).filter((m) => m.rule.id === rule.id);
            assert.deepEqual(hits.map((h) => `line ${h.startLine}: ${h.text}`), [], `reported:\n${snippet}`);
          });
        });
      }
    });
  }
});
