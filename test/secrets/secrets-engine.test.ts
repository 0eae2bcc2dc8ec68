// The secrets engine on its own: every credential rule against a generated positive and placeholder
// fixture, the filters that keep documentation values out, and whole scans of real git checkouts.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { RawFinding } from '../../src/scanning/engine.ts';
import { detectSecrets } from '../../src/scanning/secrets/detector.ts';
import { SECRET_RULES, type SecretRule } from '../../src/scanning/secrets/rules.ts';
import { SecretsEngine } from '../../src/scanning/secrets/secrets-engine.ts';
import { TestRepo } from '../support/git-repo.ts';
import { fillTemplate, placeholderSample, positiveSample, seededRandom } from '../support/secret-samples.ts';

const KEY = Buffer.alloc(32, 1);
const TEMPLATE_SLOT = /\{[a-zA-Z]:\d+\}/g;

function ruleById(id: string): SecretRule {
  const rule = SECRET_RULES.find((r) => r.id === id);
  assert.ok(rule, `no rule ${id}`);
  return rule;
}

/** A positive fixture for a rule by id. */
function sample(id: string, seed: number): string {
  return positiveSample(ruleById(id), seed);
}

/** The generated (random) pieces of `positiveSample(rule, seed)`, in order: what must never be shown. */
function randomParts(rule: SecretRule, seed: number): string[] {
  const random = seededRandom(seed);
  return [...rule.sample.matchAll(TEMPLATE_SLOT)].map(([slot]) => fillTemplate(slot, random));
}

/** Every 8-character window of the random pieces. */
function windows(parts: string[]): string[] {
  return parts.flatMap((part) => {
    const compact = part.replace(/\s+/g, '');
    return Array.from({ length: Math.max(0, compact.length - 7) }, (_, i) => compact.slice(i, i + 8));
  });
}

/** 0-based first and last line of a sample template that hold generated characters (the secret itself). */
function secretLineSpan(template: string): [number, number] {
  const lines = template.split('\n').flatMap((line, i) => (new RegExp(TEMPLATE_SLOT.source).test(line) ? [i] : []));
  return [lines[0], lines.at(-1)!];
}

const quoteFor = (s: string) => ["'", '"', '`'].find((q) => !s.includes(q)) ?? '"';

/** Realistic single-line homes for a credential: each returns the line holding it. */
const LINE_CONTEXTS: ((s: string) => string)[] = [
  (s) => `  const credential = ${quoteFor(s)}${s}${quoteFor(s)};`, // JS string
  (s) => `  api_token: ${s}`, // YAML value
  (s) => `SERVICE_CREDENTIALS=${s}`, // .env line
  (s) => `client = Client(endpoint="https://api.internal", secret=${quoteFor(s)}${s}${quoteFor(s)})`, // Python
  (s) => `curl -sf -H ${s.includes('"') ? "'" : '"'}Authorization: Bearer ${s}${s.includes('"') ? "'" : '"'} https://api.internal/v1/ping`,
  (s) => `    # rotated 2024-05-01: ${s}`, // comment
  (s) => (s.includes('"') ? `value = '${s}'` : `  "value": "${s}",`), // JSON, or TOML where the sample has its own quotes
  (s) => `var apiKey = \`${s}\``, // Go raw string
];

/** Multi-line homes (PEM blocks): the lines, and the index among them where the sample starts. */
const BLOCK_CONTEXTS: ((lines: string[]) => { lines: string[]; at: number })[] = [
  (l) => ({ lines: [`const key = \`${l[0]}`, ...l.slice(1, -1), `${l.at(-1)}\`;`], at: 0 }), // JS template literal
  (l) => ({ lines: ['tls:', '  key: |', ...l.map((x) => (x ? `    ${x}` : ''))], at: 2 }), // indented YAML block
  (l) => ({ lines: [`PRIVATE_KEY="${l[0]}`, ...l.slice(1, -1), `${l.at(-1)}"`], at: 0 }), // quoted .env value
  (l) => ({ lines: ['KEY = """', ...l, '"""'], at: 1 }), // Python triple-quoted string
  (l) => ({ lines: l, at: 0 }), // a bare .pem file
];

const PREAMBLE = ['import { connect } from "./db.js";', '', '// settings for the staging deployment', 'export function settings() {'];

/**
 * Embeds a sample in a small source file, below 0–4 lines of code picked by `index` and in the context
 * picked by `context`; returns the text and the 1-based line where the sample starts.
 */
