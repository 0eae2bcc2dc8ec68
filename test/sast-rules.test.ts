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

describe('operator rule folders', () => {
  test('a folder named in the settings adds its rules to the built-in ones', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const { BUILTIN_RULES_DIR } = await import('../src/engines/sast/rule-set.ts');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-rules-'));
    try {
      fs.mkdirSync(path.join(dir, 'python'));
      fs.writeFileSync(
        path.join(dir, 'python', 'house.yml'),
        [
          'language: python',
          'rules:',
          '  - id: python.house.no-print',
          '    message: Use the logger instead of print.',
          '    severity: low',
          '    cwe: ["CWE-532: Insertion of Sensitive Information into Log File"]',
          '    owasp: ["A09:2021 - Security Logging and Monitoring Failures"]',
          '    rule: { pattern: "print($$$)" }',
          '    tests:',
          '      vulnerable:',
          '        - |',
          '          print(user.password)',
          '      safe:',
          '        - |',
          '          log.info("ok")',
        ].join('\n'),
      );
      const combined = loadRuleSet([BUILTIN_RULES_DIR, dir]);
      assert.equal(combined.rules.length, ruleSet.rules.length + 1);
      const hits = analyzeSource(combined, 'python', 'print(user.password)\n').map((m) => m.rule.id);
      assert.ok(hits.includes('python.house.no-print'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
