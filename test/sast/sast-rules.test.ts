import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LANGUAGES, languageOf, parserFor, RULE_LANGUAGES, ruleLanguageOf, taintSyntaxOf, type ParserName, type RuleLanguage } from '../../src/languages/index.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILTIN_RULES_DIR, loadRuleSet } from '../../src/scanning/sast/rule-set.ts';
import { analyzeSource, SastEngine } from '../../src/scanning/sast/sast-engine.ts';
import { fixerFor } from '../../src/fixing/fixers/index.ts';
import type { FixFinding } from '../../src/fixing/types.ts';
import { verifyFix } from '../../src/fixing/verify.ts';

// Every rule carries its own vulnerable and safe snippets: a vulnerable one must raise that rule, a safe
// one must not.

const ruleSet = loadRuleSet();

/** The parsers each rule's snippets run under: every parser of its language (JavaScript rules: not TSX). */
const PARSERS = Object.fromEntries(
  LANGUAGES.map((language) => [language.id, (Object.keys(language.parsers) as ParserName[]).filter((parser) => parser !== 'tsx')]),
) as Record<RuleLanguage, ParserName[]>;

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
  const HOUSE_RULE = [
    'language: python',
    'rules:',
    '  - id: python.house.no-print',
    '    message: Use the logger instead of print.',
    '    severity: low',
    '    cwe: ["CWE-532: Insertion of Sensitive Information into Log File"]',
    '    owasp: ["A09:2021 - Security Logging and Monitoring Failures"]',
    '    fix: log.info($$$ARGS)',
    '    rule: { pattern: "print($$$ARGS)" }',
    '    tests:',
    '      vulnerable:',
    '        - |',
    '          print(user.password)',
    '      safe:',
    '        - |',
    '          log.info("ok")',
  ].join('\n');

  function houseFolder(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-rules-'));
    fs.mkdirSync(path.join(dir, 'python'));
    fs.writeFileSync(path.join(dir, 'python', 'house.yml'), HOUSE_RULE);
    return dir;
  }

  test('a folder named in the settings adds its rules to the built-in ones', () => {
    const dir = houseFolder();
    try {
      const combined = loadRuleSet([dir]);
      assert.equal(combined.rules.length, ruleSet.rules.length + 1);
      const hits = analyzeSource(combined, 'python', 'print(user.password)\n').map((m) => m.rule.id);
      assert.ok(hits.includes('python.house.no-print'));
      assert.equal(loadRuleSet([BUILTIN_RULES_DIR, dir]), combined, 'the built-in folder is always there, once');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a rule file that is not valid YAML stops the load with its name and the parser\'s reason', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-rules-'));
    try {
      fs.writeFileSync(path.join(dir, 'broken.yml'), 'language: python\nrules:\n  - id: x\n    pattern: [unclosed\n');
      assert.throws(() => loadRuleSet([dir]), /broken\.yml: not valid YAML: /);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the engine, the fixers and verification all use the configured folders, read once', async () => {
    const dir = houseFolder();
    const previous = process.env.BULWARK_SAST_RULES_DIRS;
    process.env.BULWARK_SAST_RULES_DIRS = dir;
    try {
      const configured = loadRuleSet();
      assert.ok(configured.rules.some((r) => r.id === 'python.house.no-print'));
      assert.equal(loadRuleSet([dir]), configured, 'one load per list of folders');
      assert.equal(new SastEngine().rules(), configured);

      const finding: FixFinding = {
        id: 'f1',
        scanType: 'semgrep_scan',
        checkId: 'python.house.no-print',
        severity: 'low',
        title: null,
        message: 'Use the logger instead of print.',
        filePath: 'app.py',
        startLine: 1,
        endLine: 1,
        cwe: ['CWE-532'],
        metadata: {},
      };
      assert.equal(fixerFor(finding)?.name, 'sast-rule-fix');

      const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-tree-'));
      try {
        fs.writeFileSync(path.join(tree, 'app.py'), 'print(user.password)\n');
        const result = await verifyFix(tree, [finding], ['app.py'], new Map([['app.py', 'print(user.password)\n']]));
        assert.deepEqual(result.stillDetected, ['f1'], 'the house rule still fires on the unchanged file');
      } finally {
        fs.rmSync(tree, { recursive: true, force: true });
      }
    } finally {
      if (previous === undefined) delete process.env.BULWARK_SAST_RULES_DIRS;
      else process.env.BULWARK_SAST_RULES_DIRS = previous;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the language registry', () => {
  test('every rule folder is a registered language; taint rules and profiles only where the grammar describes taint', () => {
    assert.deepEqual(fs.readdirSync(BUILTIN_RULES_DIR).sort(), [...RULE_LANGUAGES].sort());
    for (const rule of ruleSet.rules.filter((r) => r.mode === 'taint')) assert.ok(taintSyntaxOf(rule.language), `${rule.id}: no taint syntax`);
    for (const language of Object.keys(ruleSet.profiles)) assert.ok(taintSyntaxOf(language as RuleLanguage), language);
  });

  test('files reach their parser by extension, and each parser its language', () => {
    const cases: [string, ParserName | undefined, RuleLanguage | undefined][] = [
      ['app/main.py', 'python', 'python'],
      ['web/App.tsx', 'tsx', 'javascript'],
      ['lib/util.mjs', 'javascript', 'javascript'],
      ['src/index.ts', 'typescript', 'javascript'],
      ['types/index.d.ts', undefined, undefined],
      ['Main.java', 'java', 'java'],
      ['cmd/main.go', 'go', 'go'],
      ['index.php', 'php', 'php'],
      ['app.rb', 'ruby', 'ruby'],
      ['templates/page.jinja2', 'template', 'template'],
      ['README.md', undefined, undefined],
    ];
    for (const [file, parser, language] of cases) {
      assert.equal(parserFor(file), parser, file);
      if (parser) assert.equal(ruleLanguageOf(parser), language, file);
    }
    for (const language of LANGUAGES) {
      for (const parser of Object.keys(language.parsers) as ParserName[]) assert.equal(languageOf(parser), language);
    }
  });
});

describe('inline allow comments', () => {
  test('a hard-coded credential marked as a known test value on its line is not reported; other rules on the line still are', () => {
    const source =
      'SETTINGS = {\n    "SECRET_KEY": "test_key",  # pragma: allowlist secret\n    "PASSWORD": "k3y-n0t-m4rked",\n}\n' +
      'API_KEY = "a9f3e1b7c2d4"  # gitleaks:allow\nh = hashlib.md5(data)  # bulwark:allow\n';
    const found = analyzeSource(ruleSet, 'python', source).map((m) => `${m.rule.id}:${m.startLine}`);
    assert.ok(found.includes('python.lang.secrets.hardcoded-secret-key:3'), found.join(', '));
    assert.ok(!found.some((f) => /hardcoded-secret-key:(2|5)$/.test(f)), found.join(', '));
    assert.ok(found.includes('python.lang.crypto.weak-hash:6'), 'the comment silences credential rules only');
  });
});

describe('what the engine reads', () => {
  test('a minified script is skipped with a note; the same code written by hand is analyzed', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-minified-'));
    try {
      const handler = 'app.get("/go", (req, res) => { res.redirect(req.query.next); });';
      const filler = Array.from({ length: 40 }, (_, i) => `var a${i}=function(b,c){return b+c*${i}};`).join('');
      fs.mkdirSync(path.join(dir, 'static'));
      fs.writeFileSync(path.join(dir, 'static', 'bundle.js'), `${filler}${handler}${filler}\n${filler}\n`);
      fs.writeFileSync(path.join(dir, 'app.js'), `${handler.replace('{ res', '{\n  res').replace('; }', ';\n}')}\n`);
      const notes: string[] = [];
      const findings = await new SastEngine({ pool: null }).scan({ dir, fingerprintKey: Buffer.alloc(32, 1), onNote: (note) => notes.push(note) });
      assert.deepEqual(findings.map((f) => `${f.filePath}:${f.checkId}`), ['app.js:javascript.lang.open-redirect.redirect']);
      assert.ok(notes.some((n) => /^skipped static\/bundle\.js: with lines of \d+ characters on average it looks minified/.test(n)), notes.join('\n'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a rule part that one dialect cannot parse (JSX in plain TypeScript) leaves every other rule working on that dialect', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-dialect-'));
    try {
      const code = [
        'const q = new URLSearchParams(location.search).get("q");',
        'document.getElementById("results").innerHTML = "Results for " + q;',
        'app.get("/go", (req, res) => {',
        '  res.redirect(req.query.next);',
        '});',
        '',
      ].join('\n');
      fs.writeFileSync(path.join(dir, 'first.ts'), code);
      fs.writeFileSync(path.join(dir, 'second.ts'), code);
      fs.writeFileSync(path.join(dir, 'view.tsx'), 'export const View = ({ html }) => <div dangerouslySetInnerHTML={{ __html: location.hash }} />;\n');
      for (let round = 0; round < 2; round++) {
        // The DOM sink rule is off by default; turned on, it is the rule whose JSX part plain TypeScript cannot parse.
        const findings = await new SastEngine({ pool: null, enabledRules: ['javascript.browser.xss.dom-html-sink'] }).scan({ dir, fingerprintKey: Buffer.alloc(32, 1) });
        assert.deepEqual(
          findings.map((f) => `${f.filePath}:${f.startLine}:${f.checkId}`),
          [
            'first.ts:2:javascript.browser.xss.dom-html-sink',
            'first.ts:4:javascript.lang.open-redirect.redirect',
            'second.ts:2:javascript.browser.xss.dom-html-sink',
            'second.ts:4:javascript.lang.open-redirect.redirect',
            'view.tsx:1:javascript.browser.xss.dom-html-sink',
          ],
          `round ${round}`,
        );
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