function embed(value: string, index: number, context = index): { text: string; line: number } {
  const preamble = PREAMBLE.slice(0, index % (PREAMBLE.length + 1));
  let body: { lines: string[]; at: number };
  if (value.includes('\n')) body = BLOCK_CONTEXTS[context % BLOCK_CONTEXTS.length](value.split('\n'));
  else body = { lines: [LINE_CONTEXTS[context % LINE_CONTEXTS.length](value)], at: 0 };
  const text = [...preamble, ...body.lines, '  return connect();', '}', ''].join('\n');
  return { text, line: preamble.length + body.at + 1 };
}

const summary = (matches: ReturnType<typeof detectSecrets>) => matches.map((m) => `${m.rule.id}@${m.startLine}-${m.endLine}`);

describe('secret rules', () => {
  test('there are at least 60 rules, with unique ids, lowercase keywords and a sample each', () => {
    assert.ok(SECRET_RULES.length >= 60, `only ${SECRET_RULES.length} rules`);
    const ids = SECRET_RULES.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length, `duplicate ids: ${ids.filter((id, i) => ids.indexOf(id) !== i)}`);
    for (const rule of SECRET_RULES) {
      assert.ok(rule.keywords.length > 0, rule.id);
      // The detector matches keywords against the lowercased text, so an uppercase keyword never fires.
      for (const k of rule.keywords) assert.equal(k, k.toLowerCase(), `${rule.id} keyword ${k}`);
      assert.match(rule.sample, new RegExp(TEMPLATE_SLOT.source), `${rule.id} sample has no generated part`);
    }
  });

  SECRET_RULES.forEach((rule, index) => {
    test(rule.id, () => {
      const [first, last] = secretLineSpan(rule.sample);
      const positive = embed(positiveSample(rule, 7001 + index), index);
      const matches = detectSecrets(positive.text);
      assert.deepEqual(
        summary(matches),
        [`${rule.id}@${positive.line + first}-${positive.line + last}`],
        `positive fixture:\n${positive.text}`,
      );
      const longest = randomParts(rule, 7001 + index).sort((a, b) => b.length - a.length)[0];
      assert.ok(matches[0].secret.includes(longest), 'the matched secret holds the generated credential');

      const negative = embed(placeholderSample(rule), index);
      assert.deepEqual(summary(detectSecrets(negative.text)), [], `placeholder fixture:\n${negative.text}`);
    });
  });
});

describe('filters', () => {
  test('documentation keys, templates and environment references are not reported', () => {
    const lines = [
      'aws_access_key_id = AKIAIOSFODNN7EXAMPLE',
      'const awsKey = "AKIAIOSFODNN7EXAMPLE";',
      'token = "${GITHUB_TOKEN}"',
      'github_token: "${{ secrets.GITHUB_TOKEN }}"',
      'api_key: "<your-token>"',
      'password = "<your-password-here>"',
      'const apiToken = process.env.X;',
      'secret = "process.env.API_SECRET"',
      'password = os.environ["DB_PASSWORD"]',
      'password = "changeme123"',
      'db_password: "CHANGE_ME_please"',
      'api_key = "your_api_key_here"',
      'token = "xxxxxxxxxxxxxxxxxxxx"',
      'password = "Passw0rd-REDACTED"',
      `ghp_token = "ghp_${'x'.repeat(36)}"`,
    ];
    for (const line of lines) assert.deepEqual(summary(detectSecrets(line)), [], line);
    assert.deepEqual(summary(detectSecrets(lines.join('\n'))), []);
  });

  test('a line carrying bulwark:allow is not reported; its neighbours still are', () => {
    const token = sample('github-pat', 11);
    assert.deepEqual(summary(detectSecrets(`const token = "${token}"; // bulwark:allow`)), []);
    assert.deepEqual(summary(detectSecrets(`# bulwark:allow\nconst token = "${token}";`)), ['github-pat@2-2']);
    assert.deepEqual(summary(detectSecrets(`const token = "${token}";`)), ['github-pat@1-1']);
  });

  test('a low-entropy generic password is not reported; a generated-looking one is', () => {
    assert.deepEqual(summary(detectSecrets('password = "aaaaaaaaaaaa"')), []);
    assert.deepEqual(summary(detectSecrets('password = "abababababab"')), []);
    assert.deepEqual(summary(detectSecrets('secret: "config.auth.secretName"')), [], 'a dotted identifier');
    const generated = randomParts(ruleById('generic-secret-assignment'), 12)[0];
    const matches = detectSecrets(`password = "${generated}"`);
    assert.deepEqual(summary(matches), ['generic-secret-assignment@1-1']);
    assert.equal(matches[0].secret, generated);
  });

  test('a hex digest under a name that says so is a recorded hash, not a credential; the same value under a plain name is reported', () => {
    const digest = 'e5e9fa1ba31ecd1ae84f75caaa474f3a663f05f4';
    assert.deepEqual(summary(detectSecrets(`{\n  "hashed_secret": "${digest}",\n  "is_verified": false\n}`)), [], 'a detect-secrets baseline entry');
    assert.deepEqual(summary(detectSecrets(`password_hash = "${digest}"`)), []);
    assert.deepEqual(summary(detectSecrets(`API_TOKEN_SHA256 = "${digest}${digest.slice(0, 24)}"`)), []);
    assert.deepEqual(summary(detectSecrets(`api_token = "${digest}"`)), ['generic-secret-assignment@1-1']);
  });

  test('the generic rule does not double-report a token a specific rule matched', () => {
    const ghp = sample('github-pat', 13);
    const matches = detectSecrets(`token = "${ghp}"`);
    assert.deepEqual(summary(matches), ['github-pat@1-1']);
    assert.equal(matches[0].secret, ghp);
    const stripe = sample('stripe-secret-key', 14);
    assert.deepEqual(summary(detectSecrets(`STRIPE_SECRET: '${stripe}'\napi_key = "${ghp}"`)), [
      'stripe-secret-key@1-1',
      'github-pat@2-2',
    ]);
  });
});

