import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { reviewFindings } from '../../src/scanning/deep/model-review.ts';
import type { RawFinding } from '../../src/scanning/engine.ts';
import { SastEngine } from '../../src/scanning/sast/sast-engine.ts';
import { SecretsEngine } from '../../src/scanning/secrets/secrets-engine.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { listFiles, loadIgnore } from '../../src/scanning/source-files.ts';
import { createOrWriteTreeFile, readTreeFile, writeTreeFile } from '../../src/fixing/fixers/shared/tree-files.ts';
import { FixError } from '../../src/fixing/types.ts';
import { createProvider } from '../../src/llm/create-provider.ts';
import { createReadOnlyTools } from '../../src/llm/repo-tools/index.ts';
import { buildInventory } from '../../src/inventory/inventory.ts';
import { PathRefused, readTreeBytes, readTreeText, resolveInTree, writeTreeFile as writeWorkTreeFile } from '../../src/scm/work-tree.ts';
import { FINISHED_BATCH, waitFor } from '../support/helpers.ts';
import { createHarness, type Harness } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';
import { openAiWire, startLlmStub, type LlmStub, type RecordedRequest } from '../support/llm-stub-server.ts';
import { positiveSample } from '../support/secret-samples.ts';
import { FLASK_LOOKUP_APP as APP } from '../support/flask-app.ts';

// A scanned repository is hostile: symbolic links in it that lead to the server's files (its encryption
// key, /etc/passwd, /proc/self/environ) or to another organization's checkout are never read through.

/** What stands for the server's encryption key: a credential the secrets detector would report. */
const KEY_TEXT = `GITHUB_TOKEN = "${positiveSample(SECRET_RULES.find((r) => r.id === 'github-pat')!, 3)}"\nserver-encryption-key-marker\n`;
const OTHER_ORG_TEXT = 'import os\nOTHER_ORG_MARKER = "the other organization\'s code"\nos.system(input())\n';
/** The longest entry of this process's environment as /proc/self/environ shows it (set at start). */
const ENV_MARKER = fs.readFileSync('/proc/self/environ', 'utf8').split('\0').sort((a, b) => b.length - a.length)[0];
const PASSWD_MARKER = 'root:x:0:0';

/** Every text that must never leave: none of it may be in a request, a finding or the database. */
const OUTSIDE = ['server-encryption-key-marker', KEY_TEXT.split('"')[1], 'OTHER_ORG_MARKER', ENV_MARKER, PASSWD_MARKER];
const assertNoOutsideContent = (what: string, value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  for (const marker of OUTSIDE) assert.ok(!text.includes(marker), `${what} holds "${marker}"`);
};

/** The links a hostile repository commits: files and folders outside the checkout, and a FIFO-like device. */
function hostileLinks(outside: string, otherOrg: string): Record<string, string> {
  return {
    'leak/encryption.key': path.join(outside, 'encryption.key'),
    'leak/passwd': '/etc/passwd',
    'leak/environ': '/proc/self/environ',
    'leak/other.py': path.join(otherOrg, 'app.py'),
    'leak/other-org': otherOrg,
    'leak/inside.py': '../app.py',
    'config/prod.env': path.join(outside, 'encryption.key'),
  };
}

function linkFiles(dir: string, links: Record<string, string>) {
  for (const [name, target] of Object.entries(links)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.symlinkSync(target, path.join(dir, name));
  }
}

