import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadSettings } from '../../src/config.ts';
import type { RawFinding } from '../../src/scanning/engine.ts';
import { defaultEngines } from '../../src/scanning/engines.ts';
import { detectSecrets } from '../../src/scanning/secrets/detector.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { SecretsEngine } from '../../src/scanning/secrets/secrets-engine.ts';
import { VerifyingSecretsEngine } from '../../src/scanning/secrets/verify/engine.ts';
import { providerHttp, Unanswered } from '../../src/scanning/secrets/verify/http.ts';
import { PROVIDERS } from '../../src/scanning/secrets/verify/providers.ts';
import { DEFAULT_VERIFY_URLS, secretsVerifyFromEnv, type SecretsVerifySettings } from '../../src/scanning/secrets/verify/settings.ts';
import { expectStatus, scanRepository } from '../support/helpers.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';
import { positiveSample } from '../support/secret-samples.ts';

// Live validity checks against loopback stand-ins of every provider: one server whose first path segment
// names the provider key (`/github/user`), answering as each test tells it.

interface Seen {
  key: string;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

class StandIn {
  readonly seen: Seen[] = [];
  answer: (seen: Seen) => Answer = () => ({ status: 200, body: '{}' });
  private server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const [, key = '', ...rest] = (req.url ?? '/').split('/');
      const seen = { key, method: req.method ?? '', path: '/' + rest.join('/'), headers: req.headers, body };
      this.seen.push(seen);
      const answer = this.answer(seen);
      if (answer === 'hang') return; // never answers; the check's timeout ends it
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body ?? '{}');
    });
  });
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Every provider key pointed here, under its own first path segment. */
  urls(): Record<string, string> {
    return Object.fromEntries(
      Object.keys(DEFAULT_VERIFY_URLS).map((key) => [
        key,
        key === 'azure_storage' ? `${this.url}/${key}/{account}` : key === 'shopify' ? `${this.url}/${key}/{shop}` : `${this.url}/${key}`,
      ]),
    );
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A file holding one provider's credential and what its check needs beside it. */
interface ProviderCase {
  provider: string;
  rule: string;
  file: string;
  /** The provider key(s) the stand-in should see, and the path of the first request. */
  path?: string;
  /** How the stand-in says "this credential is refused". */
  refusal?: { status: number; body?: string };
  /** Asserts the credential travelled as the provider expects. */
  carries?: (seen: Seen, secret: string) => void;
}

const bearerOf = (seen: Seen) => seen.headers.authorization?.replace(/^Bearer /, '');
const basicOf = (seen: Seen) => Buffer.from(seen.headers.authorization?.replace(/^Basic /, '') ?? '', 'base64').toString();

const CASES: ProviderCase[] = [
  {
    provider: 'aws',
    rule: 'aws-access-key-id',
    file: 'aws_access_key_id = <<aws-access-key-id>>\n<<aws-secret-access-key>>\n',
    path: '/',
    refusal: { status: 403, body: '<ErrorResponse><Error><Code>InvalidClientTokenId</Code></Error></ErrorResponse>' },
    carries: (seen) => {
      assert.equal(seen.method, 'POST');
      assert.match(seen.body, /Action=GetCallerIdentity/);
      assert.match(seen.headers.authorization ?? '', /^AWS4-HMAC-SHA256 Credential=AKIA[A-Z2-7]{16}\/\d{8}\/us-east-1\/sts\/aws4_request, SignedHeaders=[^,]*host[^,]*, Signature=[0-9a-f]{64}$/);
      assert.ok(seen.headers['x-amz-date']);
    },
  },
  { provider: 'github', rule: 'github-pat', file: 'token = "<<github-pat>>"\n', path: '/user', carries: (s, secret) => assert.equal(bearerOf(s), secret) },
  {
    provider: 'gitlab',
    rule: 'gitlab-pat',
    file: 'GITLAB_TOKEN=<<gitlab-pat>>\n',
    path: '/api/v4/personal_access_tokens/self',
    carries: (s, secret) => assert.equal(s.headers['private-token'], secret),
  },
  {
    provider: 'slack',
    rule: 'slack-bot-token',
    file: 'SLACK_BOT_TOKEN=<<slack-bot-token>>\n',
    path: '/api/auth.test',
    refusal: { status: 200, body: '{"ok":false,"error":"invalid_auth"}' },
    carries: (s, secret) => assert.equal(bearerOf(s), secret),
  },
  { provider: 'stripe', rule: 'stripe-secret-key', file: 'STRIPE_KEY=<<stripe-secret-key>>\n', path: '/v1/balance', carries: (s, secret) => assert.equal(bearerOf(s), secret) },
  { provider: 'openai', rule: 'openai-api-key', file: 'OPENAI_API_KEY=<<openai-api-key>>\n', path: '/v1/models', carries: (s, secret) => assert.equal(bearerOf(s), secret) },
  {
    provider: 'anthropic',
    rule: 'anthropic-api-key',
    file: 'ANTHROPIC_API_KEY=<<anthropic-api-key>>\n',
    path: '/v1/models',
    carries: (s, secret) => {
      assert.equal(s.headers['x-api-key'], secret);
      assert.equal(s.headers['anthropic-version'], '2023-06-01');
    },
  },
  { provider: 'sendgrid', rule: 'sendgrid-api-key', file: 'SENDGRID_API_KEY=<<sendgrid-api-key>>\n', path: '/v3/scopes', carries: (s, secret) => assert.equal(bearerOf(s), secret) },
  {
    provider: 'twilio',
    rule: 'twilio-auth-token',
    file: 'TWILIO_ACCOUNT_SID=AC0123456789abcdef0123456789abcdef\n<<twilio-auth-token>>\n',
    path: '/2010-04-01/Accounts/AC0123456789abcdef0123456789abcdef.json',
    carries: (s, secret) => assert.equal(basicOf(s), `AC0123456789abcdef0123456789abcdef:${secret}`),
  },
  { provider: 'npm', rule: 'npm-token', file: 'NPM_TOKEN=<<npm-token>>\n', path: '/-/whoami', carries: (s, secret) => assert.equal(bearerOf(s), secret) },
  {
    provider: 'dockerhub',
    rule: 'dockerhub-pat',
    file: 'DOCKERHUB_USERNAME=octocat\nDOCKERHUB_TOKEN=<<dockerhub-pat>>\n',
    path: '/v2/auth/token',
    carries: (s, secret) => assert.deepEqual(JSON.parse(s.body), { identifier: 'octocat', secret }),
  },
  {
    provider: 'datadog',
    rule: 'datadog-api-key',
    file: '<<datadog-api-key>>\n',
    path: '/api/v1/validate',
    refusal: { status: 403 },
    carries: (s, secret) => assert.equal(s.headers['dd-api-key'], secret),
  },
  {
    provider: 'google',
    rule: 'gcp-api-key',
    file: 'GOOGLE_API_KEY=<<gcp-api-key>>\n',
    path: '/language/translate/v2/languages',
    refusal: { status: 400, body: '{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","details":[{"reason":"API_KEY_INVALID"}]}}' },
    carries: (s, secret) => assert.equal(s.headers['x-goog-api-key'], secret),
  },
  {
    provider: 'azure_storage',
    rule: 'azure-storage-connection-string',
    file: 'AZURE_STORAGE="<<azure-storage-connection-string>>"\n',
    path: '/acct/?comp=list&maxresults=1',
    refusal: { status: 403, body: '{"code":"AuthenticationFailed"}' },
    carries: (s) => {
      assert.match(s.headers.authorization ?? '', /^SharedKey acct:[A-Za-z0-9+/]{43}=$/);
      assert.equal(s.headers['x-ms-version'], '2021-08-06');
    },
  },
  {
    provider: 'shopify',
    rule: 'shopify-access-token',
    file: 'SHOP_DOMAIN=acme-shop.myshopify.com\nSHOPIFY_TOKEN=<<shopify-access-token>>\n',
    path: '/acme-shop/admin/api/2024-10/shop.json',
    carries: (s, secret) => assert.equal(s.headers['x-shopify-access-token'], secret),
  },
  { provider: 'huggingface', rule: 'huggingface-token', file: 'HF_TOKEN=<<huggingface-token>>\n', path: '/api/whoami-v2', carries: (s, secret) => assert.equal(bearerOf(s), secret) },
  { provider: 'digitalocean', rule: 'digitalocean-token', file: 'DO_TOKEN=<<digitalocean-token>>\n', path: '/v2/account', carries: (s, secret) => assert.equal(bearerOf(s), secret) },
  {
    provider: 'heroku',
    rule: 'heroku-api-key',
    file: '<<heroku-api-key>>\n',
    path: '/account',
    carries: (s, secret) => {
      assert.equal(bearerOf(s), secret);
      assert.match(String(s.headers.accept), /vnd\.heroku\+json; version=3/);
    },
  },
  {
    provider: 'mailgun',
    rule: 'mailgun-api-key',
    file: '<<mailgun-api-key>>\n',
    path: '/v3/domains?limit=1',
    carries: (s, secret) => assert.equal(basicOf(s), `api:${secret}`),
  },
];

/**
 * A file template with each `<<rule-id>>` replaced by that rule's own positive sample (so the credentials
 * keep whatever shape and checksum the rules demand).
 */
function render(template: string, seed: number): string {
  return template.replace(/<<([a-z0-9-]+)>>/g, (_, id: string) => positiveSample(SECRET_RULES.find((r) => r.id === id)!, seed++));
}

/** The credential of a case's rule in its file, as the detector reads it. */
const secretOf = (c: ProviderCase, file: string) => detectSecrets(file).find((m) => m.rule.id === c.rule)!.secret;

function settingsFor(standIn: StandIn, overrides: Partial<SecretsVerifySettings> = {}): SecretsVerifySettings {
  return { enabled: true, timeoutMs: 300, budgetMs: 60_000, concurrency: 4, urls: standIn.urls(), ...overrides };
}

const tmpDirs: string[] = [];

/** The findings of a secrets scan (with checks) of a folder holding `files`. */
async function scanFiles(files: Record<string, string>, settings: SecretsVerifySettings): Promise<RawFinding[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-verify-'));
  tmpDirs.push(dir);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  const engine = new VerifyingSecretsEngine(new SecretsEngine({ historyDepth: 0, pool: null }), settings, null);
  return engine.scan({ dir, fingerprintKey: Buffer.alloc(32, 7) });
}

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** `bulwark scan DIR --type secrets …` in a child process (asynchronously: the stand-in answers from this one). */
async function cli(dir: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, 'scan', dir, ...args], {
      env: { ...process.env, BULWARK_SECRETS_HISTORY_DEPTH: '0', ...env },
      encoding: 'utf8',
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** The provider key a stand-in request went to, without a region suffix. */
const providerOf = (key: string) => key.replace(/_eu$/, '');

describe('live validity checks of found credentials', () => {
  let standIn: StandIn;
  let elsewhere: StandIn;
  const realFetch = globalThis.fetch;
  const fetched: string[] = [];

  before(async () => {
    standIn = await new StandIn().start();
    elsewhere = await new StandIn().start();
    // Every URL any check fetches, to prove none leaves the configured stand-in.
    globalThis.fetch = (input, init) => {
      fetched.push(String(input instanceof Request ? input.url : input));
      return realFetch(input, init);
    };
  });
  after(async () => {
    globalThis.fetch = realFetch;
    await standIn.stop();
    await elsewhere.stop();
    for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the table covers the twenty providers the issue names', () => {
    const ids = PROVIDERS.map((p) => p.id);
    for (const id of ['aws', 'github', 'gitlab', 'slack', 'stripe', 'openai', 'anthropic', 'sendgrid', 'twilio', 'npm', 'pypi', 'dockerhub', 'datadog', 'google', 'azure_storage', 'shopify', 'huggingface', 'digitalocean', 'heroku', 'mailgun']) {
      assert.ok(ids.includes(id), id);
    }
  });

  for (const [index, c] of CASES.entries()) {
    test(`${c.provider}: valid → valid (critical), refused → invalid, 500 or no answer → unknown`, async () => {
      const file = render(c.file, index * 10 + 1);
      const outcome = async (answer: (seen: Seen) => Answer) => {
        standIn.answer = answer;
        const before = standIn.seen.length;
        const findings = await scanFiles({ 'config.env': file }, settingsFor(standIn));
        const finding = findings.find((f) => f.metadata.rule === c.rule);
        assert.ok(finding, `${c.rule} not detected in ${file}: ${findings.map((f) => f.checkId).join(', ')}`);
        return { finding, requests: standIn.seen.slice(before) };
      };
      const okBody = c.provider === 'slack' ? '{"ok":true}' : '{}';

      const valid = await outcome(() => ({ status: 200, body: okBody }));
      assert.equal(valid.finding.metadata.validity, 'valid', String(valid.finding.metadata.validity_reason));
      assert.equal(valid.finding.severity, 'critical');
      assert.equal(valid.requests.length, 1, 'one request per credential, however many findings share it');
      const [seen] = valid.requests;
      assert.equal(providerOf(seen!.key), c.provider);
      assert.equal(seen!.path, c.path);
      c.carries?.(seen!, secretOf(c, file));

      const refused = await outcome(() => c.refusal ?? { status: 401 });
      assert.equal(refused.finding.metadata.validity, 'invalid', String(refused.finding.metadata.validity_reason));
      assert.equal(refused.finding.severity, SECRET_RULES.find((r) => r.id === c.rule)!.severity, 'a refused credential keeps its rule\'s severity');

      const failing = await outcome(() => ({ status: 500 }));
      assert.equal(failing.finding.metadata.validity, 'unknown');
      const silent = await outcome(() => 'hang');
      assert.equal(silent.finding.metadata.validity, 'unknown');
      assert.match(String(silent.finding.metadata.validity_reason), /did not answer in time/);
      const limited = await outcome(() => ({ status: 429 }));
      assert.equal(limited.finding.metadata.validity, 'unknown');
    });
  }

  test('the newer rules of a provider are checked the same way (Heroku v2 keys, Slack legacy tokens, bare Azure account keys)', async () => {
    standIn.answer = (seen) => ({ status: 200, body: seen.key === 'slack' ? '{"ok":true}' : '{}' });
    const before = standIn.seen.length;
    const findings = await scanFiles(
      { 'a.env': render('HEROKU_KEY=<<heroku-api-key-v2>>\nSLACK=<<slack-legacy-token>>\nAZURE_STORAGE_ACCOUNT=acmestore\n<<azure-storage-account-key>>\n', 11) },
      settingsFor(standIn),
    );
    for (const rule of ['heroku-api-key-v2', 'slack-legacy-token', 'azure-storage-account-key']) {
      const finding = findings.find((f) => f.metadata.rule === rule);
      assert.ok(finding, `${rule} not found in ${findings.map((f) => f.checkId).join(', ')}`);
      assert.equal(finding.metadata.validity, 'valid', `${rule}: ${finding.metadata.validity_reason}`);
    }
    const azure = standIn.seen.slice(before).find((s) => s.key === 'azure_storage');
    assert.equal(azure?.path, '/acmestore/?comp=list&maxresults=1');
  });

  test('Docker config.json: a Docker Hub entry is checked with its own user and password; another registry\'s is not sent', async () => {
    standIn.answer = () => ({ status: 200 });
    const password = render('<<dockerhub-pat>>', 21);
    const auth = Buffer.from(`octocat:${password}`).toString('base64');
    const before = standIn.seen.length;
    const hub = await scanFiles({ 'config.json': `{"auths":{"https://index.docker.io/v1/":{"auth":"${auth}"}}}\n` }, settingsFor(standIn));
    const entry = hub.find((f) => f.metadata.rule === 'docker-config-auth');
    assert.ok(entry, hub.map((f) => f.checkId).join(', '));
    assert.equal(entry.metadata.validity, 'valid', String(entry.metadata.validity_reason));
    const sent = standIn.seen.slice(before).filter((s) => s.key === 'dockerhub');
    assert.deepEqual(sent.map((s) => JSON.parse(s.body)), [{ identifier: 'octocat', secret: password }]);

    const mark = standIn.seen.length;
    const other = await scanFiles({ 'config.json': `{"auths":{"registry.example.io":{"auth":"${auth}"}}}\n` }, settingsFor(standIn));
    const privateEntry = other.find((f) => f.metadata.rule === 'docker-config-auth');
    assert.equal(privateEntry?.metadata.validity, 'unknown');
    assert.ok(!standIn.seen.slice(mark).some((s) => s.body.includes(password)), 'a private registry\'s password never goes to Docker Hub');
  });

  test('AWS: the key ID and its secret are one credential; a key ID alone is unknown and sends nothing', async () => {
    standIn.answer = () => ({ status: 200 });
    const before = standIn.seen.length;
    const pair = await scanFiles({ 'creds.ini': render(CASES[0]!.file, 99) }, settingsFor(standIn));
    assert.deepEqual(pair.map((f) => f.metadata.validity), ['valid', 'valid']);
    assert.equal(standIn.seen.length - before, 1);
    const alone = await scanFiles({ 'creds.ini': render('aws_access_key_id = <<aws-access-key-id>>\n', 5) }, settingsFor(standIn));
    assert.equal(alone[0]!.metadata.validity, 'unknown');
    assert.match(String(alone[0]!.metadata.validity_reason), /secret access key/);
    assert.equal(standIn.seen.length - before, 1);
  });

  test('PyPI, Shopify without its shop, Twilio without its account and unchecked kinds are unknown without a request', async () => {
    const before = standIn.seen.length;
    const findings = await scanFiles(
      {
        'a.env': render('PYPI_TOKEN=<<pypi-token>>\nSHOPIFY_TOKEN=<<shopify-access-token>>\n<<twilio-auth-token>>\n', 3),
        'b.pem': render('<<private-key>>\n', 4),
      },
      settingsFor(standIn),
    );
    assert.ok(findings.length >= 4, findings.map((f) => f.checkId).join(', '));
    for (const f of findings) assert.equal(f.metadata.validity, 'unknown', `${f.checkId}: ${f.metadata.validity_reason}`);
    assert.equal(standIn.seen.length, before);
  });

  test('a credential found in several files is checked once per scan', async () => {
    standIn.answer = () => ({ status: 200 });
    const token = render('<<github-pat>>', 42);
    const before = standIn.seen.length;
    const findings = await scanFiles({ 'a.env': `T=${token}\n`, 'b.env': `T=${token}\n`, 'c.env': `X=1\nT=${token}\n` }, settingsFor(standIn));
    assert.equal(findings.length, 3);
    assert.ok(findings.every((f) => f.metadata.validity === 'valid'));
    assert.equal(standIn.seen.length - before, 1);
  });

  test('past the scan\'s budget for checks, the check under way and those not started are unknown, and the scan still ends', async () => {
    const before = standIn.seen.length;
    // The first check gets no answer within the budget (its own timeout is far longer), so it is cut off
    // at the budget and the two queued behind it never start.
    standIn.answer = () => 'hang';
    const files = { 'a.env': render('A=<<github-pat>>\nB=<<github-pat>>\nC=<<github-pat>>\n', 91) };
    const findings = await scanFiles(files, settingsFor(standIn, { timeoutMs: 60_000, budgetMs: 200, concurrency: 1 }));
    assert.equal(findings.length, 3);
    for (const f of findings) assert.deepEqual([f.metadata.validity, f.metadata.validity_reason], ['unknown', "the scan's time for live checks ran out"]);
    assert.equal(standIn.seen.length - before, 1);
  });

  test('a redirect is not followed: the credential never reaches the host it points to', async () => {
    standIn.answer = () => ({ status: 302, headers: { location: `${elsewhere.url}/steal/user` } });
    elsewhere.answer = () => ({ status: 200 });
    const findings = await scanFiles({ 'a.env': render('T=<<github-pat>>\nS=<<stripe-secret-key>>\n', 8) }, settingsFor(standIn));
    assert.ok(findings.every((f) => f.metadata.validity === 'unknown'), JSON.stringify(findings.map((f) => f.metadata)));
    assert.equal(elsewhere.seen.length, 0);
  });

  test('every check goes to its own provider key\'s configured base URL and nowhere else', async () => {
    standIn.answer = (seen) => ({ status: 200, body: seen.key === 'slack' ? '{"ok":true}' : '{}' });
    fetched.length = 0;
    const before = standIn.seen.length;
    const files = Object.fromEntries(CASES.map((c, i) => [`${c.provider}.env`, render(c.file, 100 + i * 10)]));
    const findings = await scanFiles(files, settingsFor(standIn));
    const requests = standIn.seen.slice(before);
    assert.ok(fetched.length >= CASES.length);
    for (const url of fetched) assert.ok(url.startsWith(`${standIn.url}/`), url);
    // Each file's credential went to its own provider's path prefix.
    for (const c of CASES) {
      const finding = findings.find((f) => f.filePath === `${c.provider}.env` && f.metadata.rule === c.rule);
      assert.equal(finding?.metadata.validity, 'valid', c.provider);
    }
    for (const seen of requests) {
      const own = CASES.find((c) => providerOf(seen.key) === c.provider);
      assert.ok(own, `request to an unexpected provider key ${seen.key}`);
      const sent = JSON.stringify(seen.headers) + seen.body;
      // No other provider's credential rides along.
      for (const other of CASES.filter((c) => c !== own)) {
        assert.ok(!sent.includes(secretOf(other, files[`${other.provider}.env`]!)), `${other.provider}'s credential sent to ${seen.key}`);
      }
    }
  });

  test('bulwark scan --verify: the local CLI checks too and shows validity in its JSON, SARIF and table', async () => {
    standIn.answer = () => ({ status: 200, body: '{"login":"octocat"}' });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-verify-cli-'));
    tmpDirs.push(dir);
    fs.writeFileSync(path.join(dir, 'deploy.sh'), render('export GH_TOKEN=<<github-oauth-token>>\n', 501));
    const env = { BULWARK_SECRETS_VERIFY_URLS: JSON.stringify(standIn.urls()) };
    const before = standIn.seen.length;

    const plain = await cli(dir, ['--type', 'secrets', '--format', 'json'], env);
    assert.equal(plain.code, 0, plain.stderr);
    const [unchecked] = JSON.parse(plain.stdout).findings;
    assert.equal(unchecked.validity, null);
    assert.equal(unchecked.severity, 'high');
    assert.equal(standIn.seen.length, before, 'no check without --verify');

    const json = await cli(dir, ['--type', 'secrets', '--format', 'json', '--verify'], env);
    assert.equal(json.code, 0, json.stderr);
    const [checked] = JSON.parse(json.stdout).findings;
    assert.equal(checked.validity, 'valid');
    assert.equal(checked.severity, 'critical');
    assert.equal(checked.metadata.validity, 'valid');
    const sarif = JSON.parse((await cli(dir, ['--type', 'secrets', '--format', 'sarif', '--verify'], env)).stdout);
    assert.equal(sarif.runs[0].results[0].properties.validity, 'valid');
    const table = (await cli(dir, ['--type', 'secrets', '--verify'], env)).stdout;
    assert.match(table, /critical\s+secrets\.github-oauth-token\s+deploy\.sh:1\s+\[valid\]/);
    assert.equal(standIn.seen.length - before, 3);

    const wrongType = await cli(dir, ['--type', 'sbom', '--verify'], env);
    assert.equal(wrongType.code, 2);
    assert.match(wrongType.stderr, /--verify needs --type secrets/);
  });

  test('URL templates take one DNS label: a value that would move the host is refused', () => {
    const client = providerHttp({ urls: { shopify: 'https://{shop}.myshopify.com', github: 'https://api.github.com' }, timeoutMs: 100 });
    assert.equal(client.urlOf('shopify', '/admin/api/2024-10/shop.json', { shop: 'acme' }).host, 'acme.myshopify.com');
    assert.throws(() => client.urlOf('shopify', '/x', { shop: 'evil.com/' }), Unanswered);
    assert.throws(() => client.urlOf('shopify', '/x', { shop: 'a.evil' }), Unanswered);
    assert.throws(() => client.urlOf('github', '@evil.example/user'), Unanswered);
    assert.equal(client.urlOf('github', '//evil.example/user').host, 'api.github.com');
  });

  test('off by default: no setting, no checks, no validity', async () => {
    const settings = loadSettings({});
    assert.equal(settings.secretsVerify.enabled, false);
    assert.equal(settings.secretsVerify.timeoutMs, 5000);
    assert.equal(settings.secretsVerify.urls.github, 'https://api.github.com');
    const engine = await defaultEngines({ secretsHistoryDepth: 0, inCallingThread: true, secretsVerify: settings.secretsVerify }).engineFor('secrets_scan');
    assert.ok(engine instanceof SecretsEngine);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-verify-'));
    tmpDirs.push(dir);
    fs.writeFileSync(path.join(dir, 'a.env'), render('T=<<github-pat>>\n', 77));
    fetched.length = 0;
    const findings = await engine!.scan({ dir, fingerprintKey: Buffer.alloc(32, 1) });
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.metadata.validity, undefined);
    assert.equal(fetched.length, 0);
  });

  test('settings: BULWARK_SECRETS_VERIFY, _TIMEOUT_SECONDS, _BUDGET_SECONDS and _URLS', () => {
    const on = secretsVerifyFromEnv({
      BULWARK_SECRETS_VERIFY: 'true',
      BULWARK_SECRETS_VERIFY_TIMEOUT_SECONDS: '2.5',
      BULWARK_SECRETS_VERIFY_BUDGET_SECONDS: '30',
      BULWARK_SECRETS_VERIFY_URLS: '{"github":"http://127.0.0.1:9/gh/"}',
    });
    assert.equal(on.enabled, true);
    assert.equal(on.timeoutMs, 2500);
    assert.equal(on.budgetMs, 30_000);
    assert.equal(secretsVerifyFromEnv({}).budgetMs, 120_000);
    assert.throws(() => secretsVerifyFromEnv({ BULWARK_SECRETS_VERIFY_BUDGET_SECONDS: '0' }), /BULWARK_SECRETS_VERIFY_BUDGET_SECONDS must be a number of seconds between 0 and 3600/);
    assert.equal(on.urls.github, 'http://127.0.0.1:9/gh');
    assert.equal(on.urls.stripe, 'https://api.stripe.com');
    assert.throws(() => secretsVerifyFromEnv({ BULWARK_SECRETS_VERIFY_URLS: '{"gitbub":"http://x"}' }), /unknown provider "gitbub"/);
    assert.throws(() => secretsVerifyFromEnv({ BULWARK_SECRETS_VERIFY_URLS: '{"github":"ftp://x"}' }), /http\(s\) base URL/);
    assert.throws(() => secretsVerifyFromEnv({ BULWARK_SECRETS_VERIFY_URLS: '[1]' }), /JSON object/);
    assert.throws(() => secretsVerifyFromEnv({ BULWARK_SECRETS_VERIFY_TIMEOUT_SECONDS: '0' }), /TIMEOUT_SECONDS/);
  });
});

describe('validity over HTTP', () => {
  let standIn: StandIn;
  let h: Harness;
  let repo: TestRepo;
  let org: TestOrg;
  const validTokens = new Set<string>();

  before(async () => {
    standIn = await new StandIn().start();
    standIn.answer = (seen) => (validTokens.has(bearerOf(seen) ?? '') ? { status: 200, body: '{"login":"octocat"}' } : { status: 401, body: '{"message":"Bad credentials"}' });
    h = await createHarness({
      scanning: true,
      env: { BULWARK_SECRETS_VERIFY: 'true', BULWARK_SECRETS_VERIFY_URLS: JSON.stringify({ github: `${standIn.url}/github` }), BULWARK_SECRETS_HISTORY_DEPTH: '10' },
    });
    repo = TestRepo.create();
    // The harness's default key belongs to its first organization, which scanRepository uses: make it first.
    org = await h.org('verify');
  });
  after(async () => {
    await h.close();
    await standIn.stop();
    repo.remove();
  });

  test('a scan of a real repository: the live token comes back critical and valid, the revoked one invalid', async () => {
    const live = render('<<github-oauth-token>>', 2001);
    const revoked = render('<<github-pat>>', 2002);
    const gone = render('<<github-oauth-token>>', 2003);
    validTokens.add(live).add(gone);
    const first = repo.commit({ 'deploy.sh': `export OLD_TOKEN=${gone}\n` });
    const head = repo.commit({ 'deploy.sh': `export GH_TOKEN=${live}\nexport OLD_TOKEN=${revoked}\n`, 'README.md': '# app\n' });
    const unit = await h.unit(org, ['github:acme/app@main'], 'app', [repo.url]);
    const { progress } = await scanRepository(h, unit.id, 'secrets_scan');
    assert.equal(progress.status, 'completed', progress.error_message ?? '');
    const items = expectStatus(await h.call('GET', `/api/v1/repositories/${unit.id}/findings?scan_type=secrets_scan&limit=50`, { key: org.key }), 200).items as any[];
    const summary = JSON.stringify(items.map((f) => [f.check_id, f.start_line, f.commit_sha, f.severity, f.validity]));
    const find = (check: string, commit: string) => items.find((f) => f.check_id === check && f.commit_sha === commit);
    const liveFinding = find('secrets.github-oauth-token', head);
    assert.ok(liveFinding, summary);
    assert.equal(liveFinding.validity, 'valid');
    assert.equal(liveFinding.severity, 'critical', 'the rule says high; a live token ranks critical');
    assert.equal(find('secrets.github-pat', head)?.validity, 'invalid', summary);
    // The token only history holds is read from its commit and checked too.
    const goneFinding = find('secrets.github-oauth-token', first);
    assert.equal(goneFinding?.validity, 'valid', summary);
    assert.equal(goneFinding.severity, 'critical');
    // The stand-in saw each token once, as a bearer token; nothing else was asked.
    const sent = standIn.seen.map((s) => bearerOf(s)).sort();
    assert.deepEqual(sent, [gone, live, revoked].sort());
    assert.ok(standIn.seen.every((s) => s.key === 'github' && s.path === '/user'));
    // The stored finding holds no token in clear.
    const body = (await h.call('GET', `/api/v1/repositories/${unit.id}/findings/${liveFinding.id}`)).body;
    assert.ok(!body.includes(live));
  });

  test('validity is null for findings of other scan types and for secrets findings no check ran on', async () => {
    const unit = await h.unit(org, ['github:acme/other@main'], 'other');
    const checked = await h.finding(unit, { scan_type: 'secrets_scan', metadata: JSON.stringify({ rule: 'github-pat', validity: 'invalid' }) });
    const unchecked = await h.finding(unit, { scan_type: 'secrets_scan', metadata: JSON.stringify({ rule: 'github-pat' }) });
    const sast = await h.finding(unit, { scan_type: 'semgrep_scan', metadata: JSON.stringify({ validity: 'valid' }) });
    const base = `/api/v1/repositories/${unit.id}/findings`;
    const validity = async (id: string) => expectStatus(await h.call('GET', `${base}/${id}`, { key: org.key }), 200).validity;
    assert.equal(await validity(checked.id), 'invalid');
    assert.equal(await validity(unchecked.id), null);
    assert.equal(await validity(sast.id), null);
    const listed = expectStatus(await h.call('GET', base, { key: org.key }), 200).items.find((f: { id: string }) => f.id === checked.id);
    assert.equal(listed.validity, 'invalid');
  });
});
