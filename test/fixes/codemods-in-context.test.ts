// Codemods that depend on the application around the file: what its repository shows about HTTPS, the
// framework versions it declares, what its pages' scripts read, where in the HTML a value goes, and
// what the code is for. Each fix is checked against the snippet it should give, each refusal against
// the reason it should name; the python3 runs check the added helpers' behaviour, redirects included.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parserFor } from '../../src/languages/index.ts';
import { loadRuleSet } from '../../src/scanning/sast/rule-set.ts';
import { analyzeSource } from '../../src/scanning/sast/sast-engine.ts';
import { deepAiScan } from '../../src/scanning/scan-types/deep-ai.ts';
import { fixerFor } from '../../src/fixing/fixers/index.ts';
import { codeParserFor, parseCode, syntaxErrors } from '../../src/fixing/fixers/shared/syntax.ts';
import type { FixerOutcome, FixFinding } from '../../src/fixing/types.ts';
import { verifyFix } from '../../src/fixing/verify.ts';
import { read, workTree } from '../support/fix-workspace.ts';

const rules = loadRuleSet();

async function run(file: string, text: string, ruleId: string, repository: Record<string, string> = {}): Promise<{ outcome: FixerOutcome; after: string }> {
  const match = analyzeSource(rules, parserFor(file)!, text).find((m) => m.rule.id === ruleId);
  assert.ok(match, `${ruleId} does not fire on the vulnerable snippet`);
  const workspace = workTree({ ...repository, [file]: text });
  const finding: FixFinding = {
    id: 'f1', scanType: 'semgrep_scan', checkId: ruleId, severity: match.rule.severity, title: null, message: match.rule.message,
    filePath: file, startLine: match.startLine, endLine: match.endLine, cwe: match.rule.cwe, metadata: {},
  };
  const fixer = fixerFor(finding)!;
  assert.equal(fixer.name, 'sast-codemod');
  const outcome = await fixer.apply(finding, workspace);
  return { outcome, after: read(workspace, file) };
}

async function fixes(file: string, vulnerable: string, ruleId: string, expected: string, repository: Record<string, string> = {}, note?: RegExp): Promise<void> {
  const { outcome, after } = await run(file, vulnerable, ruleId, repository);
  assert.equal(outcome.fixed, true, outcome.note);
  assert.equal(after, expected);
  const parser = codeParserFor(file);
  if (parser) assert.equal(syntaxErrors(parseCode(parser, after)).count, 0, 'the fixed snippet parses');
  assert.ok(!analyzeSource(rules, parserFor(file)!, after).some((m) => m.rule.id === ruleId), `${ruleId} no longer fires`);
  if (note) assert.match(outcome.note, note);
}

async function refuses(file: string, vulnerable: string, ruleId: string, reason: RegExp, repository: Record<string, string> = {}) {
  const { outcome, after } = await run(file, vulnerable, ruleId, repository);
  assert.equal(outcome.fixed, false, `expected a refusal, got: ${outcome.note}`);
  assert.match(outcome.note, reason);
  assert.equal(after, vulnerable, 'nothing is written');
}

const flask = (body: string) => `from flask import Flask, request\n\napp = Flask(__name__)\n\n${body}`;
const COOKIE = 'python.flask.cookie.insecure-cookie';
const setCookie = 'def login(resp, token):\n    resp.set_cookie("session", token, max_age=3600)\n';
const HTTPS_FLASK = { 'app/__init__.py': 'from flask_talisman import Talisman\nTalisman(app)\n' };