describe('symbolic links in a scanned repository', () => {
  let outside: string;
  let otherOrg: TestRepo;

  before(() => {
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-outside-'));
    fs.writeFileSync(path.join(outside, 'encryption.key'), KEY_TEXT);
    otherOrg = TestRepo.create();
    otherOrg.commit({ 'app.py': OTHER_ORG_TEXT });
  });
  after(() => {
    fs.rmSync(outside, { recursive: true, force: true });
    otherOrg.remove();
  });

  describe('a deep scan whose model reports findings at the links and asks to read them', () => {
    let h: Harness;
    let llm: LlmStub;
    let repo: TestRepo;
    const linkPaths = Object.keys(hostileLinks('/x', '/y'));
    const isDiscovery = (request: RecordedRequest) => JSON.stringify(request.body).includes('auditing one entry point');

    before(async () => {
      llm = await startLlmStub({
        path: openAiWire.path,
        basePath: openAiWire.basePath,
        script: (request) => {
          if (!isDiscovery(request)) return openAiWire.text(JSON.stringify({ verdict: 'confirmed', reason: 'checked', assets: [], boundaries: [], risks: [] }));
          if (request.body.messages.length <= 2) {
            return openAiWire.toolCalls([
              ...linkPaths.map((file, i) => ({ id: `r${i}`, name: 'read_file', args: { path: file } })),
              { id: 'l1', name: 'list_files', args: { path: 'leak/other-org' } },
              { id: 's1', name: 'search', args: { pattern: 'marker', ignore_case: true } },
              { id: 's2', name: 'search', args: { pattern: 'root', path: 'leak/passwd' } },
            ]);
          }
          const findings = [...linkPaths, 'leak/other-org/app.py'].map((file) => ({ file, line: 1, cwe: 'CWE-200', severity: 'critical', title: 'Leak', explanation: 'read it' }));
          return openAiWire.text(JSON.stringify({ findings: [...findings, { file: 'app.py', line: 7, cwe: 'CWE-306', severity: 'high', title: 'No sign-in', explanation: 'open' }] }));
        },
      });
      h = await createHarness({
        scanning: true,
        env: { BULWARK_LLM_PROVIDER: 'openai', BULWARK_LLM_BASE_URL: llm.url, BULWARK_LLM_MODEL: 'stub-model', BULWARK_LLM_API_KEY: 'sk-stub-key' },
      });
      repo = TestRepo.create();
      linkFiles(repo.dir, hostileLinks(outside, otherOrg.dir));
      repo.commit({ 'app.py': APP, 'requirements.txt': 'flask==2.0.0\n' });
      assert.equal(repo.git('ls-files', '-s', 'leak/passwd').split(' ')[0], '120000', 'the links are committed as links');
    });
    after(async () => {
      await h.close();
      await llm.close();
      repo.remove();
    });

    test('no snippet, stored finding or model request holds anything from outside the checkout, whatever the scan type', async () => {
      const org = await h.org('links');
      const unit = await h.unit(org, ['github:acme/links@main'], 'links', [repo.url]);
      const base = `/api/v1/repositories/${unit.id}`;
      for (const scanType of ['deep_ai_scan', 'secrets_scan', 'semgrep_scan', 'sbom_scan']) {
        const created = await h.call('POST', `${base}/scans`, { key: org.key, body: { scan_type: scanType } });
        assert.equal(created.statusCode, 202, created.body);
        const progress = await waitFor(scanType, 120, async () => {
          const body = (await h.call('GET', `${base}/scans/${created.json().batch_id}/progress`, { key: org.key })).json();
          return FINISHED_BATCH.includes(body.status) ? body : undefined;
        });
        assert.equal(progress.status, 'completed', JSON.stringify(progress));
      }
      const discoveries = llm.requests.filter(isDiscovery);
      assert.ok(discoveries.some((r) => (r.body.messages?.length ?? 0) > 2), 'the model asked for the links and was answered');
      const answers = JSON.stringify(discoveries.map((r) => r.body.messages));
      assert.match(answers, /is a symbolic link, which is not followed/);
      for (const request of llm.requests) assertNoOutsideContent('a request to the model', request.body);

      const findings = (await h.call('GET', `${base}/findings?limit=200`, { key: org.key })).json().items as { file_path?: string; snippet?: string }[];
      assert.ok(findings.length > 0);
      assertNoOutsideContent('the findings served', findings);
      const stored = await h.database.store.db.selectFrom('findings').selectAll().where('unit_id', '=', unit.id).execute();
      assertNoOutsideContent('the findings stored', stored);
      const paths = stored.map((f) => String((f as { file_path: string }).file_path));
      assert.ok(paths.includes('app.py'), paths.join());
      assert.ok(!paths.some((p) => p.startsWith('leak/') || p.startsWith('config/')), paths.join());
    });
  });

  describe('each reader', () => {
    let dir: string;

    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-links-'));
      fs.writeFileSync(path.join(dir, 'app.py'), APP);
      fs.writeFileSync(path.join(dir, 'requirements.txt'), '-r leak/other-org/requirements.txt\nflask==2.0.0\n');
      fs.writeFileSync(path.join(otherOrg.dir, 'requirements.txt'), 'other-org-private-package==1.0\n');
      linkFiles(dir, hostileLinks(outside, otherOrg.dir));
      execFileSync('mkfifo', [path.join(dir, 'pipe.py')]);
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    test('the resolver refuses every link, escape, .git path and NUL; regular files resolve', async () => {
      for (const file of Object.keys(hostileLinks('/x', '/y'))) await assert.rejects(resolveInTree(dir, file), /is a symbolic link, which is not followed/);
      await assert.rejects(resolveInTree(dir, 'leak/other-org/app.py'), /leak\/other-org is a symbolic link/);
      await assert.rejects(resolveInTree(dir, '../x'), /leads outside/);
      await assert.rejects(resolveInTree(dir, 'app.py/../../x'), /leads outside/);
      await assert.rejects(resolveInTree(dir, '/etc/passwd'), /is absolute/);
      await assert.rejects(resolveInTree(dir, 'C:\\x'), /is absolute/);
      await assert.rejects(resolveInTree(dir, 'app.py\0'), /NUL/);
      await assert.rejects(resolveInTree(dir, '.git/config'), /\.git folder/);
      await assert.rejects(resolveInTree(dir, 'app.py/x'), /app.py is a file/);
      assert.deepEqual(await resolveInTree(dir, './app.py'), { rel: 'app.py', abs: path.join(dir, 'app.py'), exists: true });
      assert.equal((await resolveInTree(dir, 'new/file.py')).exists, false);
      await assert.rejects(readTreeBytes(dir, 'pipe.py', 1024), /not a regular file/);
      assert.equal(await readTreeText(dir, 'pipe.py', 1024), null);
      assert.equal(await readTreeText(dir, 'leak/environ', 1 << 20), null);
      assert.equal(await readTreeText(dir, 'app.py', 1 << 20), APP);
      assert.equal((await readTreeBytes(dir, 'app.py', 10))?.bytes, undefined, 'nothing is read past the limit');
    });

    test('reads sharing the folders they checked still refuse a link below a checked folder', async () => {
      fs.writeFileSync(path.join(dir, 'leak', 'real.py'), 'x = 1\n');
      const folders = new Set<string>();
      assert.equal((await readTreeBytes(dir, 'leak/real.py', 1024, folders))?.bytes?.toString(), 'x = 1\n');
      assert.ok(folders.has(path.join(dir, 'leak')), 'the folder on the way is remembered');
      await assert.rejects(readTreeBytes(dir, 'leak/other-org/app.py', 1 << 20, folders), /leak\/other-org is a symbolic link/);
      await assert.rejects(readTreeBytes(dir, 'leak/encryption.key', 1 << 20, folders), /leak\/encryption.key is a symbolic link/);
      await assert.rejects(readTreeBytes(dir, 'leak/passwd', 1 << 20, folders), /is a symbolic link/);
      assert.ok(![...folders].some((folder) => folder.includes('other-org')), 'a link is never remembered as a folder');
      fs.rmSync(path.join(dir, 'leak', 'real.py'));
    });

    test('engines list and read no link: secrets, SAST and the dependency inventory see only the checkout', async () => {
      assert.deepEqual((await listFiles(dir, await loadIgnore(dir))).sort(), ['app.py', 'requirements.txt']);
      const secrets = await new SecretsEngine({ historyDepth: 0, pool: null }).scan({ dir, fingerprintKey: Buffer.alloc(32, 1) });
      assert.deepEqual(secrets, []);
      const sast = await new SastEngine({ pool: null }).scan({ dir, fingerprintKey: Buffer.alloc(32, 1) });
      assert.deepEqual([...new Set(sast.map((f) => f.filePath))], ['app.py']);
      assertNoOutsideContent('the SAST findings', sast);
      const inventory = await buildInventory(dir);
      assert.deepEqual(inventory.components.map((c) => c.name), ['flask']);
    });

    test('the read-only repository tools answer a refusal for every link', async () => {
      const tools = await createReadOnlyTools({ dir, boundary: 'b0undary' });
      for (const file of [...Object.keys(hostileLinks('/x', '/y')), 'leak/other-org/app.py']) {
        const outcome = await tools.call('read_file', { path: file });
        assert.equal(outcome.isError, true, outcome.content);
        assertNoOutsideContent('read_file', outcome.content);
      }
      const listing = await tools.call('list_files', { path: 'leak/other-org' });
      assert.equal(listing.isError, true, listing.content);
      const everywhere = await tools.call('search', { pattern: 'marker|root|OTHER', regex: true, ignore_case: true });
      assertNoOutsideContent('search', everywhere.content);
      assert.equal((await tools.call('search', { pattern: 'root', path: 'leak/passwd' })).isError, true);
      assert.equal((await tools.call('read_file', { path: 'pipe.py' })).isError, true, 'a FIFO is not read (nor waited on)');
    });

    test('the model review sends no code read through a link', async () => {
      const llm = await startLlmStub({ path: openAiWire.path, basePath: openAiWire.basePath, script: () => openAiWire.text('{"verdict":"confirmed","reason":"x"}') });
      try {
        const provider = await createProvider({ provider: 'openai', baseUrl: llm.url, model: 'm', apiKey: 'k', maxSteps: 1, timeoutSeconds: 30 }, { maxRetries: 0 });
        const finding = (filePath: string): RawFinding => ({
          checkId: 'x', severity: 'high', category: 'c', title: 't', message: 'm', filePath, startLine: 1, endLine: 1, cwe: ['CWE-1'], owasp: [], references: [],
          fingerprint: filePath, matchHash: filePath, anchor: null, snippet: null, commitSha: null, metadata: {},
        });
        const findings = ['app.py', ...Object.keys(hostileLinks('/x', '/y'))].map(finding);
        const notes: string[] = [];
        await reviewFindings(provider, { runs: 1, maxCalls: 50, maxTokens: 1_000_000, timeoutSeconds: 60 }, { dir, findings, model: 'm', cacheDir: null, onNote: (n) => notes.push(n) });
        assert.equal(llm.requests.length, 1, `only the finding in a regular file is reviewed ${notes.join()}`);
        for (const request of llm.requests) assertNoOutsideContent('a review request', request.body);
      } finally {
        await llm.close();
      }
    });

    test('fixers and the shared writer never write through a link, nor what controls git', async () => {
      await assert.rejects(writeTreeFile(dir, 'config/prod.env', 'x'), (e) => e instanceof FixError && /symbolic link/.test(e.message));
      await assert.rejects(createOrWriteTreeFile(dir, 'leak/other-org/new.py', 'x'), FixError);
      await assert.rejects(readTreeFile(dir, 'leak/passwd'), FixError);
      await assert.rejects(writeWorkTreeFile(dir, '.gitattributes', '* filter=x\n', { create: true }), PathRefused);
      await assert.rejects(writeWorkTreeFile(dir, 'sub/.gitmodules', '', { create: true }), PathRefused);
      assert.equal(fs.readFileSync(path.join(outside, 'encryption.key'), 'utf8'), KEY_TEXT);
      assert.ok(!fs.existsSync(path.join(otherOrg.dir, 'new.py')));
      assert.ok(!fs.existsSync(path.join(dir, '.gitattributes')));
      await createOrWriteTreeFile(dir, 'made/new.py', 'x = 1\n');
      assert.equal(fs.readFileSync(path.join(dir, 'made/new.py'), 'utf8'), 'x = 1\n');
      fs.rmSync(path.join(dir, 'made'), { recursive: true });
    });
  });
});
