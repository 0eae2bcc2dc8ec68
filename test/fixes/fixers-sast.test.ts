// The SAST rule-fix fixer: a rule's `fix` applied to its match on the finding's line, metavariables
// filled in, and the checks that turn a fix away where it does not fit the match.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { parserFor } from '../../src/languages/index.ts';
import { BUILTIN_RULES_DIR, loadRuleSet, type RuleSet } from '../../src/scanning/sast/rule-set.ts';
import { analyzeSource } from '../../src/scanning/sast/sast-engine.ts';
import { fixerFor } from '../../src/fixing/fixers/index.ts';
import { createSastRuleFixer, sastRuleFixer } from '../../src/fixing/fixers/sast/sast-rule-fixer.ts';
import type { Fixer, FixerOutcome, FixFinding, FixWorkspace } from '../../src/fixing/types.ts';

const builtin = loadRuleSet();
const roots: string[] = [];
after(() => roots.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-fix-sast-'));
  roots.push(dir);
  return dir;
}

function workTree(files: Record<string, string>): FixWorkspace {
  const dir = tempDir();
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
  return { dir, signal: new AbortController().signal, step: async () => {} };
}

/** The finding the SAST engine reports for `ruleId` in the file, as it stores it. */
function findingFor(ruleSet: RuleSet, file: string, text: string, ruleId: string): FixFinding {
  const match = analyzeSource(ruleSet, parserFor(file)!, text).find((m) => m.rule.id === ruleId);
  assert.ok(match, `${ruleId} does not fire on ${file}`);
  return {
    id: `f-${ruleId}`,
    scanType: 'semgrep_scan',
    checkId: ruleId,
    severity: match.rule.severity,
    title: match.rule.message,
    message: match.rule.message,
    filePath: file,
    startLine: match.startLine,
    endLine: match.endLine,
    cwe: match.rule.cwe,
    metadata: { confidence: match.rule.confidence, mode: match.rule.mode, ...(match.rule.fix ? { fix: match.rule.fix } : {}) },
  };
}

async function run(fixer: Fixer, ruleSet: RuleSet, file: string, text: string, ruleId: string): Promise<{ outcome: FixerOutcome; after: string }> {
  const workspace = workTree({ [file]: text });
  const outcome = await fixer.apply(findingFor(ruleSet, file, text, ruleId), workspace);
  return { outcome, after: fs.readFileSync(path.join(workspace.dir, file), 'utf8') };
}

async function fixed(file: string, text: string, ruleId: string, expected: string, fixer = sastRuleFixer, ruleSet = builtin): Promise<FixerOutcome> {
  const { outcome, after } = await run(fixer, ruleSet, file, text, ruleId);
  assert.equal(after, expected);
  assert.deepEqual({ fixed: outcome.fixed, changedFiles: outcome.changedFiles }, { fixed: true, changedFiles: [file] }, outcome.note);
  return outcome;
}

async function refused(file: string, text: string, ruleId: string, fixer = sastRuleFixer, ruleSet = builtin): Promise<string> {
  const { outcome, after } = await run(fixer, ruleSet, file, text, ruleId);
  assert.equal(after, text);
  assert.deepEqual({ fixed: outcome.fixed, changedFiles: outcome.changedFiles }, { fixed: false, changedFiles: [] });
  return outcome.note;
}