describe('cookie flags follow what the app does', () => {
  test('Flask behind Talisman (HTTPS): Secure, HttpOnly and SameSite=Lax, each named in the note with its effect', async () => {
    await fixes('app.py', setCookie, COOKIE, 'def login(resp, token):\n    resp.set_cookie("session", token, max_age=3600, secure=True, httponly=True, samesite="Lax")\n', HTTPS_FLASK,
      /Secure: browsers send it over HTTPS only \(the app is served over HTTPS: Flask-Talisman in app\/__init__\.py\); HttpOnly: scripts on the page can no longer read it; SameSite=Lax/);
  });
  test('no sign of HTTPS: refused, as a Secure cookie over plain HTTP would sign every user out', () =>
    refuses('app.py', setCookie, COOKIE, /nothing in the repository shows the app is served over HTTPS.*sign every user out/));
  test('a script of the app reads the cookie from document.cookie: HttpOnly is left off and the note says why', async () => {
    await fixes('app.py', setCookie, COOKIE, 'def login(resp, token):\n    resp.set_cookie("session", token, max_age=3600, secure=True, samesite="Lax")\n', {
      ...HTTPS_FLASK,
      'static/js/app.js': 'function token() {\n  return document.cookie.split("; ").find((c) => c.startsWith("session=")).split("=")[1];\n}\n',
    }, /HttpOnly left off: static\/js\/app\.js reads the session cookie from document\.cookie/);
  });
  test('Django 1.11 declared: refused, its set_cookie() has no samesite (added in 2.1)', () =>
    refuses('views.py', `from django.http import HttpResponse\n\n${setCookie}`, COOKIE, /declares Django==1\.11\.29, whose set_cookie\(\) has no samesite argument \(added in Django 2\.1\)/, {
      'requirements.txt': 'Django==1.11.29\n', 'mysite/settings.py': 'SECURE_SSL_REDIRECT = True\n',
    }));
  test('Django 2.2 declared: samesite is passed', () =>
    fixes('views.py', `from django.http import HttpResponse\n\n${setCookie}`, COOKIE,
      `from django.http import HttpResponse\n\n${setCookie.replace('max_age=3600)', 'max_age=3600, secure=True, httponly=True, samesite="Lax")')}`,
      { 'requirements.txt': 'Django==2.2.28\n', 'mysite/settings.py': 'SECURE_SSL_REDIRECT = True\n' }));
  test('Werkzeug 0.12 declared: refused; Flask 0.12 without a Werkzeug declared: refused too', async () => {
    await refuses('app.py', setCookie, COOKIE, /Werkzeug==0\.12\.2.*added in Werkzeug 0\.14/, { ...HTTPS_FLASK, 'requirements.txt': 'Flask==0.12.2\nWerkzeug==0.12.2\n' });
    await refuses('app.py', setCookie, COOKIE, /Flask==0\.12\.2, which does not require a Werkzeug of 0\.14 or later/, { ...HTTPS_FLASK, 'requirements.txt': 'Flask==0.12.2\n' });
  });

  test('SESSION_COOKIE_SECURE = False with no sign of HTTPS → an environment setting off by default, which the note explains', () =>
    fixes('mysite/settings.py', 'DEBUG = False\nSESSION_COOKIE_SECURE = False\n', 'python.lang.session.cookie-sent-without-tls',
      'import os\n\nDEBUG = False\nSESSION_COOKIE_SECURE = os.environ.get("SESSION_COOKIE_SECURE", "false").lower() == "true"\n', {},
      /stays off unless it is "true".*Set SESSION_COOKIE_SECURE=true where the site is served over HTTPS/));
  test('CSRF_COOKIE_HTTPONLY = False where a template reads csrftoken from document.cookie: refused with the file', () =>
    refuses('mysite/settings.py', 'CSRF_COOKIE_HTTPONLY = False\n', 'python.lang.session.cookie-readable-by-scripts', /templates\/base\.html reads the csrftoken cookie from document\.cookie/, {
      'templates/base.html': '<script>\nfunction getCookie(name) { return document.cookie.split(";").find((c) => c.trim().startsWith(name + "=")); }\nconst csrftoken = getCookie("csrftoken");\n</script>\n',
    }));
  test('SESSION_COOKIE_HTTPONLY = False where no script reads the cookie: turned on', () =>
    fixes('mysite/settings.py', 'SESSION_COOKIE_HTTPONLY = False\n', 'python.lang.session.cookie-readable-by-scripts', 'SESSION_COOKIE_HTTPONLY = True\n', {
      'static/app.js': 'console.log(document.title);\n',
    }));

  const expressApp = (line: string) => `const express = require("express");\nconst app = express();\n${line}\n`;
  test('express-session with secure: false and no sign of HTTPS → "auto": Secure when the request came over HTTPS', () =>
    fixes('app.js', expressApp('app.use(session({ secret: process.env.S, cookie: { secure: false, httpOnly: true, sameSite: "lax" } }));'), 'javascript.express.cookie.insecure-cookie',
      expressApp('app.use(session({ secret: process.env.S, cookie: { secure: "auto", httpOnly: true, sameSite: "lax" } }));'), {}, /secure: "auto"/));
  test('express-session options written one a line: the added flags one a line too', () =>
    fixes('app.js', expressApp('app.use(session({\n  secret: process.env.S,\n  cookie: {\n    secure: false,\n    maxAge: 3600000\n  }\n}));'), 'javascript.express.cookie.insecure-cookie',
      expressApp('app.use(session({\n  secret: process.env.S,\n  cookie: {\n    secure: "auto",\n    maxAge: 3600000,\n    httpOnly: true,\n    sameSite: "lax"\n  }\n}));')));
  test('res.cookie where the app runs an HTTPS server → secure: true', () =>
    fixes('app.js', expressApp('app.get("/l", (req, res) => {\n  res.cookie("sid", token);\n});'), 'javascript.express.cookie.insecure-cookie',
      expressApp('app.get("/l", (req, res) => {\n  res.cookie("sid", token, { httpOnly: true, secure: true, sameSite: "lax" });\n});'),
      { 'server.js': 'https.createServer(options, app).listen(443);\n' }));
  test('express 4.13 declared: refused, its res.cookie() has no sameSite', () =>
    refuses('app.js', expressApp('app.get("/l", (req, res) => {\n  res.cookie("sid", token);\n});'), 'javascript.express.cookie.insecure-cookie', /express@4\.13\.4.*added in express 4\.14\.0/, {
      'package.json': '{ "dependencies": { "express": "4.13.4" } }\n',
    }));
  test('missing httpOnly on a cookie the page reads: refused with the script that reads it', () =>
    refuses('app.js', expressApp('app.get("/l", (req, res) => {\n  res.cookie("prefs_token", token, { secure: true, sameSite: "lax" });\n});'), 'javascript.express.cookie.missing-httponly', /public\/main\.js reads the prefs_token cookie/, {
      'public/main.js': 'const t = document.cookie.match(/prefs_token=([^;]+)/);\n',
    }));
});

