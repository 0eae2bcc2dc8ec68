// The secrets fixer on real files in a temporary work tree: each language's environment lookup, the
// imports it needs, the config formats that interpolate, and the files it must leave alone. Secrets
// are generated from the detector's own rule samples, so the detector finds exactly what a scan would.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { detectSecrets } from '../../src/scanning/secrets/detector.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { maskSecret } from '../../src/scanning/secrets/text-checks.ts';
import { fixerFor } from '../../src/fixing/fixers/index.ts';
import { secretFixer } from '../../src/fixing/fixers/secrets/secret-fixer.ts';
import type { FixerOutcome, FixFinding } from '../../src/fixing/types.ts';
import { positiveSample } from '../support/secret-samples.ts';
import { read, workTree } from '../support/fix-workspace.ts';

const sample = (ruleId: string, seed: number) => positiveSample(SECRET_RULES.find((r) => r.id === ruleId)!, seed);
const GHP = sample('github-pat', 11);
const GHP2 = sample('github-pat', 12);
const STRIPE = sample('stripe-secret-key', 13);

const MISSING = (name: string) => `Set the environment variable ${name}: the app reads this credential from it`;
/** Python's check, after the read, that the variable was set: a missing one stops the code naming it. */
const pyCheck = (target: string, name: string, indent = '') => `${indent}if not ${target}:\n${indent}    raise RuntimeError("${MISSING(name)}")\n`;
const pyRead = (identifier: string, name: string, indent = '') => `${indent}${identifier} = os.environ.get("${name}")\n${pyCheck(identifier, name, indent)}`;
const jsCheck = (target: string, name: string) => `if (!${target}) throw new Error("${MISSING(name)}");\n`;
const jsRead = (identifier: string, name: string) => `const ${identifier} = process.env.${name};\n${jsCheck(identifier, name)}`;


/** The finding a scan of the file makes for `secret`, as the secrets engine records it. */
function findingFor(file: string, text: string, secret: string, source: 'tree' | 'history' = 'tree'): FixFinding {
  const match = detectSecrets(text).find((m) => m.secret === secret);
  assert.ok(match, `the detector does not find the secret in ${file}`);
  return {
    id: `f-${file}-${match.startLine}`,
    scanType: 'secrets_scan',
    checkId: `secrets.${match.rule.id}`,
    severity: match.rule.severity,
    title: match.rule.title,
    message: `${match.rule.title} (${maskSecret(match.secret)}) is committed in ${file}.`,
    filePath: file,
    startLine: match.startLine,
    endLine: match.endLine,
    cwe: ['CWE-798: Use of Hard-coded Credentials'],
    metadata: { masked_secret: maskSecret(match.secret), secret_hash: 'h', rule: match.rule.id, source },
  };
}

/** Writes one file, fixes its secret and returns the outcome and the file afterwards. */
async function fix(file: string, text: string, secret = GHP): Promise<{ outcome: FixerOutcome; after: string }> {
  const workspace = workTree({ [file]: text });
  const outcome = await secretFixer.apply(findingFor(file, text, secret), workspace);
  assert.ok(!outcome.note.includes(secret), 'a note never shows the secret');
  return { outcome, after: read(workspace, file) };
}

async function fixed(file: string, text: string, expected: string, secret = GHP): Promise<FixerOutcome> {
  const { outcome, after } = await fix(file, text, secret);
  assert.equal(after, expected);
  assert.equal(outcome.fixed, true, outcome.note);
  assert.equal(outcome.changedFiles[0], file);
  assert.deepEqual(outcome.changedFiles.slice(1), outcome.userNotes?.some((n) => /^(?:Set|The app now needs) the environment variable/.test(n)) ? ['.env.example'] : []);
  return outcome;
}

async function refused(file: string, text: string, secret = GHP): Promise<string> {
  const { outcome, after } = await fix(file, text, secret);
  assert.equal(after, text, 'a refused fix leaves the file as it was');
  assert.deepEqual({ fixed: outcome.fixed, changedFiles: outcome.changedFiles }, { fixed: false, changedFiles: [] });
  return outcome.note;
}

