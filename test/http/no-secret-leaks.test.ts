import assert from 'node:assert/strict';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { detectSecrets } from '../../src/scanning/secrets/detector.ts';
import { SECRET_RULES, type SecretRule } from '../../src/scanning/secrets/rules.ts';
import { FINISHED_BATCH, pollUntil, scanRepository } from '../support/helpers.ts';
import { createHarness, testTokenBox, type Harness, type TestOrg } from '../support/api.ts';
import { startGitHubStandIn, type StandIn } from '../support/code-host-standins.ts';
import { TestRepo } from '../support/git-repo.ts';
import { fillTemplate, positiveSample, seededRandom } from '../support/secret-samples.ts';
import { TEST_DATABASE } from '../support/store.ts';

// One credential of every rule is committed to a repository; scans, fixes and a pull request run over
// HTTP; then every response body, every log line and every row of every table is searched for the raw
// values and for any 16-character run of their random parts. None may be found.

const SEED = 4100;
const sampleOf = (rule: SecretRule) => positiveSample(rule, SEED + SECRET_RULES.indexOf(rule));
const ruleById = (id: string) => SECRET_RULES.find((r) => r.id === id)!;

/** The random pieces a rule's sample was filled with, as generated (seeded like positiveSample). */
function randomParts(rule: SecretRule): string[] {
  const random = seededRandom(SEED + SECRET_RULES.indexOf(rule));
  return [...rule.sample.matchAll(/\{[a-zA-Z]:\d+\}/g)].map(([slot]) => fillTemplate(slot, random));
}

/** What must never show: each detected secret, each line of a multi-line one, and 16-character runs of the random parts. */
function forbiddenValues(): Map<string, string> {
  const forbidden = new Map<string, string>();
  for (const rule of SECRET_RULES) {
    const sample = sampleOf(rule);
    for (const match of detectSecrets(sample)) {
      forbidden.set(match.secret, rule.id);
      for (const line of match.secret.split('\n')) if (line.trim().length >= 16) forbidden.set(line.trim(), rule.id);
    }
    for (const part of randomParts(rule)) {
      const compact = part.replace(/\s+/g, '');
      for (let i = 0; i + 16 <= compact.length; i += 4) forbidden.set(compact.slice(i, i + 16), rule.id);
    }
  }
  for (const extra of [PRIVATE_KEY, REMOVED_KEY, SERVICE_ACCOUNT_KEY]) {
    for (const line of extra.split('\n')) if (!line.startsWith('-----')) forbidden.set(line, 'private-key (extra)');
  }
  return forbidden;
}

/** A key of realistic length: longer than an excerpt, so a cut excerpt must not show its first lines. */
const PRIVATE_KEY = [
  '-----BEGIN RSA PRIVATE KEY-----',
  ...Array.from({ length: 12 }, (_, i) => fillTemplate('{b:64}', seededRandom(900 + i))),
  '-----END RSA PRIVATE KEY-----',
].join('\n');
/** A key committed once and deleted since: only the history holds it. */
const REMOVED_KEY = positiveSample(ruleById('private-key'), 77);
/** A service account's JSON key file, its PEM key escaped on one line. */
const SERVICE_ACCOUNT_KEY = positiveSample(ruleById('private-key'), 78).replace('RSA PRIVATE KEY', 'PRIVATE KEY').replace('RSA PRIVATE KEY', 'PRIVATE KEY');
const SERVICE_ACCOUNT_JSON = JSON.stringify(
  {
    type: 'service_account',
    project_id: 'vault-prod',
    ...JSON.parse(`{${sampleOf(ruleById('gcp-service-account-key')).replace(/,$/, '')}}`),
    private_key: `${SERVICE_ACCOUNT_KEY}\n`,
    client_email: 'deployer@vault-prod.iam.gserviceaccount.com',
  },
  null,
  2,
);
const OPENSSH_KEY = sampleOf(ruleById('openssh-private-key'));
const STRIPE_KEY = sampleOf(ruleById('stripe-secret-key'));
const GITHUB_PAT = sampleOf(ruleById('github-pat'));

