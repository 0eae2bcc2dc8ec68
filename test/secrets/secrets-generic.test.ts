// The context detectors and decoders of the secrets engine: the generic assignment detector in config
// syntaxes, code and notebooks, judged by the key's name; connection strings; config files; Kubernetes
// Secret data and URL-encoded passwords. Each shape has true and false examples. Credentials are built
// at run time, so no credential-shaped literal lives in this file.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { detectSecrets } from '../../src/scanning/secrets/detector.ts';
import { isCredentialValue, isDottedIdentifier, isSecretName } from '../../src/scanning/secrets/generic.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { SecretsEngine } from '../../src/scanning/secrets/secrets-engine.ts';
import { positiveSample } from '../support/secret-samples.ts';

/** A human password: low entropy, but what people put beside `password`. */
const HUMAN = ['Tiger', '2020!'].join('');
const HUMAN2 = ['Sunny', 'Day', '77'].join('');
/** A generated-looking value, the same on every run. */
const random = (seed: string, length = 24) => crypto.createHash('sha256').update(seed).digest('base64').replace(/[+/=]/g, '').slice(0, length);
const hex64 = (seed: string) => crypto.createHash('sha256').update(seed).digest('hex');
const b64 = (text: string) => Buffer.from(text).toString('base64');

/** The secrets found in a text (as written) with their lines. */
function found(text: string, file?: string): string[] {
  return detectSecrets(text, file).map((m) => `${m.secret}@${m.startLine}`);
}

function assertFinds(text: string, secret: string, line: number, file?: string): void {
  assert.ok(found(text, file).includes(`${secret}@${line}`), `expected ${secret}@${line} in ${file ?? 'text'}:\n${text}\nfound ${found(text, file)}`);
}

function assertNone(text: string, file?: string): void {
  assert.deepEqual(found(text, file), [], `${file ?? 'text'}:\n${text}`);
}