describe('SAST rule fixes of the built-in rules', () => {
  test('Python: verify=False becomes verify=True', async () => {
    const outcome = await fixed(
      'client.py',
      'import requests\n\ndef fetch(url):\n    return requests.get(url, timeout=5, verify=False)\n',
      'python.requests.tls.verify-disabled',
      'import requests\n\ndef fetch(url):\n    return requests.get(url, timeout=5, verify=True)\n',
    );
    assert.equal(outcome.note, 'Applied the fix of python.requests.tls.verify-disabled (verify=True) at client.py:4');
  });

  test('JavaScript and TypeScript: the option keeps its own key and quoting, set to true', async () => {
    await fixed(
      'agent.js',
      'const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false });\n',
      'javascript.lang.tls.verification-disabled',
      'const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: true });\n',
    );
    await fixed("legacy.ts", "request.get({ url, 'strictSSL': 0 }, done);\n", 'javascript.lang.tls.verification-disabled', "request.get({ url, 'strictSSL': true }, done);\n");
  });

  test('a match the fix template does not bind is left alone', async () => {
    const note = await refused('boot.js', 'process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";\n', 'javascript.lang.tls.verification-disabled');
    assert.equal(note, 'The fix of javascript.lang.tls.verification-disabled uses $KEY, which the match at boot.js:1 does not bind, so it does not apply there');
  });

  test('Go: the composite literal is fixed; the assignment form, which the fix does not fit, is refused', async () => {
    await fixed(
      'client.go',
      'package c\n\nvar cfg = &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: true}\n',
      'go.crypto-tls.insecure-skip-verify',
      'package c\n\nvar cfg = &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: false}\n',
    );
    const note = await refused('tls.go', 'package c\n\nfunc cfg() *tls.Config {\n\tc := &tls.Config{}\n\tc.InsecureSkipVerify = true\n\treturn c\n}\n', 'go.crypto-tls.insecure-skip-verify');
    assert.equal(note, 'The fix of go.crypto-tls.insecure-skip-verify does not fit the match at tls.go:5: the replacement does not read as the same kind of node (assignment_statement) there');
  });

  test('a rule without a fix (nor a codemod): not handled, and applying it says so', async () => {
    const text = '@csrf_exempt\ndef transfer(request):\n    pass\n';
    const finding = findingFor(builtin, 'h.py', text, 'python.django.csrf.exempt');
    assert.equal(sastRuleFixer.handles(finding), false);
    assert.equal(fixerFor(finding), undefined);
    const outcome = await sastRuleFixer.apply(finding, workTree({ 'h.py': text }));
    assert.deepEqual(outcome, { fixed: false, changedFiles: [], note: 'There is no deterministic fix for python.django.csrf.exempt' });
  });

  test('fixerFor picks this fixer for a finding whose rule has a fix', () => {
    const finding = findingFor(builtin, 'c.py', 'requests.get(u, verify=False)\n', 'python.requests.tls.verify-disabled');
    assert.equal(fixerFor(finding)?.name, 'sast-rule-fix');
    // Recorded before the rule had a fix: the current rule set decides.
    assert.equal(fixerFor({ ...finding, metadata: { confidence: 'high', mode: 'pattern' } })?.name, 'sast-rule-fix');
  });

  test('a match that moved a couple of lines (an earlier fix added an import) is still found', async () => {
    const text = 'requests.get(u, verify=False)\n';
    const finding = findingFor(builtin, 'c.py', text, 'python.requests.tls.verify-disabled');
    const workspace = workTree({ 'c.py': `import os\n\n${text}` });
    assert.equal((await sastRuleFixer.apply(finding, workspace)).fixed, true);
    assert.equal(fs.readFileSync(path.join(workspace.dir, 'c.py'), 'utf8'), 'import os\n\nrequests.get(u, verify=True)\n');
  });

  test('every built-in fix leaves its vulnerable snippets parsing and no longer reported', async () => {
    const withFix = builtin.rules.filter((r) => r.fix);
    assert.ok(withFix.length >= 3);
    for (const rule of withFix) {
      const extension = { python: 'py', javascript: 'js' }[rule.language as string] ?? rule.language;
      let fixedSnippets = 0;
      for (const snippet of rule.tests.vulnerable) {
        const file = `snippet.${extension}`;
        const { outcome, after } = await run(sastRuleFixer, builtin, file, snippet, rule.id);
        if (!outcome.fixed) continue; // a shape the fix does not cover: the guards said why
        fixedSnippets++;
        assert.equal(analyzeSource(builtin, parserFor(file)!, after).filter((m) => m.rule.id === rule.id).length, 0, `${rule.id}:\n${after}`);
      }
      assert.ok(fixedSnippets > 0, `${rule.id}: its fix applies to none of its vulnerable snippets`);
    }
  });
});

