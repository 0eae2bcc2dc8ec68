// Credentials moved into configuration the application's own way: read where its framework reads
// settings, a missing variable stopping it at start with a message naming the variable, the repository's
// own variable names reused, one variable per value, one shared .env.example and the compose services
// listing them, and the fixes of one repository applying together in any order.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { detectSecrets } from '../../src/scanning/secrets/detector.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { maskSecret } from '../../src/scanning/secrets/text-checks.ts';
import { loadRuleSet } from '../../src/scanning/sast/rule-set.ts';
import { analyzeSource } from '../../src/scanning/sast/sast-engine.ts';
import { fixerFor } from '../../src/fixing/fixers/index.ts';
import { notACredential } from '../../src/fixing/fixers/secrets/secret-exemptions.ts';
import { parserFor } from '../../src/languages/index.ts';
import type { FixerOutcome, FixFinding, FixWorkspace } from '../../src/fixing/types.ts';
import { positiveSample } from '../support/secret-samples.ts';

const sample = (ruleId: string, seed: number) => positiveSample(SECRET_RULES.find((r) => r.id === ruleId)!, seed);
const GHP = sample('github-pat', 31);
const STRIPE = sample('stripe-secret-key', 32);
const rules = loadRuleSet();
const MISSING = (name: string) => `Set the environment variable ${name}: the app reads this credential from it`;

const roots: string[] = [];
after(() => roots.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=t@example.test', '-c', 'user.name=T', '-c', 'core.autocrlf=false', ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });

/** A git repository holding `files` in one commit. */
function repository(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-secrets-config-'));
  roots.push(dir);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  git(dir, 'init', '--quiet');
  git(dir, 'add', '--all');
  git(dir, 'commit', '--quiet', '-m', 'base');
  return dir;
}

/** A work tree of its own for one fix: a copy of the repository at its commit. */
function copyOf(dir: string): FixWorkspace {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-secrets-fix-'));
  roots.push(copy);
  fs.cpSync(dir, copy, { recursive: true });
  return { dir: copy, signal: new AbortController().signal, step: async () => {} };
}

const readIn = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), 'utf8');

/** The detector's finding for `secret` in the file, as a secrets scan records it. */
function detectorFinding(file: string, text: string, secret: string): FixFinding {
  const match = detectSecrets(text).find((m) => m.secret === secret);
  assert.ok(match, `the detector does not find the secret in ${file}`);
  return {
    id: `f-${file}-${match.startLine}`, scanType: 'secrets_scan', checkId: `secrets.${match.rule.id}`, severity: match.rule.severity, title: match.rule.title,
    message: 'committed', filePath: file, startLine: match.startLine, endLine: match.endLine, cwe: ['CWE-798'],
    metadata: { masked_secret: maskSecret(match.secret), secret_hash: 'h', rule: match.rule.id, source: 'tree' },
  };
}

/** The SAST credential rule's finding in the file. */
function ruleFinding(file: string, text: string, ruleId = 'python.lang.secrets.hardcoded-secret-key'): FixFinding {
  const match = analyzeSource(rules, parserFor(file)!, text).find((m) => m.rule.id === ruleId);
  assert.ok(match, `${ruleId} does not fire in ${file}`);
  return {
    id: `r-${file}`, scanType: 'semgrep_scan', checkId: ruleId, severity: 'high', title: null, message: match.rule.message,
    filePath: file, startLine: match.startLine, endLine: match.endLine, cwe: match.rule.cwe, metadata: {},
  };
}

/** Fixes one finding in its own copy of the repository; the outcome and the diff against the commit. */
async function fixApart(dir: string, finding: FixFinding): Promise<{ outcome: FixerOutcome; diff: string; workspace: FixWorkspace }> {
  const workspace = copyOf(dir);
  const outcome = await fixerFor(finding)!.apply(finding, workspace);
  assert.equal(outcome.fixed, true, outcome.note);
  git(workspace.dir, 'add', '--all');
  return { outcome, diff: git(workspace.dir, 'diff', '--cached', '--binary', 'HEAD'), workspace };
}

