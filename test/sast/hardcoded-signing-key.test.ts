import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fixerFor } from '../../src/fixing/fixers/index.ts';
import type { FixFinding } from '../../src/fixing/types.ts';
import type { RawFinding } from '../../src/scanning/engine.ts';
import { loadRuleSet } from '../../src/scanning/sast/rule-set.ts';
import { analyzeSource, SastEngine } from '../../src/scanning/sast/sast-engine.ts';
import { parserFor } from '../../src/languages/index.ts';
import { read, workTree } from '../support/fix-workspace.ts';

// A key written in the source that a library signs or encrypts with is reported once, at the literal, as
// CWE-321 (javascript.lang.crypto.hardcoded-signing-key), whatever its entropy; the credential check does
// not report the same line again, and the SAST credential fixer moves the literal to the environment.

const RULE = 'javascript.lang.crypto.hardcoded-signing-key';
const KEY = 'Zq8vN3xL0pR7tK2wY5mB9cH4';
const fingerprintKey = Buffer.alloc(32, 7);

const AUTH_JS = `const jwt = require('jsonwebtoken');
const SECRET_KEY = "secretkey";
const HMAC_KEY = "${KEY}";

function issue(user) {
  return jwt.sign({ sub: user.id }, SECRET_KEY, { expiresIn: '1h' });
}
function check(token) {
  return jwt.verify(token, SECRET_KEY);
}
const mac = (body) => require('crypto').createHmac('sha256', HMAC_KEY).update(body).digest('hex');
module.exports = { issue, check, mac };
`;

describe('hard-coded signing and encryption keys in JavaScript', () => {
  let root: string;
  let findings: RawFinding[];

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-signing-key-'));
    const files: Record<string, string> = {
      'src/auth.js': AUTH_JS,
      'src/env.js': `const jwt = require('jsonwebtoken');\nmodule.exports = (p) => jwt.sign(p, process.env.JWT_SECRET);\n`,
      'test/auth.test.js': `const jwt = require('jsonwebtoken');\nconst token = jwt.sign({ sub: 1 }, "test-secret");\n`,
    };
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    }
    findings = await new SastEngine({ pool: null }).scan({ dir: root, fingerprintKey });
  });

  after(() => fs.rmSync(root, { recursive: true, force: true }));

  test('each key is one CWE-321 finding at its literal, used by one call or several; the credential check leaves its line alone', () => {
    const onKeys = findings.filter((f) => f.checkId === RULE || f.checkId.endsWith('.hardcoded-credential'));
    assert.deepEqual(
      onKeys.map((f) => [f.filePath, f.startLine, f.checkId, f.cwe[0].split(':')[0]]),
      [['src/auth.js', 2, RULE, 'CWE-321'], ['src/auth.js', 3, RULE, 'CWE-321']],
    );
    assert.match(onKeys[0].message, /forge tokens/);
  });

  test('a key read from the environment, and a key in a test file, are not reported', () => {
    assert.deepEqual(findings.filter((f) => f.checkId === RULE && f.filePath !== 'src/auth.js'), []);
  });

  test('the SAST credential fixer moves the key to the environment, and the rule no longer fires', async () => {
    const rules = loadRuleSet();
    const parser = parserFor('src/auth.js')!;
    const workspace = workTree({ 'src/auth.js': AUTH_JS });
    for (const line of [2, 3]) {
      const finding: FixFinding = {
        id: `f${line}`, scanType: 'semgrep_scan', checkId: RULE, severity: 'high', title: null, message: '',
        filePath: 'src/auth.js', startLine: line, endLine: line, cwe: ['CWE-321'], metadata: {},
      };
      const fixer = fixerFor(finding);
      assert.equal(fixer?.name, 'sast-credentials');
      const outcome = await fixer!.apply(finding, workspace);
      assert.equal(outcome.fixed, true, outcome.note);
      assert.ok(!outcome.note.includes(KEY) && !outcome.note.includes('secretkey'), 'a note never shows the key');
    }
    const fixed = read(workspace, 'src/auth.js');
    assert.match(fixed, /^const SECRET_KEY = process\.env\.SECRET_KEY;$/m);
    assert.match(fixed, /^const HMAC_KEY = process\.env\.HMAC_KEY;$/m);
    assert.ok(!analyzeSource(rules, parser, fixed).some((m) => m.rule.id === RULE), `${RULE} still fires:\n${fixed}`);
  });
});
