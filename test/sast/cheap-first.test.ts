import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from '@ast-grep/napi';
import { cheapFirst, withoutMetavariables } from '../../src/scanning/sast/cheap-first.ts';
import { registerLanguages } from '../../src/languages/index.ts';
import { loadRuleSet, type AstRule } from '../../src/scanning/sast/rule-set.ts';

// cheapFirst() reorders a rule's parts so a look at the node's own children or parent comes before a walk of
// the whole file, and must leave what the rule matches, and what it captures, as they were.

const JS = `
const q = new URLSearchParams(location.search).get("q");
const a = { __html: q };
const b = { dangerouslySetInnerHTML: { __html: q } };
const c = { title: q, body: "<b>" + q + "</b>" };
function runQuery(sql) { return db.query(sql); }
runQuery("SELECT " + q);
executeSql("SELECT " + q, []);
run(q);
`;

/** Each match as its text and the text each named metavariable captured. */
function matches(rule: AstRule, source = JS, vars: string[] = [], language = 'javascript'): string[] {
  return parse(language as never, source)
    .root()
    .findAll({ rule } as never)
    .map((node) => [node.text(), ...vars.map((v) => `${v}=${node.getMatch(v)?.text() ?? ''}`)].join(' | '));
}

describe('cheapFirst', () => {
  test('moves a nearby has before a not and an inside that walk the file', () => {
    const rule = {
      kind: 'pair',
      has: { field: 'key', regex: '^__html$' },
      not: { inside: { regex: '^dangerouslySetInnerHTML\\s*:', stopBy: 'end' } },
      inside: { kind: 'program', regex: 'location\\.search', stopBy: 'end' },
    };
    const reordered = cheapFirst(rule);
    assert.deepEqual(reordered, {
      all: [{ kind: 'pair' }, { has: { field: 'key', regex: '^__html$' } }, { not: rule.not, inside: rule.inside }],
    });
    assert.deepEqual(matches(reordered), matches(rule));
    assert.deepEqual(matches(rule), ['__html: q']);
  });

  test('keeps the captures of a pattern whose has and not name no metavariable', () => {
    const rule = {
      pattern: '$F($Q, $$$)',
      has: { field: 'function', regex: '(?i:(execute|exec|run)_?(sql|query))$' },
      not: { inside: { stopBy: 'end', kind: 'program', has: { stopBy: 'end', kind: 'function_declaration', has: { field: 'name', regex: '^runQuery$' } } } },
    };
    const reordered = cheapFirst(rule);
    assert.ok('all' in reordered);
    // a file that defines runQuery itself has none of its calls reported, wherever the not stands
    const withoutHelper = JS.replace(/^function runQuery.*$/m, '');
    for (const source of [JS, withoutHelper]) assert.deepEqual(matches(reordered, source, ['F', 'Q']), matches(rule, source, ['F', 'Q']));
    assert.deepEqual(matches(rule, JS, ['F', 'Q']), []);
    assert.deepEqual(matches(rule, withoutHelper, ['F', 'Q']), ['executeSql("SELECT " + q, []) | F=executeSql | Q="SELECT " + q']);
  });

  test("puts the parts of an all that walk far after the others, unless they bind or read a metavariable", () => {
    const far = { not: { has: { kind: 'string', regex: '^"<', stopBy: 'end' } } };
    const rule = { all: [far, { kind: 'pair' }, { has: { field: 'key', regex: '^__html$' } }] };
    assert.deepEqual(cheapFirst(rule), { all: [{ kind: 'pair' }, { has: { field: 'key', regex: '^__html$' } }, far] });
    assert.deepEqual(matches(cheapFirst(rule)), matches(rule));
    assert.deepEqual(matches(rule), ['__html: q', '__html: q']);
    const binding = { all: [{ has: { pattern: '$K', stopBy: 'end' } }, { kind: 'pair' }] };
    assert.deepEqual(cheapFirst(binding), binding);
  });

  test('leaves a part that binds or reads a metavariable where ast-grep puts it', () => {
    const rule = { pattern: '$F($Q)', has: { field: 'arguments', pattern: '($Q)' }, not: { pattern: 'run($$$)' } };
    assert.deepEqual(cheapFirst(rule), rule);
    assert.equal(withoutMetavariables({ has: { pattern: 'foo($X)' } }), false);
    assert.equal(withoutMetavariables({ has: { matches: 'util' } }), false);
    assert.equal(withoutMetavariables({ has: { pattern: '$.ajax($$$)', regex: 'x$' } }), true);
  });

  test('leaves a rule whose nearby parts come first already', () => {
    const rule = { pattern: 'eval($X)', has: { field: 'arguments', kind: 'arguments' } };
    assert.deepEqual(cheapFirst(rule), rule);
  });

  test('every built-in rule matches the same nodes reordered, in its own tests', () => {
    registerLanguages();
    const ruleSet = loadRuleSet();
    let compared = 0;
    for (const rule of ruleSet.rules.filter((r) => r.language === 'javascript' || r.language === 'python')) {
      const parts: AstRule[] = [...(rule.rule ? [rule.rule] : []), ...rule.sinks.map((s) => s.rule), ...rule.sources, ...rule.sanitizers];
      const sources = [...(rule.tests?.vulnerable ?? []), ...(rule.tests?.safe ?? [])];
      for (const part of parts) {
        const reordered = cheapFirst(part);
        if (JSON.stringify(reordered) === JSON.stringify(part)) continue;
        for (const source of sources) assert.deepEqual(matches(reordered, source, [], rule.language), matches(part, source, [], rule.language), `${rule.id}: ${JSON.stringify(part).slice(0, 120)}`);
        compared++;
      }
    }
    assert.ok(compared > 0);
  });
});