describe('secrets fixer: Python', () => {
  test('an assignment reads os.environ, with `import os` added after the docstring and __future__ imports', async () => {
    const outcome = await fixed(
      'app/settings.py',
      `"""Settings."""\nfrom __future__ import annotations\n\nimport sys\n\nGITHUB_TOKEN = "${GHP}"\n`,
      `"""Settings."""\nfrom __future__ import annotations\n\nimport os\nimport sys\n\nGITHUB_TOKEN = os.environ.get("GITHUB_TOKEN")\n${pyCheck('GITHUB_TOKEN', 'GITHUB_TOKEN')}`,
    );
    assert.equal(
      outcome.note,
      'The GitHub personal access token in app/settings.py is now read from the environment variable GITHUB_TOKEN (os.environ.get("GITHUB_TOKEN")), ' +
        'checked so that the code stops with an error naming it when it is unset or empty; revoke the exposed value, since it stays in the git history',
    );
    assert.equal(
      outcome.userNotes![0],
      'The app now needs the environment variable GITHUB_TOKEN: app/settings.py now stops when it loads, with an error naming GITHUB_TOKEN, if the variable is unset or empty. ' +
        'Set it wherever app/settings.py runs (listed without a value in .env.example)',
    );
  });

  test('a module that starts with code gets the import and a blank line before it', async () => {
    await fixed('a.py', `aws_secret = '${GHP}'\n`, `import os\n\naws_secret = os.environ.get("AWS_SECRET")\n${pyCheck('aws_secret', 'AWS_SECRET')}`);
  });

  test('an existing `import os` (or `import os.path`) is used as it is; a value inside an expression is read and checked just before it', async () => {
    await fixed('a.py', `import os.path\nd = {"api_key": "${GHP}"}\n`, `import os.path\n${pyRead('API_KEY', 'API_KEY')}d = {"api_key": API_KEY}\n`);
  });

  test('names come from keyword arguments, subscripts and attributes', async () => {
    await fixed('a.py', `import os\ng = Github(login_or_token="${GHP}")\n`, `import os\n${pyRead('LOGIN_OR_TOKEN', 'LOGIN_OR_TOKEN')}g = Github(login_or_token=LOGIN_OR_TOKEN)\n`);
    await fixed('b.py', `import os\napp.config["GH_TOKEN"] = "${GHP}"\n`, `import os\napp.config["GH_TOKEN"] = os.environ.get("GH_TOKEN")\n${pyCheck('app.config["GH_TOKEN"]', 'GH_TOKEN')}`);
    await fixed(
      'c.py',
      `import os\nclass C:\n    def __init__(self):\n        self.apiToken = "${GHP}"\n`,
      `import os\nclass C:\n    def __init__(self):\n        self.apiToken = os.environ.get("API_TOKEN")\n${pyCheck('self.apiToken', 'API_TOKEN', '        ')}`,
    );
  });

  test('a value with no name to go by is named after the rule', async () => {
    await fixed('a.py', `import os\nconnect("${GHP}")\n`, `import os\n${pyRead('GITHUB_PAT', 'GITHUB_PAT')}connect(GITHUB_PAT)\n`);
  });

  test('a hard-coded default of an environment lookup goes, the lookup stays', async () => {
    await fixed('a.py', `import os\nTOKEN = os.environ.get("GH_TOKEN", "${GHP}")\n`, `import os\nTOKEN = os.environ.get("GH_TOKEN")\n${pyCheck('TOKEN', 'GH_TOKEN')}`);
    await fixed('b.py', `import os\nTOKEN = os.getenv("GH_TOKEN") or "${GHP}"\n`, `import os\nTOKEN = os.getenv("GH_TOKEN")\n${pyCheck('TOKEN', 'GH_TOKEN')}`);
  });

  test('bytes stay bytes, and literals written next to each other are replaced together', async () => {
    await fixed('a.py', `import os\nKEY = b"${GHP}"\n`, `import os\nKEY = os.environ.get("KEY", "").encode()\n${pyCheck('KEY', 'KEY')}`);
    await fixed('b.py', `import os\nAUTH = ("Bearer "\n        "${GHP}")\n`, `import os\n${pyRead('AUTH_VALUE', 'AUTH')}AUTH = ("Bearer "\n        + AUTH_VALUE)\n`);
  });

  test('a secret in a comment or a docstring is redacted', async () => {
    await fixed('a.py', `# old token: ${GHP}\nx = 1\n`, `# old token: <redacted>\nx = 1\n`);
    await fixed('b.py', `def f():\n    """Call with ${GHP}."""\n`, `def f():\n    """Call with <redacted>."""\n`);
  });

  test('a secret inside an f-string is cut out of it, keeping the interpolation around it', async () => {
    await fixed('a.py', `def url(path):\n    return f"https://api/{path}?access_token=${GHP}&x=1"\n`,
      `import os\n\ndef url(path):\n${pyRead('access_token_value', 'ACCESS_TOKEN', '    ')}    return f"https://api/{path}?access_token=" + access_token_value + f"&x=1"\n`);
  });
});