/** Applies the diffs in order to a fresh copy of the repository with plain `git apply`; the copy's folder. */
function applyAll(dir: string, diffs: string[]): string {
  const target = copyOf(dir).dir;
  for (const [i, diff] of diffs.entries()) {
    const patch = path.join(target, `..`, `${path.basename(target)}-${i}.patch`);
    fs.writeFileSync(patch, diff);
    try {
      git(target, 'apply', patch);
    } finally {
      fs.rmSync(patch, { force: true });
    }
  }
  return target;
}

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/PASSWORD|TOKEN|SECRET|_KEY$|_PAT$/.test(k)));
  const result = spawnSync(command, args, { cwd, env: { ...clean, ...env }, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('secrets fixer: configuration the application reads', () => {
  test('Flask on Python 2.7: a stand-in SECRET_KEY is the key in use and moves; the check is Python 2 and 3 code; a missing key stops start-up naming it (run by python3)', async () => {
    const app = 'from flask import Flask\n\napp = Flask(__name__)\napp.config["SECRET_KEY"] = "your-secret-key-here"\n\n\n@app.route("/")\ndef index():\n    return "ok"\n';
    const dir = repository({ 'Dockerfile': 'FROM python:2.7-slim\nCMD ["python", "app.py"]\n', 'requirements.txt': 'Flask==0.12.2\n', 'app.py': app });
    const { outcome, workspace } = await fixApart(dir, ruleFinding('app.py', app));
    const fixed = readIn(workspace.dir, 'app.py');
    assert.equal(
      fixed,
      'import os\nfrom flask import Flask\n\napp = Flask(__name__)\napp.config["SECRET_KEY"] = os.environ.get("SECRET_KEY")\n' +
        `if not app.config["SECRET_KEY"]:\n    raise RuntimeError("${MISSING('SECRET_KEY')}")\n\n\n@app.route("/")\ndef index():\n    return "ok"\n`,
    );
    assert.equal(readIn(workspace.dir, '.env.example'), 'SECRET_KEY=\n');
    assert.match(outcome.userNotes![0], /^The app now needs the environment variable SECRET_KEY: app\.py now stops when it loads, with an error naming SECRET_KEY/);
    // Only what Python 2.7 reads too: no f-strings, no keyword-only syntax, RuntimeError with one string.
    assert.doesNotMatch(fixed, /\bf["']|:=|\bnonlocal\b/);
    const stub = 'import sys, types\nflask = types.ModuleType("flask")\nclass Flask(object):\n    def __init__(self, name): self.config = {}\n    def route(self, path): return lambda f: f\nflask.Flask = Flask\nsys.modules["flask"] = flask\n';
    const missing = run('python3', ['-c', `${stub}import app`], workspace.dir);
    assert.notEqual(missing.status, 0);
    assert.match(missing.output, /RuntimeError: Set the environment variable SECRET_KEY/);
    const set = run('python3', ['-c', `${stub}import app\nprint(app.app.config["SECRET_KEY"])`], workspace.dir, { SECRET_KEY: 'k' });
    assert.equal(set.output.trim(), 'k');
  });

  test('Django: settings.py reads SECRET_KEY and checks it where Django reads settings', async () => {
    const settings = 'import os\n\nBASE_DIR = os.path.dirname(__file__)\nSECRET_KEY = "django-insecure-9x#k2!q7v@m4p8z&w1r5t3y6u0"\nDEBUG = False\nINSTALLED_APPS = []\n';
    const dir = repository({ 'manage.py': 'import os\nos.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")\n', 'shop/settings.py': settings, 'requirements.txt': 'Django==4.2.7\n' });
    const { workspace } = await fixApart(dir, ruleFinding('shop/settings.py', settings));
    assert.equal(
      readIn(workspace.dir, 'shop/settings.py'),
      `import os\n\nBASE_DIR = os.path.dirname(__file__)\nSECRET_KEY = os.environ.get("SECRET_KEY")\nif not SECRET_KEY:\n    raise RuntimeError("${MISSING('SECRET_KEY')}")\nDEBUG = False\nINSTALLED_APPS = []\n`,
    );
  });

  test('a password compared in a request handler is read and checked in the handler: an empty variable never lets an empty password in (run by python3)', async () => {
    const views = 'def login(form):\n    password = "Zq8#mVt2pLw9xRk4"\n    if form.get("password") == password:\n        return "welcome"\n    return "denied"\n';
    const dir = repository({ 'views.py': views });
    const { workspace } = await fixApart(dir, detectorFinding('views.py', views, 'Zq8#mVt2pLw9xRk4'));
    assert.equal(
      readIn(workspace.dir, 'views.py'),
      'import os\n\ndef login(form):\n    password = os.environ.get("PASSWORD")\n    if not password:\n' +
        `        raise RuntimeError("${MISSING('PASSWORD')}")\n    if form.get("password") == password:\n        return "welcome"\n    return "denied"\n`,
    );
    const call = 'import views\nprint(views.login({}))';
    assert.match(run('python3', ['-c', call], workspace.dir, { PASSWORD: '' }).output, /RuntimeError: Set the environment variable PASSWORD/);
    assert.equal(run('python3', ['-c', 'import views\nprint(views.login({"password": "s"}))'], workspace.dir, { PASSWORD: 's' }).output.trim(), 'welcome');
  });

  test('Express: the session secret is read and checked before the app is set up; a missing one stops start-up naming it (run by node)', async () => {
    const server = 'const session = (options) => options;\nconst app = { use() {} };\napp.use(session({ secret: "k8vQ2mZ7rTn4wLp9sBd3fHj6" }));\nconsole.log("started");\n';
    const dir = repository({ 'package.json': '{"dependencies":{"express":"^4.18.2","express-session":"^1.17.3"}}\n', 'server.js': server });
    const finding = detectorFinding('server.js', server, 'k8vQ2mZ7rTn4wLp9sBd3fHj6');
    const { workspace } = await fixApart(dir, finding);
    assert.equal(
      readIn(workspace.dir, 'server.js'),
      'const session = (options) => options;\nconst app = { use() {} };\nconst SECRET = process.env.SECRET;\n' +
        `if (!SECRET) throw new Error("${MISSING('SECRET')}");\napp.use(session({ secret: SECRET }));\nconsole.log("started");\n`,
    );
    const missing = run(process.execPath, ['server.js'], workspace.dir);
    assert.notEqual(missing.status, 0);
    assert.match(missing.output, /Error: Set the environment variable SECRET: the app reads this credential from it/);
    assert.equal(run(process.execPath, ['server.js'], workspace.dir, { SECRET: 's' }).output.trim(), 'started');
  });

  test("the repository's own variable is reused, never a second name for it; one value in two files is one variable", async () => {
    const auth = `SUPER_SECRET_TOKEN = "${GHP}"\n`;
    const client = `def call(api):\n    return api.get(token="${GHP}")\n`;
    const dir = repository({ 'services/worker.py': 'import os\nTOKEN = os.environ["SUPER_SECRET_TOKEN"]\n', 'app/auth.py': auth, 'app/client.py': client });
    const first = await fixApart(dir, detectorFinding('app/auth.py', auth, GHP));
    assert.match(readIn(first.workspace.dir, 'app/auth.py'), /^SUPER_SECRET_TOKEN = os\.environ\.get\("SUPER_SECRET_TOKEN"\)$/m);
    assert.deepEqual(first.outcome.changedFiles, ['app/auth.py', 'app/client.py', '.env.example'], 'one fix moves the value wherever it is');
    assert.match(readIn(first.workspace.dir, 'app/client.py'), /os\.environ\.get\("SUPER_SECRET_TOKEN"\)/, 'the value takes the name it has in app/auth.py, not TOKEN');
    assert.match(first.outcome.note, /The same value was committed in app\/client\.py too, and is read there from the same variable/);
    assert.equal(readIn(first.workspace.dir, '.env.example'), 'SUPER_SECRET_TOKEN=\n');
    const second = await fixApart(dir, detectorFinding('app/client.py', client, GHP));
    assert.match(readIn(second.workspace.dir, 'app/client.py'), /os\.environ\.get\("SUPER_SECRET_TOKEN"\)/);
    assert.doesNotMatch(`${first.diff}${second.diff}`, /SUPER_SECRET_TOKEN_2|"TOKEN"/);
  });

  test('two fixes of one repository: one shared .env.example and the compose service list every variable once, and the diffs apply together in either order', async () => {
    const a = `import os\n\nGITHUB_TOKEN = "${GHP}"\n`;
    const b = `import os\n\nSTRIPE_KEY = "${STRIPE}"\n`;
    const compose = 'services:\n  web:\n    build: .\n    environment:\n      - FLASK_ENV=production\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_DB: app\n';
    const dir = repository({ 'app/a.py': a, 'app/b.py': b, 'docker-compose.yml': compose });
    const first = await fixApart(dir, detectorFinding('app/a.py', a, GHP));
    const second = await fixApart(dir, detectorFinding('app/b.py', b, STRIPE));
    assert.deepEqual(first.outcome.changedFiles, ['app/a.py', '.env.example', 'docker-compose.yml'], 'the fix of the first credential lists every variable');
    assert.deepEqual(second.outcome.changedFiles, ['app/b.py']);
    assert.match(second.outcome.userNotes![0], /the fix of the credential in app\/a\.py line 3 lists every variable these fixes introduce in \.env\.example; if that fix is not merged, add `STRIPE_KEY=` there/);
    for (const order of [[first.diff, second.diff], [second.diff, first.diff]]) {
      const merged = applyAll(dir, order);
      assert.equal(readIn(merged, '.env.example'), 'GITHUB_TOKEN=\nSTRIPE_KEY=\n');
      assert.equal(readIn(merged, 'docker-compose.yml'), compose.replace('      - FLASK_ENV=production\n', '      - FLASK_ENV=production\n      - GITHUB_TOKEN=${GITHUB_TOKEN}\n      - STRIPE_KEY=${STRIPE_KEY}\n'), 'only the service built from the repository gets them');
      assert.match(readIn(merged, 'app/a.py'), /^GITHUB_TOKEN = os\.environ\.get\("GITHUB_TOKEN"\)$/m);
      assert.match(readIn(merged, 'app/b.py'), /^STRIPE_KEY = os\.environ\.get\("STRIPE_KEY"\)$/m);
    }
  });

  test('alternative configurations in one file: every copy moves in one fix, read once and checked once', async () => {
    const config = ['local', 'devel', 'docker']
      .map((name, i) => `var config_${name} = {\n    "db": { "server": "postgres://postgres:postgres@10.0.0.${i + 1}" }\n}\n`)
      .join('\n');
    const match = detectSecrets(config)[0];
    assert.ok(match, 'the detector reports the connection URL');
    const dir = repository({ 'config.js': `${config}module.exports = config_local;\n` });
    const { outcome, workspace } = await fixApart(dir, detectorFinding('config.js', `${config}module.exports = config_local;\n`, match.secret));
    const fixed = readIn(workspace.dir, 'config.js');
    assert.equal(fixed.match(/process\.env\.SERVER/g)?.length, 1, fixed);
    assert.equal(fixed.match(/"server": SERVER \}/g)?.length, 3, fixed);
    assert.doesNotMatch(fixed, /postgres:postgres/);
    assert.equal(run(process.execPath, ['-e', 'console.log(require("./config.js").db.server)'], workspace.dir, { SERVER: 'postgres://u@h' }).output.trim(), 'postgres://u@h');
    assert.ok(outcome.fixed);
  });

  test('fixes of two credentials of one file make the same change, whichever finding they start from', async () => {
    const seed = 'users = [\n    {"email": "a@corp.example", "password": "Adm1n-Pa55w0rd-2019!"},\n    {"email": "j@corp.example", "password": "Jx7-yankees-suck-42"},\n]\n';
    const dir = repository({ 'seed.py': seed });
    const first = await fixApart(dir, detectorFinding('seed.py', seed, 'Adm1n-Pa55w0rd-2019!'));
    const second = await fixApart(dir, detectorFinding('seed.py', seed, 'Jx7-yankees-suck-42'));
    assert.equal(second.diff, first.diff);
    assert.match(first.diff, /^\+A_PASSWORD = os\.environ\.get\("A_PASSWORD"\)$[\s\S]*^\+J_PASSWORD = os\.environ\.get\("J_PASSWORD"\)$/m);
  });

  test('an existing template is the one shared: the line is added to it, not to a new one', async () => {
    const a = `API_TOKEN = "${GHP}"\n`;
    const dir = repository({ 'svc/api.py': a, '.env.sample': 'PORT=8080\n' });
    const { outcome, workspace } = await fixApart(dir, detectorFinding('svc/api.py', a, GHP));
    assert.deepEqual(outcome.changedFiles, ['svc/api.py', '.env.sample']);
    assert.equal(readIn(workspace.dir, '.env.sample'), 'PORT=8080\nAPI_TOKEN=\n');
    assert.ok(!fs.existsSync(path.join(workspace.dir, '.env.example')));
  });
});

describe('secrets fixer: values that are no credential are left alone, with why', () => {
  const at = (text: string, value: string) => ({ rule: SECRET_RULES.find((r) => r.id === 'generic-secret-assignment')!, start: text.indexOf(value), end: text.indexOf(value) + value.length, startLine: 1 });
  const why = (file: string, text: string, value: string) => notACredential(file, text, at(text, value));

  test('a capture-the-flag flag, an expired token, a digest the code compares against, a placeholder in documentation', () => {
    assert.match(why('challenge.py', 'FLAG = "flag{sql_1nj3ct10n_m4st3r}"\n', 'flag{sql_1nj3ct10n_m4st3r}')!, /flag of a capture-the-flag exercise/);
    const expired = `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify({ sub: 'u', exp: 1_500_000_000 })).toString('base64url')}.c2lnbmF0dXJl`;
    assert.match(why('tests/fixtures.py', `TOKEN = "${expired}"\n`, expired)!, /expired on 2017-07-14/);
    const live = `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify({ sub: 'u' })).toString('base64url')}.c2lnbmF0dXJl`;
    assert.equal(why('app.py', `TOKEN = "${live}"\n`, live), null, 'a token without an expiry is a credential');
    const digest = '5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8';
    assert.match(why('auth.py', `if hashlib.sha256(p).hexdigest() == "${digest}":\n`, digest)!, /hash digest the code compares against/);
    assert.match(why('README.md', 'SECRET_KEY = "your-secret-key-here"\n', 'your-secret-key-here')!, /placeholder/);
  });

  test("passwords of user records written into one string are the app's data, not a credential it uses", async () => {
    const users = 'USERS_XML = """<users><user><name>admin</name><password>7en8aiDoh!x</password></user><user><name>dian</name><password>Qw3rty!9zz</password></user></users>"""\n';
    const found = detectSecrets(users).find((m) => m.secret.includes('7en8aiDoh'));
    assert.ok(found, 'the detector reports the first password');
    const dir = repository({ 'db.py': users });
    const workspace = copyOf(dir);
    const finding = detectorFinding('db.py', users, found.secret);
    const outcome = await fixerFor(finding)!.apply(finding, workspace);
    assert.equal(outcome.fixed, false);
    assert.match(outcome.note, /one of 2 passwords of user records written into one string, data of the app's accounts rather than a credential the code uses/);
    assert.equal(readIn(workspace.dir, 'db.py'), users);
  });

  test('a stand-in value the code signs with is the key in use', () => {
    assert.equal(why('app.py', 'app.config["SECRET_KEY"] = "your-secret-key-here"\n', 'your-secret-key-here'), null);
    assert.equal(why('app.py', 'app.secret_key = "changeme"\n', 'changeme'), null);
    assert.equal(why('server.js', 'app.use(session({ secret: "placeholder-secret" }));\n', 'placeholder-secret'), null);
    assert.match(why('client.py', 'API_URL = "https://example.test/<your-id>"\n', '<your-id>')!, /placeholder/);
  });
});
