// SAST findings of hard-coded credentials go to the secrets fixer's machinery: the literal the rule
// reports is read from the environment under a name of its own, a missing or empty variable stops the code
// with a message naming it (at import for module-level code), a .env.example line is added, and the notes
// say what the app now needs, to set the variable and to rotate the value.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { loadRuleSet } from '../../src/scanning/sast/rule-set.ts';
import { analyzeSource } from '../../src/scanning/sast/sast-engine.ts';
import { fixerFor } from '../../src/fixing/fixers/index.ts';
import { parseCode, syntaxErrors, codeParserFor } from '../../src/fixing/fixers/shared/syntax.ts';
import type { FixerOutcome, FixFinding } from '../../src/fixing/types.ts';
import { parserFor } from '../../src/languages/index.ts';
import { read, workTree } from '../support/fix-workspace.ts';

const rules = loadRuleSet();
const PYTHON_RULE = 'python.lang.secrets.hardcoded-secret-key';
const JS_RULE = 'javascript.lang.secrets.hardcoded-secret';
const MISSING = (name: string) => `Set the environment variable ${name}: the app reads this credential from it`;
const pyCheck = (target: string, name: string, indent = '') => `${indent}if not ${target}:\n${indent}    raise RuntimeError("${MISSING(name)}")\n`;
const pyRead = (identifier: string, name: string, indent = '') => `${indent}${identifier} = os.environ.get("${name}")\n${pyCheck(identifier, name, indent)}`;
const jsCheck = (target: string, name: string) => `if (!${target}) throw new Error("${MISSING(name)}");\n`;

/** The rule's findings in the file, as a scan records them. */
function findingsOf(file: string, text: string, ruleId: string): FixFinding[] {
  const matches = analyzeSource(rules, parserFor(file)!, text).filter((m) => m.rule.id === ruleId);
  assert.ok(matches.length, `${ruleId} does not fire on the snippet`);
  return matches.map((m, i) => ({
    id: `f${i}`, scanType: 'semgrep_scan', checkId: ruleId, severity: m.rule.severity, title: null, message: m.rule.message,
    filePath: file, startLine: m.startLine, endLine: m.endLine, cwe: m.rule.cwe, metadata: {},
  }));
}

/** Fixes every finding of the rule in the file, one fix each, in order. */
async function fixAll(file: string, text: string, ruleId: string, extra: Record<string, string> = {}) {
  const workspace = workTree({ ...extra, [file]: text });
  const outcomes: FixerOutcome[] = [];
  for (const finding of findingsOf(file, text, ruleId)) {
    const fixer = fixerFor(finding);
    assert.equal(fixer?.name, 'sast-credentials');
    outcomes.push(await fixer!.apply(finding, workspace));
  }
  const result = read(workspace, file);
  assert.ok(!outcomes.some((o) => /hunter22|swordfish9|super-secret-key-123|s3cr3t-k3y-2024/.test(o.note)), 'a note never shows the value');
  return { workspace, outcomes, after: result };
}

function assertClean(file: string, text: string, ruleId: string) {
  const parser = codeParserFor(file)!;
  assert.equal(syntaxErrors(parseCode(parser, text)).count, 0, 'the fixed file parses');
  assert.ok(!analyzeSource(rules, parser, text).some((m) => m.rule.id === ruleId), `${ruleId} no longer fires`);
}