describe('generic assignments', () => {
  test('unquoted values in .env, .properties, YAML, TOML, INI and Dockerfile ENV/ARG lines', () => {
    assertFinds(`# database\nDB_PASSWORD=${HUMAN}\n`, HUMAN, 2, '.env');
    assertFinds(`export DB_PASSWORD=${HUMAN}\n`, HUMAN, 1, 'deploy.sh');
    assertFinds(`db.url=jdbc:postgresql://db/app\ndb.password=${HUMAN}\n`, HUMAN, 2, 'application.properties');
    assertFinds(`database:\n  user: app\n  password: ${HUMAN}   # rotate\n`, HUMAN, 3, 'config.yml');
    assertFinds(`[database]\npassword = ${HUMAN}\n`, HUMAN, 2, 'config.ini');
    assertFinds(`[database]\npassword = "${HUMAN}"\n`, HUMAN, 2, 'config.toml');
    assertFinds(`FROM node:24\nENV DB_PASSWORD ${HUMAN}\n`, HUMAN, 2, 'Dockerfile');
    assertFinds(`FROM node:24\nARG DB_PASSWORD=${HUMAN}\n`, HUMAN, 2, 'Dockerfile');
    const token = random('env-token');
    assertFinds(`API_TOKEN=${token}\n`, token, 1, '.env');
    assertFinds(`// API_TOKEN=${token}\n`, token, 1, 'src/client.ts');
  });

  test('unquoted code is not a value: calls, variables, attributes, types, expressions', () => {
    for (const line of [
      'password = get_password()',
      'password = settings.DB_PASSWORD',
      'password = self._password',
      'token = tokens[0]',
      'password = password2',
      'password: Optional[str] = None',
      'token: string;',
      `apiToken: options?.apiToken`,
      'secret = os.environ["APP_SECRET"]',
    ]) {
      assertNone(line, 'app.py');
      assertNone(line, 'app.ts');
    }
    assertNone('password = Tiger2020', 'app.py', );
    assertNone('the password is stored in the vault', 'README.md');
    assertNone('ENV PATH /usr/local/bin', 'Dockerfile');
  });

  test('defaults of environment lookups: os.environ.get, os.getenv, process.env ||, ??', () => {
    assertFinds(`password = os.environ.get("DB_PASSWORD", "${HUMAN}")`, HUMAN, 1, 'app.py');
    assertFinds(`password = os.getenv('DB_PASSWORD', '${HUMAN}')`, HUMAN, 1, 'app.py');
    assertFinds(`SECRET_KEY = os.getenv("SECRET_KEY", default="${random('flask-default')}")`, random('flask-default'), 1, 'app.py');
    assertFinds(`const password = process.env.DB_PASSWORD || '${HUMAN}';`, HUMAN, 1, 'db.js');
    assertFinds(`const password = process.env.DB_PASSWORD ?? "${HUMAN}";`, HUMAN, 1, 'db.ts');
    assertNone('password = os.environ.get("DB_PASSWORD", "")', 'app.py');
    assertNone('password = os.getenv("DB_PASSWORD", "changeme")', 'app.py');
    assertNone('fields = ("password", "password_confirm")', 'forms.py');
    assertNone('check(password, "wrong-password-1")', 'test_login.py');
  });

  test('notebook and JSON sources with escaped quotes and line breaks', () => {
    const notebook = JSON.stringify({ cells: [{ cell_type: 'code', source: ['import db\n', `password = "${HUMAN}"\n`, `DB_TOKEN=${random('nb')}\n`] }] }, null, 1);
    const lines = notebook.split('\n');
    const at = (needle: string) => lines.findIndex((l) => l.includes(needle)) + 1;
    assertFinds(notebook, HUMAN, at(HUMAN), 'analysis.ipynb');
    assertFinds(notebook, random('nb'), at(random('nb')), 'analysis.ipynb');
    assertNone(JSON.stringify({ source: ['password = \"{{ password }}\"\n', 'password = \"<your-password>\"\n'] }, null, 1), 'x.ipynb');
  });

  test('a dotted identifier is words of letters joined by dots; a value with symbols, digits or entropy is not one', () => {
    for (const value of ['settings.SECRET', 'config.db.password', 'self._token', 'this.props.apiToken', 'os.environ']) {
      assert.ok(isDottedIdentifier(value), value);
      assertNone(`secret = "${value}"`);
    }
    for (const value of ['Tiger.2020!', 'abc.def.123', `${random('a', 10)}.${random('b', 12)}`, 'xQ7kPz.LmWv']) assert.ok(!isDottedIdentifier(value), value);
    const dotted = ['Tiger', '.2020!'].join('');
    assertFinds(`password = "${dotted}"`, dotted, 1);
    const token = `${random('tok-a', 14)}.atlasv1.${random('tok-b', 40)}`;
    assert.ok(found(`token = "${token}"`).length === 1, 'a dotted token');
  });

  test('parentheses: a Django key holds them; a call does not pass', () => {
    const django = ['django-insecure-', 'k(w)3x!@9z$-ab^&*_+=q8m(v)n1p2o3i4u5y6t7'].join('');
    assert.equal(detectSecrets(`SECRET_KEY = '${django}'`, 'settings.py').length, 1);
    const plain = ['j#8(q', ')x-4v!a@p9m_2k(s)w7e^r3t&y5u=i0o+z1'].join('');
    assertFinds(`SECRET_KEY = "${plain}"`, plain, 1, 'settings.py');
    assertNone('SECRET_KEY = "get_random_secret_key()"', 'settings.py');
    assertNone('token = "Token.objects.create(user)"', 'views.py');
    // a token shape a rule turned down (here a GitHub token whose checksum fails) is not taken as a password
    assertNone(`token: '${'ghp_PersonalAccessToken'}01245678900000000'`, 'README.md');
    assertNone('"access_token":"2YotnFZFEjr1zCsicMWpAA",', 'rfc6749.md');
    assertNone('h("label", {htmlFor: "password"}, "Password:"),w?h("code",null," ******")', 'bundle.js');
  });

  test('the key name lets a human password through; a token name does not lower the bar', () => {
    for (const key of ['password', 'DB_PASSWORD', 'passwd', 'pwd', 'db_pass', 'adminSecret', 'client_secret', 'mail.password']) {
      assertFinds(`${key} = "${HUMAN}"`, HUMAN, 1);
    }
    assertFinds(`spring:\n  mail:\n    password: ${HUMAN2}\n`, HUMAN2, 3, 'application.yaml');
    assertNone(`api_token = "${HUMAN}"`, undefined);
    assertNone(`'access_token': 'askfjh234as9sd8'`, 'oauth.py');
    assertNone(`name = "${HUMAN}"`);
    assertNone(`password_reset_url = "${HUMAN}"`);
    assertNone(`token_type = "${HUMAN}"`);
    assert.ok(isSecretName('spring.datasource.password') && isSecretName('_authToken') && isSecretName('X-API-KEY') && isSecretName('SECRET_KEY'));
    assert.ok(!isSecretName('password_hash') && !isSecretName('token_url') && !isSecretName('passenger') && !isSecretName('csrf_token'));
  });

  test('placeholders are rejected even beside a password key', () => {
    const placeholders = [
      'changeme', 'change_me_123', 'password', 'password123', 'Passw0rd!', 'secret123', '${DB_PASSWORD}', '$DB_PASSWORD', '%DB_PASSWORD%',
      '{{ db_password }}', '{{db_password}}', '<your-key>', '<password>', 'xxxxxxxxxx', '**********', 'your_password_here',
      'your-api-key', 'example123', 'dummy_value1', 'test1234', 'testing!23', 'admin123', 'aaaaaaaaaa', 'abababab12',
      'process.env.DB_PASSWORD', 'os.environ["X"]', 'getenv("X")', 'get_password()', 'config.db.password', 'none', 'null',
      '/run/secrets/db_password', './secrets/token.txt', 'secret.pem', 'user@example.com', '1234567890', '3600', '#/components/schemas/password',
      'vault:secret/data/db#password', 'arn:aws:secretsmanager:eu-west-1:1:secret:db',
    ];
    for (const value of placeholders) {
      assert.ok(!isCredentialValue(value, { key: 'password', quoted: true }), value);
      assertNone(`password = "${value}"`);
      assertNone(`DB_PASSWORD=${value}`, '.env');
    }
    for (const value of [HUMAN, HUMAN2, 'c0rrect-h0rse!', random('v', 16)]) assert.ok(isCredentialValue(value, { key: 'password', quoted: true }), value);
  });

  test('Django and Flask secret keys are found by secrets_scan', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-generic-'));
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const django = ['django-insecure-', '5y(8)k!w', '&x@2^m_q9p$z-v+3r=n7b*t(c)e4h1s6'].join('');
    const flask = hex64('flask');
    const flask2 = hex64('flask2');
    fs.mkdirSync(path.join(dir, 'mysite'));
    fs.writeFileSync(path.join(dir, 'mysite/settings.py'), `import os\n\nSECRET_KEY = '${django}'\nDEBUG = True\n`);
    fs.writeFileSync(path.join(dir, 'app.py'), `from flask import Flask\napp = Flask(__name__)\napp.secret_key = '${flask}'\napp.config['SECRET_KEY'] = "${flask2}"\n`);
    const findings = await new SecretsEngine({ historyDepth: 0, pool: null }).scan({ dir, fingerprintKey: Buffer.alloc(32, 3) });
    assert.deepEqual(findings.map((f) => `${f.filePath}:${f.startLine}`), ['app.py:3', 'app.py:4', 'mysite/settings.py:3']);
    for (const f of findings) assert.equal(f.metadata.location, 'tree');
    assertNone(`SECRET_KEY = os.environ["SECRET_KEY"]\napp.secret_key = os.urandom(24)\n`, 'app.py');
  });
});

