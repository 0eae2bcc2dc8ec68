import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from '@ast-grep/napi';
import { complementOf } from '../../src/scanning/sast/analyze.ts';
import { CombinedMatcher, withoutFileConditions } from '../../src/scanning/sast/combined-matcher.ts';
import { registerLanguages } from '../../src/languages/index.ts';

// Rules are matched in a cheaper form than they are written, and must match exactly what they say:
// - a rule sanitizer that names what it is not ("every call but str(), .get(), …") is found as the calls it
//   excepts, the other calls of the file taken as matched (complementOf);
// - a part that asks something of the whole file (inside the program, whose text matches a regex) is asked
//   once per file rather than for every node the rest of the rule matches (withoutFileConditions).

const PY = `
name = str(request.form["name"])
role = request.form.get("role")
user = User.find(request.form["id"])
size = int(request.form["size"])
`;

const calls = (rule: object): string[] => {
  registerLanguages();
  return parse('python' as never, PY)
    .root()
    .findAll({ rule } as never)
    .map((node) => node.text());
};

describe('complementOf', () => {
  const sanitizer = { kind: 'call', not: { has: { field: 'function', regex: '^(str)$|\\.(get)$' } } };

  test('splits { kind, not } into the kind and the nodes of that kind the rule does not match', () => {
    const complement = complementOf(sanitizer);
    assert.ok(complement);
    assert.equal(complement.kind, 'call');
    const all = calls({ kind: 'call' });
    const excepted = calls(complement.except);
    assert.deepEqual(excepted, ['str(request.form["name"])', 'request.form.get("role")']);
    // what the rule matches is every call of the kind but the excepted ones
    assert.deepEqual(
      all.filter((text) => !excepted.includes(text)),
      calls(sanitizer),
    );
  });

  test('leaves every other shape to be matched as it is', () => {
    assert.equal(complementOf({ pattern: 'escape($$$)' }), undefined);
    assert.equal(complementOf({ kind: 'call', has: { field: 'function', regex: 'escape' } }), undefined);
    assert.equal(complementOf({ kind: 'call', not: { regex: 'x' }, inside: { kind: 'module' } }), undefined);
    assert.equal(complementOf({ not: { regex: 'x' } }), undefined);
  });
});

describe('withoutFileConditions', () => {
  const condition = { kind: 'program', regex: '\\blocation\\.(hash|search)', stopBy: 'end' };

  test('takes a file condition out of the rule, at its top or in its top `all`', () => {
    assert.deepEqual(withoutFileConditions({ pattern: '$E.innerHTML = $X', inside: condition }), {
      rule: { pattern: '$E.innerHTML = $X' },
      conditions: [{ kind: 'program', regex: condition.regex }],
    });
    assert.deepEqual(withoutFileConditions({ pattern: '$C.$M($Q)', all: [{ has: { field: 'function', regex: 'find' } }, { inside: condition }] }), {
      rule: { pattern: '$C.$M($Q)', all: [{ has: { field: 'function', regex: 'find' } }] },
      conditions: [{ kind: 'program', regex: condition.regex }],
    });
  });

  test('leaves a rule whole when the part is about something else than the file', () => {
    const inFunction = { pattern: 'f($X)', inside: { kind: 'function_declaration', regex: 'x', stopBy: 'end' } };
    const nearOnly = { pattern: 'f($X)', inside: { kind: 'program', regex: 'x' } };
    const more = { pattern: 'f($X)', inside: { ...condition, has: { kind: 'identifier' } } };
    const only = { inside: condition };
    for (const rule of [inFunction, nearOnly, more, only]) assert.deepEqual(withoutFileConditions(rule), { rule, conditions: [] });
  });

  test('the matcher finds what the written rule finds, file by file', () => {
    registerLanguages();
    const rule = { pattern: '$E.innerHTML = $X', inside: condition };
    const matcher = new CombinedMatcher([{ rule }, { rule: { pattern: 'render($X)' } }]);
    const cases = [
      { source: 'const q = location.hash;\nel.innerHTML = q;\nrender(q);', sinks: ['el.innerHTML = q'] },
      { source: 'el.innerHTML = "<b>hi</b>";\nrender(q);', sinks: [] },
    ];
    for (const { source, sinks } of cases) {
      const root = parse('javascript' as never, source).root();
      const found = matcher.matchAll(root, source, 'javascript');
      assert.deepEqual(root.findAll({ rule } as never).map((node) => node.text()), sinks);
      assert.deepEqual(found[0].map((f) => f.node.text()), sinks);
      assert.deepEqual(found[1].map((f) => f.node.text()), ['render(q)']);
    }
  });
});