/** Runs a Python snippet with the given environment; returns its exit code and output. */
function runPython(dir: string, code: string, env: Record<string, string> = {}): { status: number | null; output: string } {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/PASSWORD|TOKEN|SECRET|_KEY$|_PAT$/.test(k)));
  const run = spawnSync('python3', ['-c', code], { cwd: dir, env: { ...clean, ...env }, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('secrets fixer: fixes that keep the app running', () => {
  const PASSWORDS = ['Adm1n-Pa55w0rd-2019!', 'Jx7-yankees-suck-42', 'Zq8#mVt2pLw9xRk4'];
  const SEED_PY =
    `users = [\n` +
    `    {"email": "admin@corp.example", "password": "${PASSWORDS[0]}"},\n` +
    `    {"email": "jack@corp.example", "password": "${PASSWORDS[1]}"},\n` +
    `]\n\n\ndef connect(db):\n    return db.connect(user="app", password="${PASSWORDS[2]}")\n`;

  async function fixAll(file: string, text: string, secrets: string[], extra: Record<string, string> = {}) {
    const workspace = workTree({ [file]: text, ...extra });
    const outcomes: FixerOutcome[] = [];
    for (const secret of secrets) outcomes.push(await secretFixer.apply(findingFor(file, text, secret), workspace));
    return { workspace, outcomes, after: read(workspace, file) };
  }

  test('distinct values get distinct names from what tells them apart, never one name for two values', async () => {
    const { workspace, outcomes, after } = await fixAll('app/seed.py', SEED_PY, PASSWORDS);
    assert.deepEqual(outcomes.map((o) => o.fixed), [true, true, true], outcomes.map((o) => o.note).join('\n'));
    assert.equal(
      after,
      `import os\n\n${pyRead('ADMIN_PASSWORD', 'ADMIN_PASSWORD')}${pyRead('JACK_PASSWORD', 'JACK_PASSWORD')}users = [\n` +
        `    {"email": "admin@corp.example", "password": ADMIN_PASSWORD},\n    {"email": "jack@corp.example", "password": JACK_PASSWORD},\n]\n\n\n` +
        `def connect(db):\n${pyRead('app_password', 'APP_PASSWORD', '    ')}    return db.connect(user="app", password=app_password)\n`,
    );
    assert.equal(read(workspace, '.env.example'), 'ADMIN_PASSWORD=\nAPP_PASSWORD=\nJACK_PASSWORD=\n');
    const atLoad = (name: string) =>
      `The app now needs the environment variable ${name}: app/seed.py now stops when it loads, with an error naming ${name}, if the variable is unset or empty. ` +
      'Set it wherever app/seed.py runs (listed without a value in .env.example)';
    assert.deepEqual(outcomes[0].userNotes, [
      atLoad('ADMIN_PASSWORD'),
      atLoad('JACK_PASSWORD'),
      'The app now needs the environment variable APP_PASSWORD: connect() in app/seed.py now raises an error naming APP_PASSWORD when it runs with the variable unset or empty. ' +
        'Set it wherever app/seed.py runs (listed without a value in .env.example)',
      'Rotate the Hard-coded password or secret that was committed in app/seed.py: it stays readable in the git history',
    ]);
    assert.deepEqual(outcomes.slice(1).map((o) => o.changedFiles), [[], []], "the file's other credentials moved with the first");
  });

  test('a constant keeps its own name beside one that ends like it (API_KEY beside MAIL_API_KEY)', async () => {
    const values = ['Xk8vQ2mZ7rTn4wLp9sBd3fHj6yCg1eUa', 'Pq3nR8tY5uWz2xVb7cMk4dLs9fGh6jKe'];
    const settings = `import os\n\nMAIL_API_KEY = '${values[0]}'\nDEBUG = True\nAPI_KEY = '${values[1]}'\n`;
    const { outcomes, after } = await fixAll('site/settings.py', settings, values);
    assert.deepEqual(outcomes.map((o) => o.fixed), [true, true], outcomes.map((o) => o.note).join('\n'));
    assert.match(after, /^MAIL_API_KEY = os\.environ\.get\("MAIL_API_KEY"\)$/m);
    assert.match(after, /^API_KEY = os\.environ\.get\("API_KEY"\)$/m);
  });

  test('a fixed Python module stops at import naming a missing or empty variable, and a function using one stops naming it (run by python3)', async () => {
    const { workspace } = await fixAll('app/seed.py', SEED_PY, PASSWORDS);
    fs.writeFileSync(path.join(workspace.dir, 'app', '__init__.py'), '');
    const unset = runPython(workspace.dir, 'import app.seed');
    assert.notEqual(unset.status, 0);
    assert.match(unset.output, /RuntimeError: Set the environment variable ADMIN_PASSWORD: the app reads this credential from it/);
    const empty = runPython(workspace.dir, 'import app.seed', { ADMIN_PASSWORD: '', JACK_PASSWORD: 'j' });
    assert.match(empty.output, /RuntimeError: Set the environment variable ADMIN_PASSWORD/, 'an empty value is as missing as an unset one');
    const loads = { ADMIN_PASSWORD: 'a', JACK_PASSWORD: 'j' };
    const imported = runPython(workspace.dir, 'import app.seed; print(app.seed.users[0]["password"])', loads);
    assert.equal(imported.output.trim(), 'a', imported.output);
    const used = runPython(workspace.dir, 'import app.seed\nclass Db:\n    def connect(self, **kw): return kw\napp.seed.connect(Db())', loads);
    assert.notEqual(used.status, 0);
    assert.match(used.output, /RuntimeError: Set the environment variable APP_PASSWORD/);
    const set = runPython(workspace.dir, 'import app.seed\nclass Db:\n    def connect(self, **kw): return kw["password"]\nprint(app.seed.connect(Db()))', { ...loads, APP_PASSWORD: 'from-env' });
    assert.equal(set.output.trim(), 'from-env');
  });

  test('a token inside a multi-line GraphQL query: only the token is replaced, and the query still reads the same (run by python3)', async () => {
    const text = `QUERY = """\nquery {\n  viewer(token: "${GHP}") { login }\n}\n"""\n`;
    const { outcomes, after, workspace } = await fixAll('gql.py', text, [GHP]);
    assert.equal(outcomes[0].fixed, true, outcomes[0].note);
    assert.equal(after, `import os\n\n${pyRead('GITHUB_PAT', 'GITHUB_PAT')}QUERY = """\nquery {\n  viewer(token: \\"""" + GITHUB_PAT + """") { login }\n}\n"""\n`);
    const run = runPython(workspace.dir, 'import gql; print(gql.QUERY)', { GITHUB_PAT: 'T0KEN' });
    assert.equal(run.output, `\nquery {\n  viewer(token: "T0KEN") { login }\n}\n\n`);
  });

  test('JavaScript: a template literal takes the lookup in, a header string keeps its scheme', async () => {
    await fixed('server/api.js', `const q = \`{ viewer(token: "${GHP}") { login } }\`;\n`, `${jsRead('GITHUB_PAT', 'GITHUB_PAT')}const q = \`{ viewer(token: "\${GITHUB_PAT}") { login } }\`;\n`);
    await fixed('server/h.js', `const headers = { Authorization: "Bearer ${GHP}" };\n`, `${jsRead('AUTHORIZATION', 'AUTHORIZATION')}const headers = { Authorization: "Bearer " + AUTHORIZATION };\n`);
  });

  test('the same value twice in a file is one variable', async () => {
    const { outcomes, after } = await fixAll('a.py', `def a():\n    return call(token="${GHP}")\n\ndef b():\n    return call(token="${GHP}")\n`, [GHP]);
    assert.equal(outcomes[0].fixed, true);
    const lookup = pyRead('token_value', 'TOKEN', '    ');
    assert.equal(after, `import os\n\ndef a():\n${lookup}    return call(token=token_value)\n\ndef b():\n${lookup}    return call(token=token_value)\n`);
  });

  test('Ruby reads with fetch, which raises naming a missing variable', async () => {
    await fixed('a.rb', `class C\n  def token\n    "${GHP}"\n  end\nend\n`, `class C\n  def token\n    ENV.fetch("GITHUB_PAT")\n  end\nend\n`);
  });

  test('code served to browsers is refused, with a note to move the credential server-side', async () => {
    const why = /served to browsers|browser code|<script> element/;
    assert.match(await refused('static/js/app.js', `const cookie = "session=${GHP}; path=/";\n`), why);
    assert.match(await refused('web/app.js', `fetch("/x", { headers: { Cookie: "${GHP}" } }).then(() => document.title = "x");\n`), why);
    const note = await refused('templates/index.html', `<html><script>\nconst token = "${GHP}";\n</script></html>\n`);
    assert.match(note, /<script> element of index\.html.*move the calls that need it to a server endpoint/);
    await fixed('server/app.js', `const express = require("express");\nconst token = "${GHP}";\n`, `const express = require("express");\nconst token = process.env.TOKEN;\n${jsCheck('token', 'TOKEN')}`);
  });

  test('values that are not credentials are left alone: digests compared by code, test fixtures, published examples', async () => {
    const digest = '5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8';
    assert.match(await refused('auth.py', `ADMIN_PASSWORD = "${digest}"  # sha256 of the admin password\n`, digest), /hash digest.*false positive/);
    assert.deepEqual(detectSecrets(`admin_password_hash = "${digest}"\n`), [], 'a digest named as one is not even reported');
    assert.match(await refused('tests/test_login.py', `password = "${PASSWORDS[2]}"\n`, PASSWORDS[2]), /test fixture/);
    const example = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const found = detectSecrets(`aws_secret_access_key = "${example}"\n`)[0];
    if (found) assert.match(await refused('cfg.py', `aws_secret_access_key = "${example}"\n`, found.secret), /published example/);
  });

  test('the nearest existing .env template gets the line; a present variable is not repeated', async () => {
    const { workspace } = await fixAll('svc/app.py', `def f():\n    return call(api_key="${GHP}")\n`, [GHP], { 'svc/.env.sample': 'PORT=8080\nexport API_KEY=\n', '.env.example': 'X=\n' });
    assert.equal(read(workspace, 'svc/.env.sample'), 'PORT=8080\nexport API_KEY=\n');
    const second = await fixAll('svc/b.py', `def f():\n    return call(stripe_key="${STRIPE}")\n`, [STRIPE], { 'svc/.env.sample': 'PORT=8080' });
    assert.equal(read(second.workspace, 'svc/.env.sample'), 'PORT=8080\nSTRIPE_KEY=\n');
    assert.deepEqual(second.outcomes[0].changedFiles, ['svc/b.py', 'svc/.env.sample']);
  });
});

describe('secrets fixer: JavaScript and TypeScript', () => {
  test('a declaration reads process.env', async () => {
    await fixed('web/pay.js', `const stripeKey = '${STRIPE}';\n`, `const stripeKey = process.env.STRIPE_KEY;\n${jsCheck('stripeKey', 'STRIPE_KEY')}`, STRIPE);
  });

  test('TypeScript reads into a checked constant, which keeps the string type', async () => {
    await fixed(
      'src/pay.ts',
      `export const client = new Stripe("${STRIPE}", { apiVersion: "2024-06-20" });\n`,
      `${jsRead('STRIPE_SECRET_KEY', 'STRIPE_SECRET_KEY')}export const client = new Stripe(STRIPE_SECRET_KEY, { apiVersion: "2024-06-20" });\n`,
      STRIPE,
    );
    await fixed('src/config.ts', `export const config = { githubToken: \`${GHP}\` };\n`, `${jsRead('GITHUB_TOKEN', 'GITHUB_TOKEN')}export const config = { githubToken: GITHUB_TOKEN };\n`);
    await fixed('src/key.ts', `export const jwtKey = "${GHP}";\n`, `${jsRead('JWT_KEY', 'JWT_KEY')}export const jwtKey = JWT_KEY;\n`);
  });

  test('a JSX attribute gets braces', async () => {
    await fixed('src/App.tsx', `export const A = () => <Client token="${GHP}" />;\n`, `${jsRead('TOKEN', 'TOKEN')}export const A = () => <Client token={TOKEN} />;\n`);
  });

  test('a fallback after an environment lookup goes', async () => {
    await fixed('a.js', `const token = process.env.GH_TOKEN || "${GHP}";\n`, `const token = process.env.GH_TOKEN;\n${jsCheck('token', 'GH_TOKEN')}`);
  });

  test('a string enum member is refused, since it must be a constant', async () => {
    const note = await refused('a.ts', `enum Tokens { Deploy = "${GHP}" }\n`);
    assert.match(note, /an enum member must be a constant/);
  });
});

describe('secrets fixer: Go, Java, Ruby, PHP, C#', () => {
  test('Go: a lone constant becomes a variable and "os" joins the imports in order', async () => {
    await fixed(
      'main.go',
      `package main\n\nimport (\n\t"fmt"\n\t"strings"\n)\n\nconst token = "${GHP}"\n\nfunc main() { fmt.Println(strings.ToUpper(token)) }\n`,
      `package main\n\nimport (\n\t"fmt"\n\t"os"\n\t"strings"\n)\n\nvar token = os.Getenv("TOKEN")\n\nfunc main() { fmt.Println(strings.ToUpper(token)) }\n`,
    );
  });

  test('Go: a file without imports gets one; a single import becomes a list; an alias is used', async () => {
    await fixed('a.go', `package a\n\nvar c = Client{Token: "${GHP}"}\n`, `package a\n\nimport "os"\n\nvar c = Client{Token: os.Getenv("TOKEN")}\n`);
    await fixed('b.go', `package b\n\nimport "fmt"\n\nvar key = fmt.Sprint("${GHP}")\n`, `package b\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nvar key = fmt.Sprint(os.Getenv("GITHUB_PAT"))\n`);
    await fixed('c.go', `package c\n\nimport sys "os"\n\nfunc f() { apiKey := "${GHP}"; use(apiKey) }\n`, `package c\n\nimport sys "os"\n\nfunc f() { apiKey := sys.Getenv("API_KEY"); use(apiKey) }\n`);
  });

  test('Go: a constant in a group is refused', async () => {
    const note = await refused('a.go', `package a\n\nconst (\n\tname = "app"\n\ttoken = "${GHP}"\n)\n`);
    assert.match(note, /group of Go constants/);
  });

  test('Java: System.getenv; an annotation argument is refused', async () => {
    await fixed('A.java', `class A {\n  private static final String API_TOKEN = "${GHP}";\n}\n`, `class A {\n  private static final String API_TOKEN = System.getenv("API_TOKEN");\n}\n`);
    const note = await refused('B.java', `class B {\n  @Token("${GHP}") void f() {}\n}\n`);
    assert.match(note, /annotation argument/);
  });

  test('Ruby: ENV.fetch, named by the attribute or the hash key', async () => {
    await fixed('a.rb', `Octokit.configure do |c|\n  c.access_token = "${GHP}"\nend\n`, `Octokit.configure do |c|\n  c.access_token = ENV.fetch("ACCESS_TOKEN")\nend\n`);
    await fixed('b.rb', `CLIENT = Client.new(token: '${GHP}')\n`, `CLIENT = Client.new(token: ENV.fetch("TOKEN"))\n`);
  });

  test('PHP: getenv, named by define() or the variable; a class constant is refused', async () => {
    await fixed('wp-config.php', `<?php\ndefine('GITHUB_TOKEN', '${GHP}');\n`, `<?php\ndefine('GITHUB_TOKEN', getenv('GITHUB_TOKEN'));\n`);
    await fixed('b.php', `<?php\n$apiKey = "${GHP}";\n`, `<?php\n$apiKey = getenv('API_KEY');\n`);
    const note = await refused('c.php', `<?php\nclass C { const TOKEN = '${GHP}'; }\n`);
    assert.match(note, /a PHP constant cannot call getenv\(\)/);
  });

  test('C#: a field constant becomes static readonly; System is spelled out where it is not imported', async () => {
    await fixed(
      'A.cs',
      `using System;\nclass A {\n  private const string Token = "${GHP}";\n}\n`,
      `using System;\nclass A {\n  private static readonly string Token = Environment.GetEnvironmentVariable("TOKEN");\n}\n`,
    );
    await fixed('B.cs', `class B {\n  var client = new Client(@"${GHP}");\n}\n`, `class B {\n  var client = new Client(System.Environment.GetEnvironmentVariable("GITHUB_PAT"));\n}\n`);
    const note = await refused('C.cs', `class C {\n  var s = $"{x}${GHP}";\n}\n`);
    assert.match(note, /interpolated or raw/);
  });
});

describe('secrets fixer: configuration and other files', () => {
  test('Compose: a value becomes ${NAME}, in the map and the list form of environment', async () => {
    await fixed(
      'docker-compose.yml',
      `services:\n  app:\n    environment:\n      GH_TOKEN: "${GHP}"\n      LOG_LEVEL: info\n`,
      `services:\n  app:\n    environment:\n      GH_TOKEN: "\${GH_TOKEN}"\n      LOG_LEVEL: info\n`,
    );
    await fixed('deploy/compose.yaml', `services:\n  app:\n    environment:\n      - GH_TOKEN=${GHP}\n`, `services:\n  app:\n    environment:\n      - GH_TOKEN=\${GH_TOKEN}\n`);
    await fixed('compose.override.yml', `services:\n  app:\n    environment: { GH_TOKEN: ${GHP} }\n`, `services:\n  app:\n    environment: { GH_TOKEN: "\${GH_TOKEN}" }\n`);
  });

  test('Spring: application files reference the property path as a variable', async () => {
    await fixed(
      'src/main/resources/application.yml',
      `github:\n  client:\n    token: ${GHP} # from the bot account\n`,
      `github:\n  client:\n    token: \${GITHUB_CLIENT_TOKEN} # from the bot account\n`,
    );
    await fixed('src/main/resources/application-prod.properties', `server.port=8080\ngithub.token = ${GHP}\n`, `server.port=8080\ngithub.token = \${GITHUB_TOKEN}\n`);
  });

  test('documentation and committed environment templates are redacted', async () => {
    await fixed('docs/setup.md', `Log in with \`${GHP}\`.\n`, `Log in with \`<redacted>\`.\n`);
    await fixed('.env.example', `GH_TOKEN=${GHP}\nPORT=8080\n`, `GH_TOKEN=<redacted>\nPORT=8080\n`);
  });

  test('an example in an OpenAPI or Swagger description is redacted; other values of the description are left alone', async () => {
    const spec = (value: string) =>
      `openapi: 3.0.1\npaths:\n  /login:\n    post:\n      responses:\n        '200':\n          content:\n            application/json:\n              schema:\n` +
      `                properties:\n                  auth_token:\n                    type: string\n                    example: '${value}'\n`;
    await fixed('openapi_specs/openapi3.yml', spec(GHP), spec('<redacted>'));
    const named = (value: string) => `swagger: "2.0"\nexamples:\n  bot:\n    summary: the bot's token\n    value: ${value}\n`;
    await fixed('api/swagger.yaml', named(GHP), named('<redacted>'));
    const json = (value: string) => `{\n  "openapi": "3.1.0",\n  "components": {\n    "schemas": {\n      "Login": { "properties": { "token": { "type": "string", "example": "${value}" } } }\n    }\n  }\n}\n`;
    await fixed('openapi.json', json(GHP), json('<redacted>'));
    assert.match(await refused('openapi.yml', `openapi: 3.0.1\nservers:\n  - url: https://api.example.test\ncomponents:\n  parameters:\n    token:\n      default: ${GHP}\n`), /openapi\.yml is a data file/);
    assert.match(await refused('config.yml', `example: ${GHP}\n`), /config\.yml is a data file/);
  });

  test('.env and data files are left alone, with what to do instead', async () => {
    assert.equal(
      await refused('.env', `GH_TOKEN=${GHP}\n`),
      'The GitHub personal access token in .env was left in place: .env holds the value for the environment itself; take the file out of the repository ' +
        '(list it in .gitignore) and keep the value in a secret store; revoke the exposed value, since it stays in the git history',
    );
    assert.match(await refused('config/app.json', `{ "token": "${GHP}" }\n`), /app\.json is a data file that cannot read the environment; move the value to a secret store/);
    assert.match(await refused('k8s/secret.yaml', `stringData:\n  token: ${GHP}\n`), /secret\.yaml is a data file/);
    assert.match(await refused('deploy.sh', `export GH_TOKEN=${GHP}\n`), /knows no way to read the environment in \.sh files/);
    const key = sample('private-key', 14);
    assert.match(await refused('deploy/id_rsa', `${key}\n`, detectSecrets(key)[0].secret), /id_rsa holds a private key; take it out of the repository/);
  });

  test('a secret only in the history cannot be fixed in the tree', async () => {
    const text = `TOKEN = "${GHP}"\n`;
    const workspace = workTree({ 'a.py': text });
    const outcome = await secretFixer.apply(findingFor('a.py', text, GHP, 'history'), workspace);
    assert.equal(outcome.fixed, false);
    assert.match(outcome.note, /only in the git history of a\.py.*revoke it, then rewrite the history/);
    assert.equal(read(workspace, 'a.py'), text);
  });
});

describe('secrets fixer: several findings and stale ones', () => {
  test("a fix of one credential of a file moves the file's others with it; their own fixes find nothing left", async () => {
    const text = `A_TOKEN = "${GHP}"\nB_TOKEN = "${GHP2}"\n`;
    const workspace = workTree({ 'a.py': text });
    const first = findingFor('a.py', text, GHP);
    const second = findingFor('a.py', text, GHP2);
    const outcome = await secretFixer.apply(first, workspace);
    assert.equal(outcome.fixed, true);
    assert.match(outcome.note, /The file's other committed credentials moved with it \(B_TOKEN\), so every fix of this file makes this one change/);
    assert.deepEqual(await secretFixer.apply(second, workspace), { fixed: true, changedFiles: [], note: 'The GitHub personal access token is no longer in a.py; nothing to change' });
    assert.equal(read(workspace, 'a.py'), `import os\n\nA_TOKEN = os.environ.get("A_TOKEN")\n${pyCheck('A_TOKEN', 'A_TOKEN')}B_TOKEN = os.environ.get("B_TOKEN")\n${pyCheck('B_TOKEN', 'B_TOKEN')}`);
    assert.equal(read(workspace, '.env.example'), 'A_TOKEN=\nB_TOKEN=\n');
  });

  test('a secret that is gone already needs no change', async () => {
    const text = `TOKEN = "${GHP}"\n`;
    const workspace = workTree({ 'a.py': 'TOKEN = None\n' });
    const outcome = await secretFixer.apply(findingFor('a.py', text, GHP), workspace);
    assert.deepEqual(outcome, { fixed: true, changedFiles: [], note: 'The GitHub personal access token is no longer in a.py; nothing to change' });
  });

  test('fixerFor picks the secrets fixer for the detector’s rules only, whatever scan reported them', () => {
    const finding = findingFor('a.py', `TOKEN = "${GHP}"\n`, GHP);
    assert.equal(fixerFor(finding)?.name, 'secrets');
    assert.equal(fixerFor({ ...finding, scanType: 'deep_ai_scan' })?.name, 'secrets');
    assert.equal(fixerFor({ ...finding, checkId: 'python.deep.crypto.plaintext-password-storage' }), undefined);
  });
});