describe('connection strings', () => {
  const pw = ['Tiger', '2020x'].join('');
  test('driver schemes, an empty user, brokers, SRV records, FTP, JDBC and ADO.NET', () => {
    for (const url of [
      `postgresql+psycopg2://app:${pw}@db.internal:5432/app`,
      `mysql+pymysql://app:${pw}@db.internal/app`,
      `redis://:${pw}@cache.internal:6379/0`,
      `amqp://app:${pw}@mq.internal:5672//`,
      `mongodb+srv://app:${pw}@cluster0.internal.net/db`,
      `ftp://bob:${pw}@files.internal/pub`,
    ]) assertFinds(`url = "${url}"`, pw, 1, 'settings.py');
    assertFinds(`jdbc.url=jdbc:mysql://db:3306/app?user=app&password=${pw}`, pw, 1, 'app.properties');
    assertFinds(`url: jdbc:sqlserver://db:1433;databaseName=app;user=sa;password=${pw};`, pw, 1, 'app.yaml');
    assertFinds(`{"Default": "Server=db;Database=app;User Id=sa;Password=${pw};"}`, pw, 1, 'appsettings.json');
    assertFinds(`conn = "Data Source=db;Initial Catalog=app;Uid=sa;Pwd=${pw};"`, pw, 1, 'Program.cs');
  });

  test('URL-encoded passwords are decoded before they are judged', () => {
    const encoded = ['Tiger', '%40', '2020', '%3A', 'x'].join('');
    assertFinds(`url = "mysql+pymysql://app:${encoded}@db.internal/app"`, encoded, 1);
    assertNone('url = "mysql+pymysql://app:%3Cpassword%3E@db.internal/app"');
    assertNone('url = "mysql+pymysql://app:%24%7BDB_PASSWORD%7D@db.internal/app"');
  });

  test('placeholders, variables and a password equal to the user are not reported', () => {
    for (const url of [
      'mysql+pymysql://app:${DB_PASSWORD}@db/app',
      'redis://:<password>@cache:6379',
      'amqp://guest:guest@localhost:5672//',
      'ftp://user:pass@ftp.internal/',
      'mysql+pymysql://root:root@db/app',
      'mongodb+srv://app:****@cluster0.net/db',
      'postgresql+psycopg2://app:{password}@db/app',
    ]) assertNone(`url = "${url}"`, 'settings.py');
    assertNone('Server=db;Database=app;User Id=sa;Password=${DB_PASSWORD};');
    assertNone('var text = "Please enter the password=";');
  });
});