const XSS = 'python.lang.xss.response-from-request';
describe('escaping follows the output context', () => {
  test('a value in the body and one in a quoted attribute are escaped', () =>
    fixes('app.py', flask('@app.route("/h")\ndef h():\n    name = request.args.get("name")\n    return "<p title=\\"" + name + "\\">Hello " + name + "</p>"\n'), XSS,
      flask('@app.route("/h")\ndef h():\n    name = request.args.get("name")\n    return "<p title=\\"" + str(escape(name)) + "\\">Hello " + str(escape(name)) + "</p>"\n').replace('request\n', 'request\nfrom markupsafe import escape\n')));
  test('a value inside <script>: refused, HTML escaping is not JavaScript escaping', () =>
    refuses('app.py', flask('@app.route("/s")\ndef s():\n    name = request.args.get("name")\n    return "<script>var user = \'%s\';</script>" % name\n'), XSS, /inside <script>/));
  test('a value as an href: refused, escaping does not stop javascript: URLs', () =>
    refuses('app.py', flask('@app.route("/a")\ndef a():\n    url = request.args.get("next")\n    return f\'<a href="{url}">continue</a>\'\n'), XSS, /URL or style attribute.*javascript: URLs/));
  test('a value inside a quoted attribute whose text has its own name=value (a meta refresh): escaped as a quoted attribute', () =>
    fixes('app.py', flask('@app.route("/r")\ndef r():\n    target = request.args.get("to")\n    return "<meta http-equiv=\\"refresh\\" content=\\"0; url=%s\\"/>" % target\n'), XSS,
      flask('@app.route("/r")\ndef r():\n    target = request.args.get("to")\n    return "<meta http-equiv=\\"refresh\\" content=\\"0; url=%s\\"/>" % escape(target)\n').replace('request\n', 'request\nfrom markupsafe import escape\n')));
  test('an unquoted attribute: refused', () =>
    refuses('app.py', flask('@app.route("/u")\ndef u():\n    c = request.args.get("c")\n    return "<div class=" + c + ">x</div>"\n'), XSS, /unquoted attribute/));
  test('Markup() of rich text: refused, escaping would show its tags; Markup() of a name is escaped', async () => {
    const view = (value: string) => flask(`from markupsafe import Markup\n\n@app.route("/p")\ndef p():\n    ${value} = request.form["${value}"]\n    return Markup(${value})\n`);
    await refuses('app.py', view('post_content'), XSS, /post_content looks like rich text the app renders on purpose.*sanitizer/);
    await fixes('app.py', view('nickname'), XSS, view('nickname').replace('return Markup(nickname)', 'return escape(nickname)').replace('request\n', 'request\nfrom markupsafe import escape\n'));
  });
  test('Jinja |safe inside <script>: refused with the tojson filter named; on rich text: refused', async () => {
    await refuses('templates/p.html', '<script>\n  var user = {{ user | safe }};\n</script>\n', 'template.jinja.xss.safe-filter', /inside <script>.*tojson/);
    await refuses('templates/p.html', '<article>{{ post.content | safe }}</article>\n', 'template.jinja.xss.safe-filter', /post\.content looks like rich text/);
    await fixes('templates/p.html', '<h1>Hello, {{ name | safe }}</h1>\n', 'template.jinja.xss.safe-filter', '<h1>Hello, {{ name }}</h1>\n');
  });
});

