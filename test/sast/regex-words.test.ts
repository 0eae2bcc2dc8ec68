import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from '@ast-grep/napi';
import { registerLanguages } from '../../src/languages/index.ts';
import { loadRuleSet } from '../../src/scanning/sast/rule-set.ts';
import { requiredWords } from '../../src/scanning/sast/regex-words.ts';

// The matcher skips a rule in a file that lacks the words its regexes require (requiredWords): a word
// claimed that a match can lack would hide findings, so each claim must hold for every text the regex
// matches, and whatever the reading cannot be sure of must claim nothing.

describe('requiredWords', () => {
  test('a literal run between non-word characters, anchors or boundaries is a whole word', () => {
    assert.deepEqual(requiredWords('(^|\\.)createHash$'), [[['createHash']]]);
    assert.deepEqual(requiredWords('^hashlib\\.new$'), [[['hashlib'], ['new']]]);
    assert.deepEqual(requiredWords('\\bsecret\\b'), [[['secret']]]);
    assert.deepEqual(requiredWords('^DEBUG\\s*=\\s*True$'), [[['DEBUG'], ['True']]]);
    // without the end anchor, False may go on (Falsey): only verify is a whole word
    assert.deepEqual(requiredWords('^verify\\s*=\\s*False'), [[['verify']]]);
  });

  test('groups of literal alternatives give one clause, and multiply with the letters around them', () => {
    assert.deepEqual(requiredWords('\\.(readFile|readFileSync)\\('), [[['readFile', 'readFileSync']]]);
    assert.deepEqual(requiredWords('^read(File|Dir)$'), [[['readFile', 'readDir']]]);
    assert.deepEqual(requiredWords('^(File|IO)\\.read\\(|^ERB\\.new\\('), [
      [['File', 'IO'], ['read']],
      [['ERB'], ['new']],
    ]);
  });

  test('claims nothing it cannot be sure of', () => {
    for (const regex of [
      'Hash\\(', // also matches createHash(
      '\\.readFile', // also matches .readFileSync
      '(?i)^secret$', // any case
      '^(?i:secret)$',
      '^secrets?$', // an optional letter
      '^(get|)$', // an empty alternative
      '(^|\\.)\\w*escape\\w*$', // word characters around it
      '^[a-z]+\\.get$|^x', // an alternative that asks for nothing
      '(?=secret)secret', // a look-around
      '^[!-~]secret$', // a range spanning letters
      'a{2}b',
    ]) {
      assert.equal(requiredWords(regex), undefined, regex);
    }
  });

  test('every word claimed for a rule regex is in each node text the regex matches in the rule fixtures', () => {
    registerLanguages();
    const ruleSet = loadRuleSet();
    let checked = 0;
    for (const rule of ruleSet.rules) {
      if (!['python', 'javascript'].includes(rule.language)) continue;
      const regexes = new Set<string>();
      JSON.stringify([rule.rule, rule.sinks, rule.sources, rule.sanitizers], (key, value) => (key === 'regex' && typeof value === 'string' && regexes.add(value), value));
      for (const regex of regexes) {
        const required = requiredWords(regex);
        if (!required) continue;
        for (const snippet of [...rule.tests.vulnerable, ...rule.tests.safe]) {
          for (const node of parse(rule.language as never, snippet).root().findAll({ rule: { regex } } as never)) {
            const words = new Set(node.text().match(/\w+/g));
            assert.ok(
              required.some((clauses) => clauses.every((alternatives) => alternatives.some((w) => words.has(w)))),
              `${rule.id}: ${regex} matched ${JSON.stringify(node.text())} without ${JSON.stringify(required)}`,
            );
            checked++;
          }
        }
      }
    }
    assert.ok(checked > 50, `only ${checked} matches checked`);
  });
});