describe('config files', () => {
  const pw = ['Tiger', '2020x'].join('');
  test('.netrc, .pgpass, .pypirc', () => {
    assertFinds(`machine api.internal.io\n  login bob\n  password ${pw}\n`, pw, 3, '.netrc');
    assertFinds(`machine api.internal.io login bob password ${pw}\n`, pw, 1, '.netrc');
    assertFinds(`# host:port:db:user:password\ndb.internal:5432:app:bob:${pw}\n`, pw, 2, '.pgpass');
    assertFinds(`[distutils]\nindex-servers = internal\n\n[internal]\nrepository = https://pypi.internal/\nusername = bob\npassword = ${pw}\n`, pw, 7, '.pypirc');
    assertNone('machine api.internal.io login bob password $NETRC_PASSWORD\n', '.netrc');
    assertNone('db.internal:5432:app:bob:*\n', '.pgpass');
    assertNone('db.internal:5432:app:bob:bob\n', '.pgpass');
    assertNone('[pypi]\nusername = __token__\npassword = <your-token>\n', '.pypirc');
  });

  test('.npmrc _auth, _authToken and _password', () => {
    const auth = b64(`bob:${pw}`);
    const password = b64(pw);
    const token = random('npmrc', 36);
    const npmrc = `registry=https://npm.internal/\n_auth=${auth}\n//npm.internal/:_authToken=${token}\n//npm.internal/:_password=${password}\n`;
    assertFinds(npmrc, auth, 2, '.npmrc');
    assertFinds(npmrc, token, 3, '.npmrc');
    assertFinds(npmrc, password, 4, '.npmrc');
    assertNone('//npm.internal/:_authToken=${NPM_TOKEN}\n_auth=${NPM_AUTH}\n', '.npmrc');
    // base64 is judged by what it holds: documentation's "not my real password" is not a credential
    assertNone(`//npm.internal/:_password=${b64('changeme')}\n`, '.npmrc');
    assertNone(`auth: '${b64('isaacs:not my real password')}'`, 'README.md');
    assertNone(`password: '${b64('not my real password')}'`, 'README.md');
  });

  test('Maven settings.xml, NuGet.Config, Spring datasource', () => {
    assertFinds(`<settings>\n  <servers>\n    <server>\n      <id>internal</id>\n      <username>bob</username>\n      <password>${pw}</password>\n    </server>\n  </servers>\n</settings>\n`, pw, 6, 'settings.xml');
    assertFinds(`<configuration>\n  <packageSourceCredentials>\n    <internal>\n      <add key="Username" value="bob" />\n      <add key="ClearTextPassword" value="${pw}" />\n    </internal>\n  </packageSourceCredentials>\n</configuration>\n`, pw, 5, 'NuGet.Config');
    assertFinds(`spring.datasource.url=jdbc:postgresql://db/app\nspring.datasource.password=${pw}\n`, pw, 2, 'application.properties');
    assertFinds(`spring:\n  datasource:\n    username: app\n    password: ${pw}\n`, pw, 4, 'application.yml');
    assertNone('<password>${env.MAVEN_PASSWORD}</password>', 'settings.xml');
    assertNone('<add key="Username" value="bob-the-builder-2" />', 'NuGet.Config');
    assertNone('spring.datasource.password=${DB_PASSWORD}\n', 'application.properties');
  });

  test('Terraform variable defaults for sensitive variables', () => {
    assertFinds(`variable "db_password" {\n  type    = string\n  default = "${pw}"\n}\n`, pw, 3, 'variables.tf');
    assertFinds(`variable "master" {\n  type      = string\n  default   = "${pw}"\n  sensitive = true\n}\n`, pw, 3, 'variables.tf');
    assertNone(`variable "region" {\n  type    = string\n  default = "eu-west-1a"\n}\n`, 'variables.tf');
    assertNone(`variable "db_password" {\n  type    = string\n  default = ""\n}\n`, 'variables.tf');
  });
});