const EVAL = 'python.lang.code-injection.eval';
describe('no feature removed', () => {
  const calculator = flask('@app.route("/calc", methods=["POST"])\ndef calc():\n    expression = request.form["expression"]\n    return str(eval(expression))\n');
  test('a calculator\'s eval: refused, ast.literal_eval would reject 2 + 3', () => refuses('app.py', calculator, EVAL, /computes arithmetic here.*literal_eval rejects/));
  test('a calculator\'s eval where simpleeval is a dependency → simple_eval', () =>
    fixes('app.py', calculator, EVAL, calculator.replace('eval(expression)', 'simple_eval(expression)').replace('request\n', 'request\nfrom simpleeval import simple_eval\n'), { 'requirements.txt': 'flask\nsimpleeval==0.9.13\n' }, /simpleeval/));
});

const SSRF = 'python.lang.ssrf.outbound-request';
describe('the SSRF guard holds across redirects and leaves fixed hosts alone', () => {
  test('requests.get and requests.post → public_url() and a response hook that checks each redirect target before requests follows it (run by python3)', async () => {
    for (const method of ['get', 'post']) {
      const vulnerable = `import requests\n${flask(`@app.route("/p")\ndef p():\n    return requests.${method}(request.args["url"], timeout=5).text\n`)}`;
      const { outcome, after } = await run('app.py', vulnerable, SSRF);
      assert.equal(outcome.fixed, true, outcome.note);
      assert.ok(after.endsWith(`    return requests.${method}(public_url(request.args["url"]), timeout=5, hooks={"response": public_redirect}).text\n`), after);
      assert.match(outcome.note, /checks every redirect target the same way before requests follows it/);
      assert.ok(!analyzeSource(rules, 'python', after).some((m) => m.rule.id === SSRF));
      if (method === 'post') continue;
      const helpers = after.slice(after.indexOf('def public_url'), after.indexOf('@app.route'));
      const script = [
        'import ipaddress, socket, urllib.parse',
        helpers,
        'class R:',
        '    def __init__(self, url, status, location=None):',
        '        self.url, self.status_code, self.headers = url, status, ({"location": location} if location else {})',
        'print(public_redirect(R("http://8.8.8.8/a", 302, "/b")).status_code)',
        'print(public_redirect(R("http://8.8.8.8/a", 200)).status_code)',
        'for location in ["http://169.254.169.254/latest", "http://127.0.0.1:8080/admin", "file:///etc/passwd"]:',
        '    try:',
        '        public_redirect(R("http://8.8.4.4/x", 301, location))',
        '    except ValueError as e:',
        '        print("refused", location)',
      ].join('\n');
      const out = spawnSync('python3', ['-c', script], { encoding: 'utf8' });
      assert.equal(out.stdout, '302\n200\nrefused http://169.254.169.254/latest\nrefused http://127.0.0.1:8080/admin\nrefused file:///etc/passwd\n', out.stderr);
      // With requests itself: a server that redirects to an internal one; the hook stops it before the second request.
      const live = [
        'import ipaddress, socket, urllib.parse, threading, http.server',
        helpers,
        'import requests',
        'hits = []',
        'class Internal(http.server.BaseHTTPRequestHandler):',
        '    def do_GET(self):',
        '        hits.append(self.path); self.send_response(200); self.end_headers()',
        '    def log_message(self, *a): pass',
        'internal = http.server.HTTPServer(("127.0.0.1", 0), Internal)',
        'class Redirector(Internal):',
        '    def do_GET(self):',
        '        self.send_response(302); self.send_header("Location", "http://127.0.0.1:%d/secret" % internal.server_port); self.end_headers()',
        'outer = http.server.HTTPServer(("127.0.0.1", 0), Redirector)',
        'for s in (internal, outer): threading.Thread(target=s.serve_forever, daemon=True).start()',
        'try:',
        '    requests.get("http://127.0.0.1:%d/" % outer.server_port, timeout=5, hooks={"response": public_redirect})',
        '    print("followed")',
        'except ValueError:',
        '    print("refused", hits)',
      ].join('\n');
      const requestsRun = spawnSync('python3', ['-c', 'import requests'], { encoding: 'utf8' });
      if (requestsRun.status === 0) {
        const followed = spawnSync('python3', ['-c', live], { encoding: 'utf8', timeout: 20_000 });
        assert.equal(followed.stdout, 'refused []\n', followed.stderr);
      }
    }
  });
  test('requests with its own hooks=: refused, the redirect check would have to join them by hand', () =>
    refuses('app.py', `import requests\n${flask('@app.route("/p")\ndef p():\n    return requests.get(request.args["url"], hooks={"response": log}).text\n')}`, SSRF, /already passes its own hooks=/));
  test('a URL whose scheme and host are written in the code: not a request the caller can point elsewhere', () =>
    refuses('app.py', `import requests\n${flask('@app.route("/u")\ndef u():\n    return requests.get(f"https://api.example.com/users/{request.args[\'id\']}").text\n')}`, SSRF, /scheme and host are written in the code \(https:\/\/api\.example\.com\).*not a server-side request forgery to guard/));
  test('a Python 2 app: refused, the helper needs Python 3', () =>
    refuses('app.py', `import requests\n${flask('@app.route("/p")\ndef p():\n    return requests.get(request.args["url"]).text\n')}`, SSRF, /runs on Python 2 \(runtime\.txt declares Python 2\.7\.18\)/, { 'runtime.txt': 'python-2.7.18\n' }));
});

