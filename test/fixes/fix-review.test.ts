// The fix review of bench:fixes: a fix's Python modules checked under the declared interpreter version
// (syntax, and standard-library names the version lacks), and credential reads that fail open. Each case
// holds a fix that breaks and one that does not; what the unchanged file already had is not the fix's.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { FixReviewTally, reviewFix } from '../../bench/fix-review.ts';
import { failOpenReads, namesSecret } from '../../bench/fix-review/fail-open.ts';
import { apiUses, missingIn, PYTHON_APIS, unavailableApis } from '../../bench/fix-review/python-apis.ts';
import { checkSyntax, interpreterFor, localPython3, planSyntaxCheck, type SyntaxPlan } from '../../bench/fix-review/python-syntax.ts';

const roots: string[] = [];
after(() => roots.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function checkout(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-fix-review-'));
  roots.push(dir);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const PY3_ONLY = {
  'an f-string': 'x = f"{a}"\n',
  nonlocal: 'def f():\n    x = 1\n    def g():\n        nonlocal x\n',
  'a keyword-only parameter': 'def f(a, *, b=1):\n    pass\n',
  'a parameter after *args': 'def f(*args, b):\n    pass\n',
  "print(..., end='')": 'print("a", end="")\n',
  'a variable annotation': 'x: int = 1\n',
  'a return annotation': 'def f() -> int:\n    return 1\n',
  'raise ... from': 'raise ValueError("x") from None\n',
  'yield from': 'def g():\n    yield from range(3)\n',
  'starred unpacking': 'a, *rest = [1, 2, 3]\n',
  'a dict display with **': 'x = {**a}\n',
  'a metaclass keyword': 'class A(metaclass=M):\n    pass\n',
  'async def': 'async def f():\n    await g()\n',
  'the @ operator': 'c = a @ b\n',
  'non-ASCII text without a coding line': 'x = "café"\n',
};
const PY2_VALID = {
  'a print statement': 'print "hello", name\n',
  'except X, e': 'try:\n    pass\nexcept ValueError, e:\n    pass\n',
  'exec and backticks': 'exec "x = 1"\ny = `x`\n',
  'print() with the future import': 'from __future__ import print_function\nprint("a", end="")\n',
  '*args and **kwargs': 'def f(a, *args, **kwargs):\n    pass\n',
  'a coding line and non-ASCII text': '# -*- coding: utf-8 -*-\nx = "café"\n',
};

async function errorsUnder(plan: SyntaxPlan, sources: Record<string, string>): Promise<Record<string, boolean>> {
  const results = await checkSyntax(plan, Object.entries(sources).map(([name, source]) => ({ name, source })));
  return Object.fromEntries(Object.keys(sources).map((name, i) => [name, results[i] !== null]));
}

describe('syntax under the declared Python', () => {
  const local = localPython3();
  const lib2to3Host = local && local.minor <= 12 ? local : null;

  test('Python 2.7 by lib2to3: Python-3-only syntax is refused, Python 2 syntax is read', { skip: !lib2to3Host && 'no Python 3.8–3.12 for lib2to3' }, async () => {
    const plan: SyntaxPlan = { target: { major: 2, minor: 7 }, interpreter: planSyntaxCheck(lib2to3Host!)!.interpreter, mode: 'lib2to3', minor: null, how: 'lib2to3' };
    assert.deepEqual(await errorsUnder(plan, PY3_ONLY), Object.fromEntries(Object.keys(PY3_ONLY).map((k) => [k, true])));
    assert.deepEqual(await errorsUnder(plan, PY2_VALID), Object.fromEntries(Object.keys(PY2_VALID).map((k) => [k, false])));
  });

  test('Python 2.7 by its own interpreter, where installed, agrees', { skip: !interpreterFor(2, 7) && 'no python2.7 here' }, async () => {
    const plan = planSyntaxCheck({ major: 2, minor: 7 })!;
    assert.equal(plan.mode, 'compile');
    assert.deepEqual(await errorsUnder(plan, PY3_ONLY), Object.fromEntries(Object.keys(PY3_ONLY).map((k) => [k, true])));
    assert.deepEqual(await errorsUnder(plan, PY2_VALID), Object.fromEntries(Object.keys(PY2_VALID).map((k) => [k, false])));
  });

  test('a Python 3 older than any installed one is parsed with feature_version, clamped to what ast supports, and says so', { skip: !local && 'no python3' }, async () => {
    const plan = planSyntaxCheck({ major: 3, minor: 2 })!;
    if (plan.mode === 'compile') return; // a python3.2 is installed: its own compile() is the check
    assert.equal(plan.mode, 'ast');
    assert.equal(plan.minor, local!.minor >= 13 ? 7 : 4);
    assert.match(plan.caveat!, /3\.2 is checked as 3\.[47], the lowest feature_version/);
    const results = await errorsUnder({ ...plan, minor: 5 }, { fstring: 'x = f"{a}"\n', walrus: 'if (n := 1):\n    pass\n', plain: 'x = "{}".format(a)\n' });
    assert.deepEqual(results, { fstring: true, walrus: true, plain: false });
  });

  test('a print statement does not parse as Python 3', { skip: !local && 'no python3' }, async () => {
    const plan = planSyntaxCheck(local!)!;
    assert.deepEqual(await errorsUnder(plan, { py2: 'print "x"\n', py3: 'print("x")\n' }), { py2: true, py3: false });
  });
});

describe('standard-library names the declared version lacks', () => {
  const entry = (name: string, keyword?: string) => PYTHON_APIS.find((e) => e.name === name && e.keyword === keyword)!;

  test('versions: new in 3.x, in a 2.7 patch release, removed in 3.x', () => {
    assert.match(missingIn(entry('os.path.commonpath'), { major: 2, minor: 7 })!, /not in Python 2/);
    assert.match(missingIn(entry('os.path.commonpath'), { major: 3, minor: 4 })!, /needs 3\.5/);
    assert.equal(missingIn(entry('os.path.commonpath'), { major: 3, minor: 5 }), null);
    assert.match(missingIn(entry('hmac.compare_digest'), { major: 2, minor: 7 })!, /needs 2\.7\.7 .* without the patch release/);
    assert.match(missingIn(entry('hmac.compare_digest'), { major: 2, minor: 7, micro: 6 })!, /needs 2\.7\.7 or later$/);
    assert.equal(missingIn(entry('hmac.compare_digest'), { major: 2, minor: 7, micro: 18 }), null);
    assert.match(missingIn(entry('cgi.escape'), { major: 3, minor: 8 })!, /removed in 3\.8/);
    assert.equal(missingIn(entry('cgi.escape'), { major: 2, minor: 7 }), null);
    assert.match(missingIn(entry('urlparse'), { major: 3, minor: 6 })!, /not in Python 3/);
  });

  test('uses are found through import, from-import, aliases, keywords, methods and f-strings', () => {
    const source = [
      'import os, hmac',
      'import os.path as osp',
      'from os import path',
      'from html import escape as esc',
      'import secrets',
      'osp.commonpath([a, b])',
      'path.commonpath([a, b])',
      'os.makedirs(d, exist_ok=True)',
      'hmac.compare_digest(a, b)',
      'p.is_relative_to(base)',
      'x = f"{a}"',
      'from . import shlex',
      'shlex.quote(s)',
      'def f(): return os.path.join(a, b)',
    ].join('\n');
    const uses = apiUses(source).map((u) => `${u.line}:${u.entry.name}${u.entry.keyword ? `(${u.entry.keyword})` : ''}`).sort();
    assert.deepEqual(uses, ['10:.is_relative_to(', '11:f-string', '4:html.escape', '5:secrets', '6:os.path.commonpath', '7:os.path.commonpath', '8:os.makedirs(exist_ok)', '9:hmac.compare_digest'].sort());
    assert.deepEqual(unavailableApis('import os\nos.path.commonpath([a])\n', { major: 3, minor: 6 }), []);
  });

  test('code written for either version is not a use', () => {
    const source = [
      'try:',
      '    from shlex import quote',
      'except ImportError:',
      '    from pipes import quote',
      'try:',
      '    import urlparse',
      'except ImportError:',
      '    import urllib.parse as urlparse',
      'import sys',
      'if sys.version_info >= (3, 6):',
      '    import secrets',
      'from shlex import quote as q',
    ].join('\n');
    assert.deepEqual(apiUses(source).map((u) => `${u.line}:${u.entry.name}`), ['12:shlex.quote']);
  });
});

describe('credential reads that fail open', () => {
  const flagged = (file: string, source: string) => failOpenReads(file, source).map((r) => `${r.line} ${r.how} ${r.sink}`);

  test('Python: settings and comparisons with a lookup that answers None', () => {
    const source = [
      'import os',
      'SECRET_KEY = os.environ.get("SECRET_KEY")',
      'app.config["SECRET_KEY"] = os.getenv("FLASK_SECRET")',
      'app.secret_key = os.environ.get("APP_KEY", None) or ""',
      'app.config.update(JWT_SECRET_KEY=os.environ.get("JWT"))',
      'class Config:',
      '    API_TOKEN = str(os.environ.get("API_TOKEN"))',
      'ADMIN = os.getenv("ADMIN")',
      'def login(password):',
      '    if password == ADMIN:',
      '        return True',
      '    return hmac.compare_digest(password, os.environ.get("OTHER"))',
    ].join('\n');
    assert.deepEqual(flagged('app.py', source), [
      '2 setting SECRET_KEY',
      '3 setting app.config["SECRET_KEY"]',
      '4 setting app.secret_key',
      '5 setting JWT_SECRET_KEY=',
      '7 setting API_TOKEN',
      '10 comparison ==',
      '12 comparison hmac.compare_digest()',
    ]);
  });

  test('Python: a required lookup, a real default, a check that stops start-up, or a read at call time is not', () => {
    const source = [
      'import os, sys',
      'SECRET_KEY = os.environ["SECRET_KEY"]',
      'JWT_SECRET = os.environ.get("JWT_SECRET")',
      'if not JWT_SECRET:',
      '    raise RuntimeError("JWT_SECRET must be set")',
      'API_KEY = os.getenv("API_KEY")',
      'if API_KEY is None:',
      '    sys.exit("API_KEY must be set")',
      'DATABASE_URL = os.environ.get("DATABASE_URL")',
      'DEBUG_TOKEN = os.environ.get("DEBUG_TOKEN", "dev")',
      'def signer():',
      '    return Signer(os.environ.get("SIGNING_KEY"))',
      'KEY_PREFIX = os.environ.get("KEY_PREFIX")',
      'app.config["SECRET_KEY"] = os.environ.get("FLASK_SECRET_KEY")',
      'if not app.config["SECRET_KEY"]:',
      '    raise RuntimeError("Set the environment variable FLASK_SECRET_KEY")',
      'def login(password):',
      '    ADMIN_PASSWORD = os.environ.get("ADMIN_PASSWORD")',
      '    if not ADMIN_PASSWORD:',
      '        raise RuntimeError("Set the environment variable ADMIN_PASSWORD")',
      '    return password == ADMIN_PASSWORD',
      'app.run(debug=os.environ.get("FLASK_DEBUG") == "1")',
    ].join('\n');
    assert.deepEqual(flagged('settings.py', source), []);
  });

  test('JavaScript: process.env used as a secret at load without a throw on missing', () => {
    const source = [
      'const { JWT_SECRET } = process.env;',
      'const sessionSecret = process.env.SESSION_SECRET || "";',
      'const apiKey = process.env.API_KEY!;',
      'app.use(session({ secret: process.env["COOKIE_SECRET"] }));',
      'const required = process.env.REQUIRED_SECRET;',
      'if (!required) throw new Error("REQUIRED_SECRET must be set");',
      'const fallback = process.env.OTHER_SECRET || "literal";',
      'const port = process.env.PORT;',
      'function check(p) { return p === process.env.ADMIN_PASSWORD; }',
      'function later() { return jwt.sign(x, process.env.LATER_SECRET); }',
      'const debug = process.env.DEBUG_TOKEN === "1";',
    ].join('\n');
    assert.deepEqual(flagged('server.ts', source), ['1 setting JWT_SECRET', '2 setting sessionSecret', '3 setting apiKey', '4 setting secret:', '9 comparison ===']);
  });

  test('names of credentials', () => {
    for (const name of ['SECRET_KEY', 'app.secret_key', 'jwtSecret', 'DB_PASS', 'api_token', 'secret:']) assert.ok(namesSecret(name), name);
    for (const name of ['DATABASE_URL', 'PUBLIC_KEY', 'AWS_ACCESS_KEY_ID', 'SSL_KEY_FILE', 'port', 'bypass']) assert.ok(!namesSecret(name), name);
  });
});

describe('reviewFix', () => {
  test('a fix that moves a Python 2 app to Python 3 syntax, a 3.5 API and a fail-open secret is flagged; what the file had is preexisting', { skip: !localPython3() && 'no python3' }, async () => {
    const dir = checkout({ Dockerfile: 'FROM python:2.7-slim\nCMD ["python", "app.py"]\n', 'app.py': '' });
    const before = 'import os\nSECRET_KEY = "hard-coded"\nprint "starting"\napp.debug = os.getenv("DEBUG")\n';
    const afterText = 'import os\nfrom os.path import commonpath\nSECRET_KEY = os.environ.get("SECRET_KEY")\nprint "starting"\nmsg = f"{SECRET_KEY}"\n';
    const review = await reviewFix(dir, [{ path: 'app.py', before, after: afterText }, { path: 'README.md', before: 'a', after: 'b' }]);
    assert.deepEqual(review.versions.map((v) => [v.version, v.source]), [['2.7', 'Dockerfile: 2.7']]);
    const kinds = review.findings.map((f) => `${f.kind}:${f.line}:${f.preexisting}`).sort();
    // the f-string is both a syntax error in 2.7 and a name of the table; the print statement was there before
    assert.deepEqual(kinds, ['api:2:false', 'api:5:false', 'fail-open:3:false', 'syntax:5:false'].sort());
    const tally = new FixReviewTally();
    tally.add('app', review);
    tally.add('app', await reviewFix(dir, [{ path: 'app.py', before, after: before.replace('hard-coded', 'still') }]));
    const lines = tally.lines();
    assert.ok(lines.some((l) => /^app\s+2\s+1\s+1\s+1\s+1\s+0$/.test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => /^total\s+2\s+1\s+1\s+1\s+1\s+0$/.test(l)), lines.join('\n'));
  });

  test('with no version declared, an app whose code is Python 2 (its syntax, or a Python-2-only import) is checked as 2.7, else as the local Python 3', { skip: !localPython3() && 'no python3' }, async () => {
    const dir = checkout({ 'app.py': '' });
    const py2 = await reviewFix(dir, [{ path: 'app.py', before: 'print "a"\n', after: 'print "a"\nx = 1\n' }]);
    assert.equal(py2.versions[0]!.version, '2.7');
    assert.match(py2.versions[0]!.source, /parses as Python 2\.7, not as Python 3/);
    assert.deepEqual(py2.findings, []);
    const imports = await reviewFix(dir, [{ path: 'views.py', before: 'from urlparse import urlparse\n', after: 'from urlparse import urlparse\nx = f"{y}"\n' }]);
    assert.equal(imports.versions[0]!.version, '2.7');
    assert.match(imports.versions[0]!.source, /views\.py:1 uses urlparse, which Python 3 does not have/);
    assert.deepEqual(imports.findings.filter((f) => !f.preexisting).map((f) => f.kind).sort(), ['api', 'syntax']);
    const py3 = await reviewFix(dir, [{ path: 'app.py', before: 'print("a")\n', after: 'print("a")\nx = f"{y}"\n' }]);
    assert.match(py3.versions[0]!.source, /none declared; the local Python 3/);
    assert.deepEqual(py3.findings, []);
  });

  test('a module that did not parse before is not the fix\'s doing', { skip: !localPython3() && 'no python3' }, async () => {
    const dir = checkout({ 'setup.py': 'from setuptools import setup\nsetup(name="a", python_requires=">=3.8")\n', 'app.py': '' });
    const review = await reviewFix(dir, [{ path: 'app.py', before: 'print "a"\n', after: 'print "a"\nimport html\n' }]);
    assert.deepEqual(review.findings.map((f) => [f.kind, f.preexisting]), [['syntax', true]]);
  });
});