const PAYMENTS_PY = `import requests

STRIPE_KEY = "${STRIPE_KEY}"


def charge(amount):
    return requests.post("https://api.stripe.com/v1/charges", auth=(STRIPE_KEY, ""), data={"amount": amount})
`;

const SETUP_MD = `# Setup

Deploy with this key:

\`\`\`
${OPENSSH_KEY}
\`\`\`

Then run the installer.
`;

const SIGNING_PY = `import jwt

SIGNING_KEY = """${PRIVATE_KEY}"""


def sign(claims):
    return jwt.encode(claims, SIGNING_KEY, algorithm="RS256")
`;

const CLIENT_JS = `const password = "${sampleOf(ruleById('generic-secret-assignment')).split('"')[1]}";
const token = "${GITHUB_PAT}";
fetch("https://api.example-corp.io/v1", { headers: { Authorization: token, "X-Password": password } });
`;

describe(`no planted secret leaves through responses, logs or the database (${TEST_DATABASE})`, () => {
  let h: Harness;
  let org: TestOrg;
  let repo: TestRepo;
  let github: StandIn;
  let unitId: string;
  const responses: string[] = [];
  const logLines: string[] = [];
  const TOKEN = 'ghp_leakTestTokenForTheStandIn0000000000';
  const base = () => `/api/v1/repositories/${unitId}`;

  async function call(method: string, url: string, body?: unknown) {
    const res = await h.call(method, url, body === undefined ? {} : { body });
    responses.push(`${method} ${url} ${res.statusCode}\n${res.body}`);
    return res;
  }

  before(async () => {
    repo = TestRepo.create();
    github = await startGitHubStandIn({ token: TOKEN, repos: { 'acme/vault': path.join(repo.dir, '.git') } });
    const logStream = new PassThrough();
    logStream.on('data', (chunk: Buffer) => logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    const log = (message: string, fields?: object) => logLines.push(`${message} ${JSON.stringify(fields ?? {})}`);
    h = await createHarness({ scanning: true, logStream, log, env: { BULWARK_JOB_LEASE_SECONDS: '10', BULWARK_GITHUB_API_URL: github.url } });
    org = await h.org('leaks');
    const files: Record<string, string> = {
      'app/payments.py': PAYMENTS_PY,
      'app/signing.py': SIGNING_PY,
      'docs/setup.md': SETUP_MD,
      'web/client.js': CLIENT_JS,
    };
    for (const rule of SECRET_RULES) files[`config/${rule.id}.txt`] = `${sampleOf(rule)}\n`;
    files['config/service-account.json'] = SERVICE_ACCOUNT_JSON;
    repo.commit({ 'old/deploy.pem': `${REMOVED_KEY}\n` }, 'add the deploy key');
    repo.commit({ 'old/deploy.pem': null }, 'remove the deploy key');
    repo.commit(files, 'add configuration');
    const unit = await h.unit(org, ['github:acme/vault@main'], 'vault', [repo.url]);
    unitId = unit.id;
    await h.database.store.db.updateTable('source_repos').set({ token_ciphertext: testTokenBox.seal(TOKEN) }).where('unit_id', '=', unitId).execute();
  });
  after(async () => {
    await h?.close();
    await github?.close();
    repo?.remove();
  });

  async function findingsOf(scanType: string) {
    const items: any[] = [];
    for (let skip = 0; ; skip += 200) {
      const page = (await call('GET', `${base()}/findings?scan_type=${scanType}&limit=200&skip=${skip}`)).json();
      items.push(...page.items);
      if (page.items.length < 200) return items;
    }
  }

  async function runFix(findingIds: string[], title: string) {
    const created = await call('POST', `${base()}/fixes`, { finding_ids: findingIds, title, instructions: 'Take the key out of the code.', source_repo: 'acme/vault' });
    assert.equal(created.statusCode, 201, created.body);
    const fix = created.json();
    const progress = await pollUntil(h, `${base()}/fixes/${fix.id}/progress`, (p) => ['completed', 'failed', 'cancelled'].includes(p.status));
    const diff = (await call('GET', `${base()}/fixes/${fix.id}/diff`)).json();
    return { fix, progress, diff };
  }

  test('scans, fixes and a pull request leave no secret anywhere', { timeout: 240_000 }, async () => {
    const batches: string[] = [];
    for (const scanType of ['secrets_scan', 'semgrep_scan']) {
      const { batchId, progress } = await scanRepository(h, unitId, scanType);
      assert.ok(FINISHED_BATCH.includes(progress.status));
      assert.equal(progress.status, 'completed', JSON.stringify(progress));
      batches.push(batchId);
    }
    const secrets = await findingsOf('secrets_scan');
    const sast = await findingsOf('semgrep_scan');
    const found = new Set(secrets.map((f) => f.check_id));
    for (const rule of SECRET_RULES) assert.ok(found.has(`secrets.${rule.id}`), `the ${rule.id} sample is found`);
    assert.ok(sast.length > 0, 'the code scan reports something to show');
    assert.ok(secrets.some((f) => f.file_path === 'old/deploy.pem'), 'the deleted key is found in the history');
    assert.ok(secrets.some((f) => f.file_path === 'config/service-account.json' && f.check_id === 'secrets.private-key'), 'the service account key is found');

    const byRule = (id: string, file: string) => secrets.find((f) => f.check_id === `secrets.${id}` && f.file_path === file);
    // The single-line key moves to the environment; the pull request carries it.
    const stripe = await runFix([byRule('stripe-secret-key', 'app/payments.py').id], `Move ${STRIPE_KEY} out of the code`);
    assert.equal(stripe.progress.status, 'completed', stripe.progress.error_message ?? '');
    assert.match(stripe.diff.diff, /^-STRIPE_KEY = "sk_l\*{8}/m);
    // A PEM key in a code string and an OpenSSH key in documentation: each key line leaves with a `-`.
    const pem = await runFix([byRule('private-key', 'app/signing.py').id], 'Move the signing key out of the code');
    assert.equal(pem.progress.status, 'completed', pem.progress.error_message ?? '');
    assert.match(pem.diff.diff, /^-SIGNING_KEY = """-----BEGIN RSA PRIVATE KEY-----$/m);
    const ssh = await runFix([byRule('openssh-private-key', 'docs/setup.md').id], 'Redact the deploy key');
    assert.equal(ssh.progress.status, 'completed', ssh.progress.error_message ?? '');
    assert.match(ssh.diff.diff, /^-b3Bl\*{8}..$/m, 'the removed key body shows masked, one marked line per key line');
    assert.match(ssh.diff.diff, /^-\*{8}$/m);
    // A key file the fixer refuses: the failure says why without the value.
    const refused = await runFix([byRule('private-key', 'config/private-key.txt').id], 'Remove the key file');
    assert.equal(refused.progress.status, 'failed');

    for (const [i, fix] of [stripe, pem, ssh].entries()) {
      const opened = await call('POST', `${base()}/fixes/${fix.fix.id}/pull-requests`, i === 0 ? { title: `Rotate ${GITHUB_PAT}` } : {});
      assert.equal(opened.statusCode, 201, opened.body);
    }
    // Free text a caller writes that quotes a credential is kept masked too.
    const triaged = await call('PATCH', `${base()}/findings/${secrets[0].id}`, { status: 'false_positive', comment: `only a test key: ${GITHUB_PAT}` });
    assert.equal(triaged.statusCode, 200, triaged.body);
    assert.equal(github.creations().length, 3);

    // Every GET route of the repository family, with every id it can take.
    await h.app.ready();
    const ids: Record<string, string[]> = {
      repository_id: [unitId],
      scan_id: batches,
      finding_id: [...secrets, ...sast].map((f) => f.id),
      fix_id: [stripe, pem, ssh, refused].map((f) => f.fix.id),
    };
    const spec = h.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    for (const [template, operations] of Object.entries(spec.paths)) {
      if (!operations.get || template.startsWith('/api/v1/applications')) continue;
      const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      let urls = [template];
      for (const name of names) urls = urls.flatMap((u) => (ids[name] ?? []).map((id) => u.replace(`{${name}}`, id)));
      for (const url of urls) {
        const separator = url.includes('?') ? '&' : '?';
        const res = await call('GET', /findings$|fixes$|scans$|finding-events$|repositories$/.test(url) ? `${url}${separator}limit=200` : url);
        assert.ok(res.statusCode < 500, `${url}: ${res.body}`);
      }
    }
    for (let skip = 0; ; skip += 200) {
      const page = (await call('GET', `/api/v1/finding-events?limit=200&skip=${skip}`)).json();
      if (page.items.length < 200) break;
    }

    const forbidden = forbiddenValues();
    const rows = await everyRow(h);
    const pullRequests = github.requests.map((r) => JSON.stringify(r.body ?? ''));
    assert.ok(responses.length > 100 && logLines.length > 100 && rows.length > 100, 'there is output to search');
    const places: [string, string[]][] = [
      ['a response body', responses],
      ['a log line', logLines],
      ['a database row', rows],
      ['a request to the code host', pullRequests],
    ];
    const leaks: string[] = [];
    for (const [place, texts] of places) {
      const haystack = texts.join('\n\u0000\n');
      const unescaped = haystack.replace(/\\n/g, '\n').replace(/\\\//g, '/').replace(/\\"/g, '"');
      const present = new Set([...occurring(haystack, forbidden.keys()), ...occurring(unescaped, forbidden.keys())]);
      for (const [value, rule] of forbidden) {
        if (present.has(value)) {
          const text = texts.find((t) => t.includes(value) || t.replace(/\\n/g, '\n').includes(value)) ?? '';
          leaks.push(`${rule} in ${place}: …${text.slice(Math.max(0, text.indexOf(value) - 200), text.indexOf(value) + 80)}…`);
        }
      }
    }
    assert.deepEqual(leaks.slice(0, 10), [], `${leaks.length} leaks`);
  });
});

/**
 * The values that occur in `text`, found in one walk over it that looks values up by their first characters:
 * the same answer as `text.includes(value)` for each, without reading megabytes once per forbidden value.
 */
function occurring(text: string, values: Iterable<string>): Set<string> {
  const PREFIX = 8;
  const found = new Set<string>();
  const byPrefix = new Map<string, string[]>();
  for (const value of values) {
    if (value.length < PREFIX) {
      if (text.includes(value)) found.add(value);
      continue;
    }
    const prefix = value.slice(0, PREFIX);
    const same = byPrefix.get(prefix);
    if (same) same.push(value);
    else byPrefix.set(prefix, [value]);
  }
  for (let i = 0; i + PREFIX <= text.length; i++) {
    const candidates = byPrefix.get(text.slice(i, i + PREFIX));
    if (candidates) for (const value of candidates) if (text.startsWith(value, i)) found.add(value);
  }
  return found;
}

/** Every row of every table the service owns (its job queue's included), each as one JSON text. */
async function everyRow(h: Harness): Promise<string[]> {
  const db = h.database.store.db;
  const tables =
    TEST_DATABASE === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows.map((r) => `"${r.name}"`)
      : (
          await sql<{ table_schema: string; table_name: string }>`
            select table_schema, table_name from information_schema.tables
            where table_type = 'BASE TABLE' and table_schema in (current_schema(), current_schema() || '_jobs')`.execute(db)
        ).rows.map((r) => `"${r.table_schema}"."${r.table_name}"`);
  assert.ok(tables.length >= 10, `tables: ${tables.join(', ')}`);
  const rows: string[] = [];
  for (const table of tables) {
    const result = await sql<Record<string, unknown>>`select * from ${sql.raw(table)}`.execute(db);
    for (const row of result.rows) {
      rows.push(`${table} ${JSON.stringify(row, (_key, value) => (value && value.type === 'Buffer' && Array.isArray(value.data) ? Buffer.from(value.data).toString('latin1') : value))}`);
    }
  }
  return rows;
}