const PATH = 'python.lang.path-traversal.file-access';
describe('version-aware path and SQL fixes', () => {
  const view = flask('@app.route("/d")\ndef d():\n    name = request.args.get("file")\n    return send_file(os.path.join("/srv/files", name))\n');
  test('Flask 1.1 declared without Werkzeug: safe_join is imported from werkzeug.utils, falling back to werkzeug.security', async () => {
    const { outcome, after } = await run('app.py', view, PATH, { 'requirements.txt': 'Flask==1.1.2\n' });
    assert.equal(outcome.fixed, true, outcome.note);
    assert.match(after, /^try:\n    from werkzeug\.utils import safe_join\nexcept ImportError:  # Werkzeug before 2\.0\n    from werkzeug\.security import safe_join\n/m);
  });
  test('Werkzeug 0.16 declared: safe_join from werkzeug.security', async () => {
    const { outcome, after } = await run('app.py', view, PATH, { 'requirements.txt': 'Flask==1.1.2\nWerkzeug==0.16.1\n' });
    assert.equal(outcome.fixed, true, outcome.note);
    assert.match(after, /^from werkzeug\.security import safe_join$/m);
  });
  test('outside Flask, path_inside() compares prefixes, without os.path.commonpath (absent from Python 2)', async () => {
    const { outcome, after } = await run('files.py', 'from django.http import HttpResponse\n\ndef read(request):\n    with open(os.path.join("/var/data/", request.GET["name"])) as f:\n        return HttpResponse(f.read())\n', PATH);
    assert.equal(outcome.fixed, true, outcome.note);
    assert.doesNotMatch(after, /commonpath/);
    assert.match(after, /real\.startswith\(os\.path\.join\(base, ""\)\)/);
  });

  const SQL = 'python.lang.sqli.string-built-query';
  test('SQLAlchemy session.execute() of a plain string → text() with its value bound by name', () =>
    fixes('models.py', flask('from flask_sqlalchemy import SQLAlchemy\n\n@app.route("/u")\ndef u():\n    name = request.args["name"]\n    return str(db.session.execute("SELECT * FROM users WHERE name = \'" + name + "\'").fetchall())\n'), SQL,
      flask('from flask_sqlalchemy import SQLAlchemy\n\n@app.route("/u")\ndef u():\n    name = request.args["name"]\n    return str(db.session.execute(text("SELECT * FROM users WHERE name = :name"), {"name": name}).fetchall())\n').replace('request\n', 'request\nfrom sqlalchemy import text\n')));
  test('a text() clause given to Query.filter() → its values bound on the clause with bindparams(), never a dict passed to filter()', () =>
    fixes('models.py', flask('from sqlalchemy import text\n\n@app.route("/u")\ndef u():\n    name = request.args["name"]\n    return str(User.query.filter(text(f"name = \'{name}\'")).all())\n'), SQL,
      flask('from sqlalchemy import text\n\n@app.route("/u")\ndef u():\n    name = request.args["name"]\n    return str(User.query.filter(text("name = :name").bindparams(name=name)).all())\n')));
});

describe('a deep_ai_scan finding of a codemod\'s rule', () => {
  test('gets the codemod through the fix path, and the rescan no longer finds it', async () => {
    const text = flask('import sqlite3\n\n@app.route("/u")\ndef u():\n    cur = sqlite3.connect("app.db").cursor()\n    cur.execute("SELECT * FROM users WHERE name = \'%s\'" % request.args["name"])\n    return str(cur.fetchall())\n');
    const workspace = workTree({ 'app.py': text });
    const engine = await deepAiScan.engine!({ secretsHistoryDepth: 0, inCallingThread: true });
    const raw = (await engine.scan({ dir: workspace.dir, fingerprintKey: Buffer.alloc(32) })).filter((f) => f.checkId === 'python.lang.sqli.string-built-query');
    assert.equal(raw.length, 1);
    const f = raw[0]!;
    const finding: FixFinding = {
      id: 'deep-1', scanType: 'deep_ai_scan', checkId: f.checkId, category: f.category, severity: f.severity, title: f.title,
      message: f.message, filePath: f.filePath, startLine: f.startLine, endLine: f.endLine, cwe: f.cwe, metadata: f.metadata,
    };
    const fixer = fixerFor(finding)!;
    assert.equal(fixer.name, 'sast-codemod');
    const outcome = await fixer.apply(finding, workspace);
    assert.equal(outcome.fixed, true, outcome.note);
    assert.match(fs.readFileSync(path.join(workspace.dir, 'app.py'), 'utf8'), /cur\.execute\("SELECT \* FROM users WHERE name = \?", \(request\.args\["name"\],\)\)/);
    assert.deepEqual(await verifyFix(workspace.dir, [finding], outcome.changedFiles, new Map([['app.py', text]])), { stillDetected: [], unparsable: [] });
  });
});

describe('fixes that run on the Python the app declares', () => {
  const ping = flask('import os\n\n@app.route("/p")\ndef p():\n    return os.popen("ping -c 1 " + request.args["host"]).read()\n');
  const SHELL = 'python.lang.command-injection.shell-command';
  test('os.popen().read() → subprocess.run(text=True) on a current Python, universal_newlines on 3.6, Popen().communicate() on Python 2', async () => {
    for (const [repository, call] of [
      [{}, 'subprocess.run(["ping", "-c", "1", "--", request.args["host"]], stdout=subprocess.PIPE, text=True).stdout'],
      [{ 'runtime.txt': 'python-3.6.15\n' }, 'subprocess.run(["ping", "-c", "1", "--", request.args["host"]], stdout=subprocess.PIPE, universal_newlines=True).stdout'],
      [{ 'Dockerfile': 'FROM python:2.7-slim\n' }, 'subprocess.Popen(["ping", "-c", "1", "--", request.args["host"]], stdout=subprocess.PIPE, universal_newlines=True).communicate()[0]'],
    ] as [Record<string, string>, string][]) {
      const { outcome, after } = await run('app.py', ping, SHELL, repository);
      assert.equal(outcome.fixed, true, outcome.note);
      assert.ok(after.includes(`    return ${call}\n`), after);
    }
  });
  test('a statement keeping a table name: an f-string on Python 3.6 and later, str.format() where CI tests on Python 2.7; the command list likewise', async () => {
    const view = 'def show(request):\n    table = User._meta.db_table\n    return User.objects.raw("SELECT * FROM %s WHERE id=\'%s\'" % (table, request.GET["id"]))\n';
    for (const [repository, statement] of [
      [{ 'requirements.txt': 'Django==3.2\n' }, `User.objects.raw(f"SELECT * FROM {table} WHERE id=%s", [request.GET["id"]])`],
      [{ 'requirements.txt': 'Django==1.11\n', '.travis.yml': 'language: python\npython: 2.7\n' }, `User.objects.raw("SELECT * FROM {} WHERE id=%s".format(table), [request.GET["id"]])`],
    ] as [Record<string, string>, string][]) {
      const { outcome, after } = await run('views.py', view, 'python.lang.sqli.string-built-query', repository);
      assert.equal(outcome.fixed, true, outcome.note);
      assert.ok(after.includes(`    return ${statement}\n`), after);
    }
    const { outcome, after } = await run('app.py', flask('import os\n\n@app.route("/p")\ndef p():\n    os.system("ping -c 1 " + request.args["host"] + ".example.org")\n    return "ok"\n'), SHELL, { '.travis.yml': 'python: "2.7"\n' });
    assert.equal(outcome.fixed, true, outcome.note);
    assert.ok(after.includes('subprocess.call(["ping", "-c", "1", "--", "{}.example.org".format(request.args["host"])])'), after);
  });
  test('a random token on Python 2 → random.SystemRandom(), as there is no secrets module', () =>
    fixes('tokens.py', 'import random\nreset_token = "".join(random.choice(alphabet) for _ in range(20))\n', 'python.lang.crypto.insecure-random',
      'import random\nreset_token = "".join(random.SystemRandom().choice(alphabet) for _ in range(20))\n', { 'runtime.txt': 'python-2.7.18\n' }, /no secrets module/));
  test('HTML escaped outside a framework on Python 2 → cgi.escape(…, True), as there is no html module', () =>
    fixes('cgi_app.py', 'import os\nname = os.environ["QUERY_STRING"]\nprint "Content-Type: text/html"\nprint\nprint "<p>Hello " + name + "</p>"\n', XSS,
      'import cgi\nimport os\nname = os.environ["QUERY_STRING"]\nprint "Content-Type: text/html"\nprint\nprint "<p>Hello " + cgi.escape(str(name), True) + "</p>"\n'));
  test('HTML escaped outside a framework in code declared for Python 2 and 3 → html.escape where it exists, else cgi.escape', () =>
    fixes('cgi_app.py', 'import os\nname = os.environ["QUERY_STRING"]\nprint("<p>Hello " + name + "</p>")\n', XSS,
      'import os\ntry:\n    from html import escape as escape_html\nexcept ImportError:  # Python 2\n    from cgi import escape as escape_html\nname = os.environ["QUERY_STRING"]\nprint("<p>Hello " + escape_html(str(name), True) + "</p>")\n',
      { 'setup.py': 'from setuptools import setup\nsetup(name="app", classifiers=["Programming Language :: Python :: 2.7", "Programming Language :: Python :: 3.6"])\n' }));
});

describe('autoescape turned on for the templates the environment renders', () => {
  const AUTOESCAPE = 'python.lang.templates.autoescape-disabled';
  const env = (loader: string) => `from jinja2 import Environment, FileSystemLoader, PackageLoader\n\nenv = Environment(loader=${loader}, autoescape=False)\n`;
  const withSelect = (loader: string, call: string) => `from jinja2 import Environment, FileSystemLoader, PackageLoader\nfrom jinja2 import select_autoescape\n\nenv = Environment(loader=${loader}, autoescape=${call})\n`;
  test('.html templates → select_autoescape(), imported; the note says trusted HTML must now be marked |safe or Markup', () =>
    fixes('web/app.py', env('FileSystemLoader("templates")'), AUTOESCAPE, withSelect('FileSystemLoader("templates")', 'select_autoescape()'),
      { 'web/templates/index.html': '<h1>{{ title }}</h1>\n' }, /select_autoescape\(\).*\.html, \.htm, \.xml.*\|safe.*Markup/));
  test('HTML templates named .jinja2 (which select_autoescape() alone would leave unescaped) → their suffix is added', () =>
    fixes('shop/app.py', env('PackageLoader("shop", "templates")'), AUTOESCAPE, withSelect('PackageLoader("shop", "templates")', 'select_autoescape(["html", "htm", "xml", "jinja2"])'),
      { 'shop/templates/base.jinja2': '<html><body>{% block body %}{% endblock %}</body></html>\n', 'shop/templates/mail.txt': 'Hello {{ name }}\n' }));
  test('a module imported whole → jinja2.select_autoescape(), nothing imported', () =>
    fixes('app.py', 'import jinja2\n\nenv = jinja2.Environment(loader=jinja2.FileSystemLoader("templates"), autoescape=False)\n', AUTOESCAPE,
      'import jinja2\n\nenv = jinja2.Environment(loader=jinja2.FileSystemLoader("templates"), autoescape=jinja2.select_autoescape())\n', { 'templates/a.html': '<p>{{ a }}</p>\n' }));
  test('a Jinja2 older than 2.9 (no select_autoescape) → True, and the note says text templates are escaped too', () =>
    fixes('app.py', env('FileSystemLoader("templates")'), AUTOESCAPE, env('FileSystemLoader("templates")').replace('autoescape=False', 'autoescape=True'),
      { 'requirements.txt': 'Jinja2==2.8\n' }, /older than 2\.9.*text templates included/));
  test('refused: an environment whose templates are all text (.sql, .txt), or a NativeEnvironment', async () => {
    await refuses('reports.py', env('FileSystemLoader("queries")'), AUTOESCAPE, /\.sql, \.txt in queries\) are not HTML/,
      { 'queries/daily.sql': 'SELECT * FROM sales WHERE day = {{ day }}\n', 'queries/readme.txt': 'Queries\n' });
    await refuses('calc.py', 'from jinja2.nativetypes import NativeEnvironment\n\nenv = NativeEnvironment(autoescape=False)\n', AUTOESCAPE, /renders Python values/);
  });
});