describe('decoders', () => {
  const pw = ['Tiger', '2020x'].join('');
  test('Kubernetes Secret data is decoded and scanned under its key; the finding points at the encoded value', () => {
    const ghToken = positiveSample(SECRET_RULES.find((r) => r.id === 'github-pat')!, 401);
    const manifest = [
      'apiVersion: v1',
      'kind: Secret',
      'metadata:',
      '  name: app',
      'type: Opaque',
      'data:',
      `  username: ${b64('app')}`,
      `  password: ${b64(pw)}`,
      `  github-token: "${b64(ghToken)}"`,
      `  config.env: ${b64(`DB_HOST=db\nDB_PASSWORD=${pw}\n`)}`,
      `  ca.crt: ${b64('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n')}`,
      '',
    ].join('\n');
    const matches = detectSecrets(manifest, 'k8s/secret.yaml');
    assert.deepEqual(matches.map((m) => `${m.startLine}:${m.secret}`), [`8:${b64(pw)}`, `9:${b64(ghToken)}`, `10:${b64(`DB_HOST=db\nDB_PASSWORD=${pw}\n`)}`]);
    assert.ok(!matches.some((m) => m.secret.includes(pw) || m.secret.includes(ghToken)), 'the secret is the text as written');
  });

  test('a Secret written as JSON is decoded too', () => {
    const json = JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, data: { user: b64('app'), 'app.env': b64(`DB_PASSWORD=${pw}\n`) } }, null, 2);
    assert.deepEqual(found(json, 'secret.json'), [`${b64(`DB_PASSWORD=${pw}\n`)}@9`]);
    assertNone(JSON.stringify({ kind: 'Secret', data: { password: b64('changeme') } }, null, 2), 'secret.json');
  });

  test('block scalars, any key name, several documents, Lists and stringData; each at the line of its value', () => {
    const value = random('k8s-block', 20);
    const head = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ntype: Opaque\n';
    // `|` and `>-` block scalars: the base64 on the lines under the key (CRLF line ends too)
    assertFinds(`${head}data:\n  password: |\n    ${b64(value)}\n`, b64(value), 8, 'secret.yaml');
    assertFinds(`${head}data:\r\n  db_pass: >-\r\n    ${b64(value)}\r\n`.replace(/\n(?!$)/g, '\r\n').replace(/\r\r/g, '\r'), b64(value), 8, 'secret.yaml');
    // a key named anything: everything a Secret holds is secret, but a user name or host is not
    assertFinds(`${head}data:\n  username: ${b64('deploy')}\n  host: ${b64('db.internal.acme.io')}\n  extra: ${b64(value)}\n`, b64(value), 9, 'secret.yaml');
    assertFinds(`${head}stringData:\n  extra: ${value}\n`, value, 7, 'secret.yaml');
    assertFinds(`${head}stringData:\n  extra: |\n    ${value}\n`, value, 8, 'secret.yaml');
    // a second document, a List item
    const second = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  mode: fast\n---\n${head}data:\n  token: ${b64(value)}\n`;
    assertFinds(second, b64(value), 14, 'all.yaml');
    const list = `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: s\n  data:\n    api-key: ${b64(value)}\n`;
    assertFinds(list, b64(value), 9, 'list.yaml');
  });

  test('.dockerconfigjson and .dockercfg: base64 JSON whose auth is base64 user:password', () => {
    const value = random('k8s-docker', 20);
    const config = b64(JSON.stringify({ auths: { 'registry.acme.io': { auth: b64(`deploy:${value}`) } } }));
    const manifest = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: regcred\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: ${config}\n`;
    assert.deepEqual(found(manifest, 'regcred.yaml'), [`${config}@7`]);
    const cfg = b64(JSON.stringify({ 'registry.acme.io': { username: 'deploy', password: value, email: 'ci@acme.io' } }));
    assert.deepEqual(found(manifest.replace('dockerconfigjson', 'dockercfg').replace(config, cfg), 'regcred.yaml'), [`${cfg}@7`]);
    const placeholder = b64(JSON.stringify({ auths: { 'registry.acme.io': { auth: b64('deploy:${REGISTRY_PASSWORD}') } } }));
    assertNone(manifest.replace(config, placeholder), 'regcred.yaml');
  });

  test('placeholders under any key are not reported, in data or stringData', () => {
    const head = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\n';
    for (const placeholder of ['changeme', '${VAR}', '$VAR', '<your-key>', 'xxxxxxxxxxxx']) {
      assertNone(`${head}data:\n  extra: ${b64(placeholder)}\n  password: |\n    ${b64(placeholder)}\n`, 'secret.yaml');
      assertNone(`${head}stringData:\n  extra: "${placeholder}"\n`, 'secret.yaml');
    }
    assertNone(`${head}data:\n  DB_HOST: ${b64('db.internal')}\n  DB_PORT: ${b64('5432')}\n  DB_USER: ${b64('orders_app')}\n`, 'secret.yaml');
  });

  test('placeholders stay placeholders once decoded; other kinds are not decoded', () => {
    const secret = (value: string) => `apiVersion: v1\nkind: Secret\ndata:\n  password: ${b64(value)}\n`;
    assertNone(secret('changeme'), 'secret.yaml');
    assertNone(secret('${DB_PASSWORD}'), 'secret.yaml');
    assertNone(`apiVersion: v1\nkind: ConfigMap\ndata:\n  greeting: ${b64(`hello ${pw}`)}\n`, 'configmap.yaml');
  });
});