async function scan(repo: TestRepo, historyDepth: number, fingerprintKey = KEY): Promise<RawFinding[]> {
  const commit = repo.git('rev-parse', 'HEAD').trim();
  return new SecretsEngine({ historyDepth }).scan({ dir: repo.dir, gitDir: path.join(repo.dir, '.git'), commit, fingerprintKey });
}

const brief = (f: RawFinding) => ({ filePath: f.filePath, checkId: f.checkId, source: f.metadata.source, line: f.startLine });

describe('SecretsEngine.scan on a checkout', () => {
  const repos: TestRepo[] = [];
  const newRepo = () => {
    const repo = TestRepo.create();
    repos.push(repo);
    return repo;
  };
  after(() => repos.forEach((r) => r.remove()));

  describe('skipped paths', () => {
    let repo: TestRepo;
    let skipped: Record<string, string>;
    before(() => {
      repo = newRepo();
      skipped = {
        'node_modules/left-pad/index.js': `module.exports.key = '${sample('stripe-secret-key', 21)}';\n`,
        'web/node_modules/dep/config.js': `exports.token = "${sample('npm-token', 22)}";\n`,
        'vendor/github.com/acme/sdk/client.go': `const token = "${sample('slack-bot-token', 23)}"\n`,
        'package-lock.json': `{\n  "name": "app",\n  "token": "${sample('gitlab-pat', 24)}"\n}\n`,
        'yarn.lock': `left-pad@^1.3.0:\n  resolved "https://registry.yarnpkg.com/left-pad" # ${sample('github-oauth-token', 25)}\n`,
        'bin/helper': `\u0000\u0001ELF\u0000\nAPI_KEY=${sample('sendgrid-api-key', 26)}\n`,
        'assets/logo.png': `tEXtComment ${sample('openai-api-key', 27)}\n`,
        'test/fixtures/credentials.env': `API_TOKEN=${sample('linear-api-key', 28)}\n`,
        'internal/parser/testdata/sample.yaml': `token: ${sample('dockerhub-pat', 29)}\n`,
        'docs/examples/setup.md': `export GITHUB_TOKEN=${sample('github-app-token', 30)}\n`,
        'config/app.sample.env': `DD_API_KEY=${randomParts(ruleById('datadog-api-key'), 31)[0]}\n`,
        'scripts/seed.sh': `export SHOPIFY=${sample('shopify-access-token', 32)}\n`,
      };
      const deletedLater = {
        'node_modules/old-dep/index.js': `module.exports = "${sample('github-pat', 33)}";\n`,
        'docs/examples/old.md': `token ${sample('gitlab-deploy-token', 34)}\n`,
        'test/fixtures/old.env': `KEY=${sample('anthropic-api-key', 35)}\n`,
        'yarn.lock': skipped['yarn.lock'],
      };
      repo.commit({
        ...skipped,
        ...deletedLater,
        '.bulwarkignore': '# known example credentials\ndocs/examples/\n*.sample.env\nscripts/seed.sh\n',
        'src/app.js': `import { Client } from './client.js';\nconst client = new Client({ token: '${sample('github-pat', 36)}' });\n`,
      });
      repo.commit({ 'node_modules/old-dep/index.js': null, 'docs/examples/old.md': null, 'test/fixtures/old.env': null });
      repo.commit({ 'README.md': '# app\n' });
    });

    test('every skipped file does hold a detectable secret', () => {
      for (const [file, text] of Object.entries(skipped)) assert.equal(detectSecrets(text).length, 1, file);
    });

    test('vendored folders, lockfiles, binaries, fixtures and .bulwarkignore paths are not reported, in the tree or history', async () => {
      for (const depth of [0, 10]) {
        assert.deepEqual((await scan(repo, depth)).map(brief), [
          { filePath: 'src/app.js', checkId: 'secrets.github-pat', source: 'tree', line: 2 },
        ], `historyDepth ${depth}`);
      }
    });
  });

  describe('history', () => {
    let repo: TestRepo;
    let introduced: string;
    let touched: string;
    const secret = sample('stripe-secret-key', 41);
    before(() => {
      repo = newRepo();
      introduced = repo.commit({ 'config/prod.env': `# production\nSTRIPE_KEY=${secret}\n`, 'README.md': '# shop\n' }, 'add config');
      touched = repo.commit({ 'config/prod.env': `# production\n# owner: payments\nSTRIPE_KEY=${secret}  # rotate quarterly\n` }, 'annotate');
      repo.commit({ 'src/index.js': 'console.log("hi");\n' }, 'code');
      repo.commit({ 'config/prod.env': null, 'README.md': '# shop\n\nConfiguration comes from the environment.\n' }, 'remove config');
    });

    test('a secret deleted from HEAD is found in history, at the commit that introduced it', async () => {
      const findings = await scan(repo, 10);
      assert.equal(findings.length, 1);
      const [f] = findings;
      assert.equal(f.checkId, 'secrets.stripe-secret-key');
      assert.equal(f.filePath, 'config/prod.env');
      assert.equal(f.commitSha, introduced);
      assert.notEqual(f.commitSha, touched);
      assert.equal(f.metadata.source, 'history');
      assert.equal(f.startLine, 2, 'the line in the introducing commit');
      assert.equal(f.endLine, 2);
      assert.ok(f.message.includes(introduced.slice(0, 12)), f.message);
    });

    test('history is not read with historyDepth 0, nor beyond historyDepth commits', async () => {
      assert.deepEqual(await scan(repo, 0), []);
      assert.deepEqual(await scan(repo, 2), [], 'the two newest commits never held it');
      assert.deepEqual((await scan(repo, 4)).map((f) => f.commitSha), [introduced]);
      const withoutGit = await new SecretsEngine({ historyDepth: 10 }).scan({ dir: repo.dir, fingerprintKey: KEY });
      assert.deepEqual(withoutGit, []);
    });
  });

  describe('a secret still in HEAD', () => {
    let repo: TestRepo;
    const openai = sample('openai-api-key', 51);
    const spaced = sample('gitlab-pat', 52);
    const gone = sample('npm-token', 53);
    let first: string;
    before(() => {
      repo = newRepo();
      first = repo.commit({
        'app/settings.py': `import os\n\nOPENAI_API_KEY = "${openai}"\n`,
        'deploy notes/prod settings.txt': `registry token: ${spaced}\n`,
        'old notes.txt': `npm: ${gone}\n`,
      });
      repo.commit({ 'app/settings.py': `import os\nimport sys\n\nDEBUG = False\nOPENAI_API_KEY = "${openai}"\n` });
      repo.commit({ 'old notes.txt': null, 'deploy notes/prod settings.txt': `# ops\nregistry token: ${spaced}\n` });
    });

    test('is reported once, from the tree, though history holds it too (also under a path with spaces)', async () => {
      const findings = await scan(repo, 10);
      assert.deepEqual(findings.map(brief), [
        { filePath: 'app/settings.py', checkId: 'secrets.openai-api-key', source: 'tree', line: 5 },
        { filePath: 'deploy notes/prod settings.txt', checkId: 'secrets.gitlab-pat', source: 'tree', line: 2 },
        { filePath: 'old notes.txt', checkId: 'secrets.npm-token', source: 'history', line: 1 },
      ]);
      assert.deepEqual(findings.map((f) => f.commitSha), [null, null, first]);
      assert.deepEqual(
        findings.map((f) => f.fingerprint),
        (await scan(repo, 0)).map((f) => f.fingerprint).concat(findings[2].fingerprint),
        'tree findings keep the fingerprints a tree-only scan gives',
      );
    });
  });

  describe('fingerprints and masking', () => {
    test('stable when lines shift, different in another file or under another key', async () => {
      const repo = newRepo();
      const token = sample('github-fine-grained-pat', 61);
      repo.commit({ 'src/a.ts': `// client\nexport const token = '${token}';\n`, 'src/b.ts': `const t = '${token}';\n` });
      const first = await scan(repo, 10);
      assert.deepEqual(first.map(brief), [
        { filePath: 'src/a.ts', checkId: 'secrets.github-fine-grained-pat', source: 'tree', line: 2 },
        { filePath: 'src/b.ts', checkId: 'secrets.github-fine-grained-pat', source: 'tree', line: 1 },
      ]);
      const [a1, b] = first;
      assert.notEqual(a1.fingerprint, b.fingerprint, 'the same secret in another file is another finding');
      assert.equal(a1.metadata.secret_hash, b.metadata.secret_hash);

      repo.commit({ 'src/a.ts': `// client\nimport x from 'x';\n\n\nexport const token = '${token}';\n` });
      const shifted = (await scan(repo, 10)).find((f) => f.filePath === 'src/a.ts')!;
      assert.equal(shifted.startLine, 5);
      assert.equal(shifted.fingerprint, a1.fingerprint);

      const otherKey = (await scan(repo, 10, Buffer.alloc(32, 2))).find((f) => f.filePath === 'src/a.ts')!;
      assert.notEqual(otherKey.fingerprint, a1.fingerprint);
      assert.notEqual(otherKey.metadata.secret_hash, a1.metadata.secret_hash);
      assert.equal(otherKey.metadata.masked_secret, a1.metadata.masked_secret);
    });

    test('one file per rule: each found once, and no finding shows the raw secret', async () => {
      const repo = newRepo();
      const files: Record<string, string> = {};
      SECRET_RULES.forEach((rule, i) => (files[`config/${rule.id}.txt`] = `${embed(positiveSample(rule, 9001 + i), i).text}`));
      repo.commit(files);
      const findings = await scan(repo, 5);
      assert.deepEqual(
        findings.map((f) => `${f.filePath} ${f.checkId} ${f.metadata.source}`),
        SECRET_RULES.map((r) => `config/${r.id}.txt secrets.${r.id} tree`).sort(),
      );
      for (const f of findings) {
        const rule = ruleById(String(f.metadata.rule));
        const i = SECRET_RULES.indexOf(rule);
        const raw = positiveSample(rule, 9001 + i);
        const masked = String(f.metadata.masked_secret);
        assert.ok(f.message.includes(masked), f.message);
        for (const shown of [masked, f.message, f.title, JSON.stringify(f)]) {
          assert.ok(!shown.includes(raw), `${rule.id}: raw secret shown`);
          for (const w of windows(randomParts(rule, 9001 + i))) assert.ok(!shown.includes(w), `${rule.id}: "${w}" shown in ${shown}`);
        }
      }
    });
  });

  describe('PEM private keys', () => {
    test('a multi-line key is reported once, spanning its lines', async () => {
      const repo = newRepo();
      const rsa = sample('private-key', 71).split('\n'); // BEGIN, 2 body lines, END
      const ssh = sample('openssh-private-key', 72).split('\n');
      const pgp = sample('pgp-private-key', 73).split('\n'); // BEGIN, blank, 2 body lines, END
      const oldKey = sample('private-key', 74).split('\n');
      repo.commit({
        'certs/server.key': rsa.join('\n') + '\n',
        'k8s/tls.yaml': ['apiVersion: v1', 'kind: Secret', 'stringData:', '  tls.key: |', ...ssh.map((l) => `    ${l}`), ''].join('\n'),
        'keys/release.asc': ['Comment: release signing key', ...pgp, ''].join('\n'),
        'old/deploy_key': ['# deploy key', ...oldKey, ''].join('\n'),
      });
      repo.commit({ 'old/deploy_key': null });
      const findings = await scan(repo, 10);
      assert.deepEqual(
        findings.map((f) => `${f.filePath} ${f.checkId} ${f.metadata.source} ${f.startLine}-${f.endLine}`),
        [
          'certs/server.key secrets.private-key tree 2-3',
          'k8s/tls.yaml secrets.openssh-private-key tree 6-7',
          'keys/release.asc secrets.pgp-private-key tree 4-5',
          'old/deploy_key secrets.private-key history 3-4',
        ],
      );
    });

    test('the span is the same whatever the indentation or the surrounding code', () => {
      for (const id of ['private-key', 'openssh-private-key', 'pgp-private-key']) {
        const rule = ruleById(id);
        const [first, last] = secretLineSpan(rule.sample);
        BLOCK_CONTEXTS.forEach((_, context) => {
          const { text, line } = embed(positiveSample(rule, 80 + context), context + 1, context);
          assert.deepEqual(summary(detectSecrets(text)), [`${id}@${line + first}-${line + last}`], text);
        });
      }
    });
  });
});