function runPython(dir: string, code: string, env: Record<string, string> = {}): { status: number | null; output: string } {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/PASSWORD|TOKEN|SECRET|_KEY$/.test(k)));
  const run = spawnSync('python3', ['-c', code], { cwd: dir, env: { ...clean, ...env }, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('SAST hard-coded credentials: moved to the environment by the secrets fixer', () => {
  test('a Flask secret key at module level stops the app at start when its variable is missing; notes say so, to set it and to rotate it (run by python3)', async () => {
    const text = 'from flask import Flask\n\napp = Flask(__name__)\napp.config["SECRET_KEY"] = "super-secret-key-123"\n';
    const { workspace, outcomes, after } = await fixAll('app.py', text, PYTHON_RULE);
    assert.equal(outcomes[0].fixed, true, outcomes[0].note);
    assert.equal(after, `import os\nfrom flask import Flask\n\napp = Flask(__name__)\napp.config["SECRET_KEY"] = os.environ.get("SECRET_KEY")\n${pyCheck('app.config["SECRET_KEY"]', 'SECRET_KEY')}`);
    assertClean('app.py', after, PYTHON_RULE);
    assert.deepEqual(outcomes[0].changedFiles, ['app.py', '.env.example']);
    assert.equal(read(workspace, '.env.example'), 'SECRET_KEY=\n');
    assert.deepEqual(outcomes[0].userNotes, [
      'The app now needs the environment variable SECRET_KEY: app.py now stops when it loads, with an error naming SECRET_KEY, if the variable is unset or empty. ' +
        'Set it wherever app.py runs (listed without a value in .env.example)',
      'Rotate the hard-coded credential that was committed in app.py: it stays readable in the git history',
    ]);
  });

  test('a default password of a function is read when the function runs without it, so the module still imports; the same short word elsewhere is left alone (run by python3)', async () => {
    const text =
      "def add_admin(password='admin'):\n    '''Create an admin user'''\n    print('Adding new admin user')\n" +
      "    return {'username': 'admin', 'password': password}\n";
    const { workspace, outcomes, after } = await fixAll('manage.py', text, PYTHON_RULE);
    assert.equal(outcomes[0].fixed, true, outcomes[0].note);
    assert.equal(
      after,
      "import os\n\ndef add_admin(password=None):\n    '''Create an admin user'''\n    if password is None:\n        password = os.environ.get(\"PASSWORD\")\n" +
        `${pyCheck('password', 'PASSWORD', '        ')}    print('Adding new admin user')\n    return {'username': 'admin', 'password': password}\n`,
    );
    assertClean('manage.py', after, PYTHON_RULE);
    assert.match(outcomes[0].userNotes![0], /^The app now needs the environment variable PASSWORD: add_admin\(\) in manage\.py now raises an error naming PASSWORD when it runs/);
    const imported = runPython(workspace.dir, 'import manage; print(manage.add_admin("x")["username"])');
    assert.equal(imported.status, 0, imported.output);
    assert.equal(imported.output.trim(), 'Adding new admin user\nadmin');
    const missing = runPython(workspace.dir, 'import manage; manage.add_admin()');
    assert.match(missing.output, /RuntimeError: Set the environment variable PASSWORD/);
    const set = runPython(workspace.dir, 'import manage; print(manage.add_admin()["password"])', { PASSWORD: 'from-env' });
    assert.equal(set.output.trim(), 'Adding new admin user\nfrom-env');
  });

  test('two passwords in one file get two names, told apart by the user beside them; a function fails naming its variable (run by python3)', async () => {
    const text =
      'def alice(db):\n    return db.connect(user="alice", password="hunter22")\n\n\n' +
      'def bob(db):\n    return db.connect(user="bob", password="swordfish9")\n';
    const { workspace, outcomes, after } = await fixAll('db.py', text, PYTHON_RULE);
    assert.deepEqual(outcomes.map((o) => o.fixed), [true, true], outcomes.map((o) => o.note).join('\n'));
    assert.equal(
      after,
      `import os\n\ndef alice(db):\n${pyRead('alice_password', 'ALICE_PASSWORD', '    ')}    return db.connect(user="alice", password=alice_password)\n\n\n` +
        `def bob(db):\n${pyRead('bob_password', 'BOB_PASSWORD', '    ')}    return db.connect(user="bob", password=bob_password)\n`,
    );
    assertClean('db.py', after, PYTHON_RULE);
    assert.equal(read(workspace, '.env.example'), 'ALICE_PASSWORD=\nBOB_PASSWORD=\n');
    const db = 'class Db:\n    def connect(self, **kw): return kw["password"]\n';
    const unset = runPython(workspace.dir, `import db\n${db}db.alice(Db())`);
    assert.notEqual(unset.status, 0);
    assert.match(unset.output, /RuntimeError: Set the environment variable ALICE_PASSWORD/);
    const empty = runPython(workspace.dir, `import db\n${db}db.alice(Db())`, { ALICE_PASSWORD: '' });
    assert.match(empty.output, /RuntimeError: Set the environment variable ALICE_PASSWORD/, 'an empty password never becomes the expected one');
    const set = runPython(workspace.dir, `import db\n${db}print(db.bob(Db()))`, { BOB_PASSWORD: 'from-env' });
    assert.equal(set.output.trim(), 'from-env');
  });

  test('JavaScript: a constant becomes process.env, checked at start, and an environment fallback loses only its literal', async () => {
    const text = 'const JWT_SECRET = "s3cr3t-k3y-2024";\nconst sessionSecret = process.env.SESSION_SECRET || "dev-session-secret";\nmodule.exports = { JWT_SECRET, sessionSecret };\n';
    const { outcomes, after } = await fixAll('server/config.js', text, JS_RULE);
    assert.deepEqual(outcomes.map((o) => o.fixed), [true, true], outcomes.map((o) => o.note).join('\n'));
    assert.equal(
      after,
      `const JWT_SECRET = process.env.JWT_SECRET;\n${jsCheck('JWT_SECRET', 'JWT_SECRET')}const sessionSecret = process.env.SESSION_SECRET;\n${jsCheck('sessionSecret', 'SESSION_SECRET')}module.exports = { JWT_SECRET, sessionSecret };\n`,
    );
    assertClean('server/config.js', after, JS_RULE);
  });

  test('refusals say why: a test fixture, and a key in a script served to browsers', async () => {
    const fixture = await fixAll('tests/test_login.py', 'def test_login(client):\n    client.post("/login", data={"password": "hunter22"})\n', PYTHON_RULE);
    assert.equal(fixture.outcomes[0].fixed, false);
    assert.match(fixture.outcomes[0].note, /test fixture, not a credential/);
    const browser = await fixAll('static/app.js', 'const apiKey = "k3y-Zq8mVt2pLw9x";\ndocument.title = apiKey;\n', JS_RULE);
    assert.equal(browser.outcomes[0].fixed, false);
    assert.match(browser.outcomes[0].note, /served to browsers.*server endpoint/);
    assert.equal(browser.after, 'const apiKey = "k3y-Zq8mVt2pLw9x";\ndocument.title = apiKey;\n');
  });

  test('rules of other categories are not routed to the secrets fixer', () => {
    const [finding] = findingsOf('q.py', 'def q(cur, name):\n    cur.execute("SELECT * FROM t WHERE n = \'" + name + "\'")\n', 'python.lang.sqli.string-built-query');
    assert.notEqual(fixerFor(finding)?.name, 'sast-credentials');
  });
});
