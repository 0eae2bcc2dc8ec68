import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SastEngine } from '../../src/scanning/sast/sast-engine.ts';
import { pruneResultCache } from '../../src/scanning/sast/result-cache.ts';
import { WorkerPool } from '../../src/scanning/worker-pool.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { positiveSample } from '../support/secret-samples.ts';

// A rescan takes an unchanged file's SAST results from the cache (by content), with the same findings;
// a changed file, or a change to the rules, is analyzed again.

const fingerprintKey = Buffer.alloc(32, 1);

const VIEW = `from flask import request
import os

@app.route("/ping")
def ping():
    os.system("ping " + request.args["host"])
`;

const ADDED = `
@app.route("/user")
def user():
    cur.execute("SELECT * FROM users WHERE id = '%s'" % request.args["id"])
`;

const HOUSE_RULE = `language: python
rules:
  - id: python.house.no-ping
    message: Pinging from a web handler is not allowed here.
    severity: low
    cwe: ["CWE-400: Uncontrolled Resource Consumption"]
    rule: { pattern: 'os.system($X)' }
    tests:
      vulnerable: ['os.system("ping")']
      safe: ['print("ping")']
`;

/** Every entry file below the cache folder. */
function entries(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name)) : [];
}

describe('SAST result cache', () => {
  let root: string;

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-sast-cache-'));
  });

  after(() => fs.rmSync(root, { recursive: true, force: true }));

  /** A repository of its own and an empty cache folder. */
  function setup(name: string): { repo: string; cacheDir: string } {
    const repo = path.join(root, name, 'repo');
    fs.mkdirSync(repo, { recursive: true });
    fs.writeFileSync(path.join(repo, 'views.py'), VIEW);
    fs.writeFileSync(path.join(repo, 'other.py'), VIEW.replace('/ping', '/ping2'));
    fs.writeFileSync(path.join(repo, 'util.py'), 'def add(a, b):\n    return a + b\n');
    return { repo, cacheDir: path.join(root, name, 'cache') };
  }

  test('an unchanged tree is answered from the cache with the same findings', async () => {
    const { repo, cacheDir } = setup('unchanged');
    const uncached = await new SastEngine({ pool: null }).scan({ dir: repo, fingerprintKey });
    const first = await new SastEngine({ cacheDir }).scan({ dir: repo, fingerprintKey });
    assert.deepEqual(first, uncached);
    assert.ok(first.some((f) => f.checkId === 'python.lang.command-injection.shell-command'));
    const stored = entries(cacheDir);
    // views.py and other.py differ, util.py has no findings: an entry each.
    assert.equal(stored.length, 3);
    const written = new Map(stored.map((file) => [file, fs.statSync(file).mtimeMs]));

    const second = await new SastEngine({ cacheDir }).scan({ dir: repo, fingerprintKey });
    assert.deepEqual(second, first);
    assert.deepEqual(new Map(entries(cacheDir).map((file) => [file, fs.statSync(file).mtimeMs])), written, 'nothing was analyzed again');
  });

  test('a rescan of unchanged files hands no work to the engine threads; a changed file alone goes to them', async () => {
    const { repo, cacheDir } = setup('threads');
    const pool = new WorkerPool(1);
    const sent: string[][] = [];
    const run = pool.run.bind(pool);
    pool.run = ((module, fn, args, signal) => {
      sent.push((args[0] as { files: { path: string }[] }).files.map((f) => f.path));
      return run(module, fn, args, signal);
    }) as typeof pool.run;
    try {
      const first = await new SastEngine({ cacheDir, pool }).scan({ dir: repo, fingerprintKey });
      assert.deepEqual(sent.flat().sort(), ['other.py', 'util.py', 'views.py']);
      sent.length = 0;
      assert.deepEqual(await new SastEngine({ cacheDir, pool }).scan({ dir: repo, fingerprintKey }), first);
      assert.deepEqual(sent, []);
      fs.appendFileSync(path.join(repo, 'views.py'), ADDED);
      const changed = await new SastEngine({ cacheDir, pool }).scan({ dir: repo, fingerprintKey });
      assert.deepEqual(sent.flat(), ['views.py']);
      assert.deepEqual(changed, await new SastEngine({ pool: null }).scan({ dir: repo, fingerprintKey }));
    } finally {
      await pool.close();
    }
  });

  test('a changed file is analyzed again and the others still come from the cache', async () => {
    const { repo, cacheDir } = setup('changed');
    await new SastEngine({ cacheDir }).scan({ dir: repo, fingerprintKey });
    fs.appendFileSync(path.join(repo, 'views.py'), ADDED);
    const findings = await new SastEngine({ cacheDir }).scan({ dir: repo, fingerprintKey });
    assert.equal(entries(cacheDir).length, 4);
    assert.deepEqual(findings, await new SastEngine({ pool: null }).scan({ dir: repo, fingerprintKey }));
    const views = findings.filter((f) => f.filePath === 'views.py').map((f) => `${f.checkId}:${f.startLine}`);
    assert.deepEqual(views, ['python.lang.command-injection.shell-command:6', 'python.lang.sqli.string-built-query:10']);
  });

  test('other rules do not read results computed under the old ones', async () => {
    const { repo, cacheDir } = setup('rules');
    await new SastEngine({ cacheDir }).scan({ dir: repo, fingerprintKey });
    const rules = path.join(root, 'rules', 'house');
    fs.mkdirSync(path.join(rules, 'python'), { recursive: true });
    fs.writeFileSync(path.join(rules, 'python', 'house.yml'), HOUSE_RULE);
    const findings = await new SastEngine({ cacheDir, extraRuleDirs: [rules] }).scan({ dir: repo, fingerprintKey });
    assert.deepEqual(findings.filter((f) => f.checkId === 'python.house.no-ping').map((f) => f.filePath), ['other.py', 'views.py']);
  });

  test('no credential a rule matched is kept in the cache, and the cached rescan gives the same findings', async () => {
    const { repo, cacheDir } = setup('credentials');
    const token = positiveSample(SECRET_RULES.find((r) => r.id === 'github-pat')!, 5);
    const password = 'Qz8-vX2k-Lm9w-Rt4y';
    fs.writeFileSync(path.join(repo, 'settings.py'), `import db\nSECRET_KEY = "${token}"\nconn = db.connect(host="h", password="${password}")\n`);
    fs.writeFileSync(path.join(repo, 'factory.py'), `import db\nconn = db.client("${token}").connect(password="${password}")\n`);
    const first = await new SastEngine({ cacheDir }).scan({ dir: repo, fingerprintKey });
    assert.ok(first.filter((f) => f.filePath === 'settings.py' && f.checkId === 'python.lang.secrets.hardcoded-secret-key').length >= 2, JSON.stringify(first.map((f) => [f.filePath, f.checkId])));
    assert.ok(first.some((f) => f.filePath === 'factory.py'), 'a match whose call holds a literal is found too');
    const stored = entries(cacheDir);
    assert.ok(stored.length >= 3);
    for (const file of stored) {
      const text = fs.readFileSync(file, 'utf8');
      for (const secret of [token, token.slice(4, 20), password]) assert.ok(!text.includes(secret), `${file} holds a credential: ${text}`);
    }
    const second = await new SastEngine({ cacheDir }).scan({ dir: repo, fingerprintKey });
    assert.deepEqual(second, first);
  });

  test('the cache is kept under its size bound, oldest entries first', async () => {
    const bound = path.join(root, 'bounded');
    for (let i = 0; i < 10; i++) {
      const file = path.join(bound, 'v', `${i}.json`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, 'x'.repeat(10_000));
      fs.utimesSync(file, 1_000 + i, 1_000 + i);
    }
    await pruneResultCache(bound, 60_000);
    const left = fs.readdirSync(path.join(bound, 'v')).sort((a, b) => parseInt(a) - parseInt(b));
    assert.ok(left.length <= 4 && left.length >= 1, `left ${left.join(', ')}`);
    assert.equal(left.at(-1), '9.json', 'the newest entry stays');
  });
});
