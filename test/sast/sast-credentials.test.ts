import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fixerFor } from '../../src/fixing/fixers/index.ts';
import type { FixFinding } from '../../src/fixing/types.ts';
import type { RawFinding } from '../../src/scanning/engine.ts';
import { SastEngine } from '../../src/scanning/sast/sast-engine.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { positiveSample } from '../support/secret-samples.ts';
import { read, workTree } from '../support/fix-workspace.ts';

// semgrep_scan reports the hard-coded credentials the secrets detector finds in code, under
// `<language>.lang.secrets.hardcoded-credential`: once per credential, masked, CWE-321 for a signing or
// encryption key and CWE-798 otherwise; placeholders, environment lookups and test files stay silent.

const fingerprintKey = Buffer.alloc(32, 7);
const STRIPE = positiveSample(SECRET_RULES.find((r) => r.id === 'stripe-secret-key')!, 3);
const SIGNING = 'Zq8vN3xL0pR7tK2wY5mB9cH4';
const DB_PASSWORD = 'Tr4x9Lp2Wq7z';

const APP_PY = `import os
from flask import Flask

app = Flask(__name__)
app.config["SECRET_KEY"] = "super-secret-key-123"
stripe_client = StripeClient("${STRIPE}")
signing_key = os.environ.get("SIGNING_KEY", "${SIGNING}")
db = connect("postgres://app:${DB_PASSWORD}@db.internal/app")
`;

const PLACEHOLDERS_PY = `import os

SECRET_KEY = "changeme"
password = os.environ["DB_PASSWORD"]
token = "\${API_TOKEN}"
api_key = "xxxxxxxxxxxxxxxx"
response = {"status": "success", "Password": "Updated."}
seed = {"user": "admin", "password": "$2b$12$8Zo/1e8KM8QzqOKqbDlYlONBOzukWXrM.IiyzqHRYDXqwB3gzDsba"}
`;

const SERVER_JS = `const Stripe = require('stripe');
const stripe = Stripe('${STRIPE}');
module.exports = { stripe };
`;

describe('semgrep_scan reports credentials in code through the secrets detector', () => {
  let root: string;
  let findings: RawFinding[];

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-sast-credentials-'));
    const files: Record<string, string> = {
      'app.py': APP_PY,
      'settings_local.py': PLACEHOLDERS_PY,
      'tests/test_app.py': `STRIPE_KEY = "${STRIPE}"\n`,
      'server.js': SERVER_JS,
    };
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    }
    findings = await new SastEngine({ pool: null }).scan({ dir: root, fingerprintKey });
  });

  after(() => fs.rmSync(root, { recursive: true, force: true }));

  const credentials = (file: string) => findings.filter((f) => f.filePath === file && f.category === 'secrets');

  test('each credential is one finding, on its line, with the CWE of what it is', () => {
    const byLine = credentials('app.py').map((f) => [f.startLine, f.checkId, f.cwe[0].split(':')[0]]);
    assert.deepEqual(byLine, [
      // The SAST rule already reports this line: the detector's match of it is not a second finding.
      [5, 'python.lang.secrets.hardcoded-secret-key', 'CWE-798'],
      [6, 'python.lang.secrets.hardcoded-credential', 'CWE-798'],
      [7, 'python.lang.secrets.hardcoded-credential', 'CWE-321'],
      [8, 'python.lang.secrets.hardcoded-credential', 'CWE-798'],
    ]);
    assert.deepEqual(credentials('server.js').map((f) => [f.startLine, f.checkId]), [[2, 'javascript.lang.secrets.hardcoded-credential']]);
  });

  test('the value is masked wherever the finding shows it, and kept only as a keyed hash', () => {
    for (const finding of findings.filter((f) => f.checkId.endsWith('.hardcoded-credential'))) {
      const shown = JSON.stringify(finding);
      for (const secret of [STRIPE, SIGNING, DB_PASSWORD]) assert.ok(!shown.includes(secret), `${finding.filePath}:${finding.startLine} shows the secret`);
      assert.match(String(finding.metadata.masked_secret), /\*/);
      assert.match(String(finding.metadata.secret_hash), /^[0-9a-f]{64}$/);
      assert.ok(finding.snippet?.includes(String(finding.metadata.masked_secret)));
    }
  });

  test('placeholders, environment lookups, messages, password hashes and test files are not credentials', () => {
    assert.deepEqual(credentials('settings_local.py').filter((f) => f.checkId.endsWith('.hardcoded-credential')), []);
    assert.deepEqual(credentials('tests/test_app.py'), []);
  });

  test('a rescan that takes a file\u2019s results from the cache reports the same credentials, kept as places, not values', async () => {
    const cacheDir = path.join(root, '..', `${path.basename(root)}-cache`);
    try {
      const engine = new SastEngine({ pool: null, cacheDir });
      const first = await engine.scan({ dir: root, fingerprintKey });
      const second = await engine.scan({ dir: root, fingerprintKey });
      assert.deepEqual(second, first);
      assert.deepEqual(first.map((f) => f.fingerprint).sort(), findings.map((f) => f.fingerprint).sort());
      const kept = fs.readdirSync(cacheDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => fs.readFileSync(path.join(e.parentPath, e.name), 'utf8'));
      assert.ok(kept.some((entry) => entry.includes('"secrets.')), 'the credentials are kept with the rules\u2019 results');
      for (const secret of [STRIPE, SIGNING, DB_PASSWORD]) assert.ok(!kept.some((entry) => entry.includes(secret)), 'the cache never holds a credential');
    } finally {
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  test('a line only an off-by-default rule flags still gets its credential; turned on, the rule reports it instead', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-sast-credentials-off-'));
    try {
      fs.writeFileSync(path.join(dir, 'config.js'), `const apiKey = '${STRIPE}';\nmodule.exports = { apiKey };\n`);
      const byDefault = await new SastEngine({ pool: null }).scan({ dir, fingerprintKey });
      assert.deepEqual(byDefault.filter((f) => f.category === 'secrets').map((f) => [f.startLine, f.checkId]), [[1, 'javascript.lang.secrets.hardcoded-credential']]);
      const enabled = await new SastEngine({ pool: null, enabledRules: ['javascript.lang.secrets.hardcoded-secret'] }).scan({ dir, fingerprintKey });
      assert.deepEqual(enabled.filter((f) => f.category === 'secrets').map((f) => [f.startLine, f.checkId]), [[1, 'javascript.lang.secrets.hardcoded-secret']]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the secrets fixer moves such a credential out of the code', async () => {
    const raw = credentials('app.py').find((f) => f.startLine === 6)!;
    const finding: FixFinding = {
      id: 'f1', scanType: 'semgrep_scan', checkId: raw.checkId, severity: raw.severity, category: raw.category, title: raw.title, message: raw.message,
      filePath: raw.filePath, startLine: raw.startLine, endLine: raw.endLine, cwe: raw.cwe, metadata: raw.metadata,
    };
    const fixer = fixerFor(finding);
    assert.equal(fixer?.name, 'secrets');
    const workspace = workTree({ 'app.py': APP_PY });
    const outcome = await fixer!.apply(finding, workspace);
    assert.equal(outcome.fixed, true, outcome.note);
    const fixed = read(workspace, 'app.py');
    assert.ok(!fixed.includes(STRIPE));
    assert.ok(!fixed.includes(SIGNING), 'the file\u2019s other credential moves in the same change, so the fixes of one file are one change');
    assert.match(outcome.note, /The file's other committed credentials moved with it/);
  });
});