describe('SAST rule fixes: templates and guards', () => {
  const rulesDir = tempDir();
  fs.mkdirSync(path.join(rulesDir, 'python'));
  fs.writeFileSync(
    path.join(rulesDir, 'python', 'house.yml'),
    `language: python
rules:
  - id: python.house.shell-true
    message: Run commands without a shell.
    severity: high
    cwe: ["CWE-78: OS Command Injection"]
    owasp: ["A03:2021 - Injection"]
    fix: subprocess.run($$$ARGS, shell=False)
    rule: { pattern: "subprocess.run($$$ARGS, shell=True)" }
    tests:
      vulnerable: ["subprocess.run(cmd, check=True, shell=True)"]
      safe: ["subprocess.run(cmd)"]
  - id: python.house.unsafe-yaml
    mode: taint
    message: Untrusted YAML is loaded with the full loader.
    severity: high
    cwe: ["CWE-502: Deserialization of Untrusted Data"]
    owasp: ["A08:2021 - Software and Data Integrity Failures"]
    fix: yaml.safe_load($D)
    sinks:
      - { pattern: "yaml.load($D)", focus: D }
    tests:
      vulnerable:
        - |
          @app.route("/import", methods=["POST"])
          def upload():
              return yaml.load(request.data)
      safe:
        - |
          def load_config():
              return yaml.load(open("config.yml"))
  - id: python.house.noop-fix
    message: A fix that changes nothing.
    severity: low
    cwe: ["CWE-20: Improper Input Validation"]
    owasp: ["A03:2021 - Injection"]
    fix: eval($X)
    rule: { pattern: "eval($X)" }
    tests:
      vulnerable: ["eval(x)"]
      safe: ["print(x)"]
  - id: python.house.broken-fix
    message: A fix that does not parse.
    severity: low
    cwe: ["CWE-20: Improper Input Validation"]
    owasp: ["A03:2021 - Injection"]
    fix: "pickle.loads($X"
    rule: { pattern: "pickle.loads($X)" }
    tests:
      vulnerable: ["pickle.loads(x)"]
      safe: ["json.loads(x)"]
`,
  );
  const houseRules = loadRuleSet([BUILTIN_RULES_DIR, rulesDir]);
  const houseFixer = createSastRuleFixer(() => houseRules);

  test('$$$ARGS carries the captured arguments with their separators', async () => {
    await fixed(
      'run.py',
      'import subprocess\nsubprocess.run(["ls", "-l"],  check=True, shell=True)\n',
      'python.house.shell-true',
      'import subprocess\nsubprocess.run(["ls", "-l"],  check=True, shell=False)\n',
      houseFixer,
      houseRules,
    );
  });

  test('a taint rule is fixed at the sink the engine reports, through the sink pattern\'s metavariables', async () => {
    await fixed(
      'api.py',
      '@app.route("/import", methods=["POST"])\ndef upload():\n    config = yaml.load(open("defaults.yml"))\n    return yaml.load(request.data)\n',
      'python.house.unsafe-yaml',
      '@app.route("/import", methods=["POST"])\ndef upload():\n    config = yaml.load(open("defaults.yml"))\n    return yaml.safe_load(request.data)\n',
      houseFixer,
      houseRules,
    );
  });

  test('a fix after which the rule still fires, or that does not parse, is refused', async () => {
    assert.equal(
      await refused('a.py', 'result = eval(expr)\n', 'python.house.noop-fix', houseFixer, houseRules),
      'The fix of python.house.noop-fix does not fit the match at a.py:1: the rule would still fire there',
    );
    assert.equal(
      await refused('b.py', 'obj = pickle.loads(blob)\n', 'python.house.broken-fix', houseFixer, houseRules),
      'The fix of python.house.broken-fix does not fit the match at b.py:1: the result would not parse',
    );
  });
});