describe('ALLOWED_HOSTS = ["*"] → host names from a required environment variable', () => {
  const HOSTS = 'python.django.config.allowed-hosts-any';
  const required = (name: string, identifier: string, parse: string) =>
    `${identifier} = os.environ.get("${name}")\nif not ${identifier}:\n    raise RuntimeError("Set the environment variable ${name}: the app reads the host names the site is served under from it")\nALLOWED_HOSTS = ${parse}\n`;
  test('DJANGO_ALLOWED_HOSTS, comma-separated; the notes say to list it in .env.example and the compose service, which stay shared; the settings stop without it', async () => {
    const file = 'mysite/settings.py';
    const vulnerable = 'from pathlib import Path\n\nDEBUG = False\nALLOWED_HOSTS = ["*"]\n';
    const workspace = workTree({ [file]: vulnerable, 'docker-compose.yml': 'services:\n  web:\n    build: .\n    environment:\n      - DEBUG=0\n' });
    const match = analyzeSource(rules, 'python', vulnerable).find((m) => m.rule.id === HOSTS)!;
    const finding: FixFinding = { id: 'f1', scanType: 'semgrep_scan', checkId: HOSTS, severity: 'low', title: null, message: '', filePath: file, startLine: match.startLine, endLine: match.endLine, cwe: [], metadata: {} };
    const outcome = await fixerFor(finding)!.apply(finding, workspace);
    assert.equal(outcome.fixed, true, outcome.note);
    const fixed = read(workspace, file);
    assert.equal(fixed, `import os\nfrom pathlib import Path\n\nDEBUG = False\n${required('DJANGO_ALLOWED_HOSTS', 'DJANGO_ALLOWED_HOSTS', '[host.strip() for host in DJANGO_ALLOWED_HOSTS.split(",") if host.strip()]')}`);
    assert.ok(!analyzeSource(rules, 'python', fixed).some((m) => m.rule.id === HOSTS), 'the rule no longer fires');
    // Files every fix of the repository shares are left to one writer: two fixes adding lines to one conflict.
    assert.deepEqual(outcome.changedFiles, [file]);
    assert.ok(!fs.existsSync(path.join(workspace.dir, '.env.example')));
    assert.equal(read(workspace, 'docker-compose.yml'), 'services:\n  web:\n    build: .\n    environment:\n      - DEBUG=0\n');
    assert.match(outcome.note, /comma-separated.*stops when it loads.*localhost,127\.0\.0\.1,\[::1\], the hosts Django allows by itself when DEBUG is on/);
    assert.match(outcome.userNotes!.join('\n'), /Set the environment variable DJANGO_ALLOWED_HOSTS wherever mysite\/settings\.py runs \(add `DJANGO_ALLOWED_HOSTS=` to \.env\.example and pass it to the app's services in docker-compose\.yml\)/);
    const settings = (hosts?: string) =>
      spawnSync('python3', ['-c', `exec(open(${JSON.stringify(path.join(workspace.dir, file))}).read()); print(ALLOWED_HOSTS)`], { encoding: 'utf8', env: { PATH: process.env.PATH, ...(hosts === undefined ? {} : { DJANGO_ALLOWED_HOSTS: hosts }) } });
    assert.equal(settings('example.com, www.example.com,').stdout, "['example.com', 'www.example.com']\n");
    assert.match(settings().stderr, /RuntimeError: Set the environment variable DJANGO_ALLOWED_HOSTS/);
    assert.notEqual(settings('').status, 0, 'an empty variable stops the settings too');
  });
  test('the variable the repository already reads for its hosts, split as it splits it (by spaces)', () =>
    fixes('mysite/settings/base.py', 'import os\n\nALLOWED_HOSTS = ["*"]\n', HOSTS,
      `import os\n\n${required('ALLOWED_HOSTS', 'ALLOWED_HOSTS_VALUE', 'ALLOWED_HOSTS_VALUE.split()')}`,
      { 'mysite/settings/production.py': 'import os\nALLOWED_HOSTS = os.environ.get("ALLOWED_HOSTS", "").split(" ")\n' }, /separated by spaces \(example\.com www\.example\.com\)/));
  test('refused: ALLOWED_HOSTS set in a settings class', () =>
    refuses('mysite/settings.py', 'from configurations import Configuration\n\nclass Prod(Configuration):\n    ALLOWED_HOSTS = ["*"]\n', HOSTS, /class body/));
});
