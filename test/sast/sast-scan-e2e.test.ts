import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { scanRepository } from '../support/helpers.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';

const VULNERABLE_PY = `from flask import Flask, request
import os, sqlite3

app = Flask(__name__)
db = sqlite3.connect("app.db")


@app.route("/users")
def users():
    name = request.args.get("name", "")
    rows = db.execute("SELECT * FROM users WHERE name = '" + name + "'").fetchall()
    return {"rows": rows}


@app.route("/ping")
def ping():
    host = request.args.get("host")
    return os.popen("ping -c 1 " + host).read()
`;

const FIXED_PY = VULNERABLE_PY.replace(
  `rows = db.execute("SELECT * FROM users WHERE name = '" + name + "'").fetchall()`,
  `rows = db.execute("SELECT * FROM users WHERE name = ?", (name,)).fetchall()`,
);

const VULNERABLE_TS = `import express from 'express';
import { pool } from './db';

const app = express();

app.get('/orders', async (req, res) => {
  const customer = req.query.customer as string;
  const result = await pool.query(\`SELECT * FROM orders WHERE customer = '\${customer}'\`);
  res.json(result.rows);
});
`;

describe('semgrep_scan over HTTP on a real repository', () => {
  let h: Harness;
  let org: TestOrg;
  let repo: TestRepo;

  before(async () => {
    h = await createHarness({ scanning: true });
    org = await h.org('sast');
    repo = TestRepo.create();
  });
  after(async () => {
    await h.close();
    repo.remove();
  });

  const scan = async (unitId: string) => (await scanRepository(h, unitId, 'semgrep_scan')).progress;

  const findings = async (unitId: string) =>
    (await h.call('GET', `/api/v1/repositories/${unitId}/findings?scan_type=semgrep_scan&limit=200`)).json().items as any[];

  test('finds planted Python and TypeScript vulnerabilities, then resolves the fixed one', async () => {
    repo.commit({ 'app.py': VULNERABLE_PY, 'src/server.ts': VULNERABLE_TS, 'README.md': '# shop\n' });
    const unit = await h.unit(org, ['github:acme/shop@main'], 'shop', [repo.url]);

    const first = await scan(unit.id);
    assert.equal(first.status, 'completed', first.error_message ?? '');
    const found = await findings(unit.id);
    const pySql = found.find((f) => f.check_id === 'python.lang.sqli.string-built-query');
    assert.ok(pySql, `no Python SQL injection in ${JSON.stringify(found.map((f) => f.check_id))}`);
    assert.equal(pySql.file_path, 'app.py');
    assert.equal(pySql.start_line, 11);
    assert.equal(pySql.severity, 'critical');
    assert.match(pySql.cwe[0], /^CWE-89\b/);
    assert.match(pySql.owasp[0], /^A03:2021/);
    assert.equal(pySql.category, 'injection');
    const pyCmd = found.find((f) => f.check_id === 'python.lang.command-injection.shell-command');
    assert.ok(pyCmd);
    assert.equal(pyCmd.start_line, 18);
    assert.match(pyCmd.cwe[0], /^CWE-78\b/);
    const tsSql = found.find((f) => f.file_path === 'src/server.ts' && /^CWE-89\b/.test(f.cwe[0]));
    assert.ok(tsSql, `no TypeScript SQL injection in ${JSON.stringify(found.map((f) => [f.check_id, f.file_path]))}`);
    assert.equal(tsSql.start_line, 8);

    repo.commit({ 'app.py': FIXED_PY }, 'use a query parameter');
    await scan(unit.id);
    const after = await findings(unit.id);
    assert.equal(after.find((f) => f.id === pySql.id).status, 'resolved');
    assert.equal(after.find((f) => f.id === pyCmd.id).status, 'open');
    assert.equal(after.find((f) => f.id === tsSql.id).status, 'open');
    const events = (await h.call('GET', `/api/v1/finding-events?finding_id=${pySql.id}`)).json().items.map((e: any) => e.event_type);
    assert.deepEqual(events, ['resolved_auto', 'detected']);
  });
});
