import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { TestRepo } from '../support/git-repo.ts';
import { positiveSample } from '../support/secret-samples.ts';

// `bulwark scan DIR --baseline REF` in a real repository: REF holds a credential and an SSRF call; the head
// commit moves both (lines added above, files renamed) and adds one credential and one command injection.
// Only the additions are new.

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

const sampleOf = (id: string, seed: number) => positiveSample(SECRET_RULES.find((r) => r.id === id)!, seed);
const awsKey = sampleOf('aws-access-key-id', 811);
const githubToken = sampleOf('github-pat', 812);
const feedToken = sampleOf('gitlab-feed-token', 813);

const SSRF = 'python.lang.ssrf.outbound-request';
const COMMAND = 'python.lang.command-injection.shell-command';

const DEPLOY = `#!/bin/sh\nexport AWS_ACCESS_KEY_ID=${awsKey}\naws s3 sync build/ s3://assets --delete\naws cloudfront create-invalidation --paths "/*"\necho "deployed"\n`;
const PREVIEW = `import requests
from flask import Flask, request

app = Flask(__name__)


@app.route("/preview")
def preview():
    url = request.args.get("url")
    return requests.get(url, timeout=5).text
`;
const TASKS = `import os
from flask import Flask, request

app = Flask(__name__)


@app.route("/run")
def run():
    cmd = request.args.get("cmd")
    os.system(cmd)
    return "ok"
`;

interface JsonFinding {
  check_id: string;
  severity: string;
  file_path: string;
  start_line: number;
}

/** The SARIF 2.1.0 schema @microsoft/jest-sarif ships, its draft-04 header restated as draft-07 (see test/scans/local-scan.test.ts). */
function sarifValidator() {
  const require = createRequire(import.meta.url);
  const { $schema, id, ...body } = JSON.parse(fs.readFileSync(require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'), 'utf8'));
  assert.match($schema, /draft-04/);
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  formats.default(ajv);
  return ajv.compile<any>({ $schema: 'http://json-schema.org/draft-07/schema#', $id: id, ...body });
}

/** Every file below `dir` (its .git folder too): path, size, change time and a hash of the content. */
function snapshot(dir: string): string[] {
  const lines: string[] = [];
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(folder, entry.name);
      const stat = fs.lstatSync(full);
      const rel = path.relative(dir, full);
      if (entry.isDirectory()) {
        lines.push(`${rel}/`);
        walk(full);
      } else {
        const content = entry.isSymbolicLink() ? fs.readlinkSync(full) : fs.readFileSync(full);
        lines.push(`${rel} ${stat.size} ${stat.mtimeMs} ${stat.ctimeMs} ${crypto.createHash('sha256').update(content).digest('hex')}`);
      }
    }
  };
  walk(dir);
  return lines;
}

describe('bulwark scan --baseline: only what REF does not already have', () => {
  const cleanup: (() => void)[] = [];
  /** The TMPDIR of every run: the baseline's temporary folders would be left here. */
  let tmp: string;
  let cwd: string;
  /** An empty data directory: an sbom scan then runs without OSV records and without a database. */
  let dataDir: string;
  let repo: TestRepo;
  let base: string;
  let head: string;

  const tempDir = (prefix: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    return dir;
  };

  const scanEnv = () => ({
    ...process.env,
    TMPDIR: tmp,
    DATABASE_URL: undefined,
    BULWARK_DATA_DIR: dataDir,
    BULWARK_ENCRYPTION_KEY: undefined,
    BULWARK_SECRETS_HISTORY_DEPTH: undefined,
  });

  function scan(dir: string, args: string[]) {
    const result = spawnSync(process.execPath, [CLI, 'scan', dir, ...args], { cwd, encoding: 'utf8', env: scanEnv() });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  function scanJson(dir: string, args: string[]) {
    const run = scan(dir, [...args, '--format', 'json']);
    assert.equal(run.status, 0, run.stderr);
    return { ...JSON.parse(run.stdout), stderr: run.stderr } as { findings: JsonFinding[]; summary: Record<string, any>; stderr: string };
  }

  /** What the temporary directory holds besides node's compile cache: nothing, once a scan has ended. */
  const leftInTmp = () => fs.readdirSync(tmp).filter((name) => name !== 'node-compile-cache');

  /** REF and a head that moves REF's findings and adds two. */
  function historyRepo(): { repo: TestRepo; base: string; head: string } {
    const repo = TestRepo.create();
    cleanup.push(() => repo.remove());
    const base = repo.commit({ 'deploy/aws.sh': DEPLOY, 'app.py': PREVIEW, 'README.md': '# shop\n' }, 'base');
    const head = repo.commit(
      {
        'deploy/aws.sh': null,
        'scripts/deploy-aws.sh': `#!/bin/sh\n# Publishes the built site.\n# Needs the AWS CLI.\n${DEPLOY.slice(DEPLOY.indexOf('\n') + 1)}`,
        'app.py': null,
        'web/app.py': `"""Link previews."""\nimport logging\n\nlog = logging.getLogger(__name__)\n${PREVIEW}`,
        'src/config.js': `module.exports = {\n  github: "${githubToken}",\n};\n`,
        'tasks.py': TASKS,
      },
      'head',
    );
    return { repo, base, head };
  }

  before(() => {
    tmp = tempDir('bulwark-baseline-test-tmp-');
    cwd = tempDir('bulwark-baseline-test-cwd-');
    dataDir = tempDir('bulwark-baseline-test-data-');
    ({ repo, base, head } = historyRepo());
  });

  after(() => {
    for (const run of cleanup.reverse()) run();
  });

  test('the setup: without a baseline the moved credential is found on its new line, in its renamed file', () => {
    const { findings } = scanJson(repo.dir, ['--type', 'secrets']);
    assert.deepEqual(
      findings.map((f) => [f.check_id, f.file_path, f.start_line]).sort(),
      [
        ['secrets.aws-access-key-id', 'scripts/deploy-aws.sh', 4],
        ['secrets.github-pat', 'src/config.js', 2],
      ],
    );
    assert.match(repo.git('diff', '-M', '--name-status', base, head), /^R\d+\tdeploy\/aws\.sh\tscripts\/deploy-aws\.sh$/m);
  });

  test('json: only the new credential; the summary counts it and says how many REF already had', () => {
    const { findings, summary, stderr } = scanJson(repo.dir, ['--type', 'secrets', '--baseline', base]);
    assert.deepEqual(findings.map((f) => [f.check_id, f.file_path, f.start_line]), [['secrets.github-pat', 'src/config.js', 2]]);
    assert.equal(summary.total, 1);
    assert.deepEqual(summary.by_severity, { critical: 1, high: 0, medium: 0, low: 0 });
    assert.equal(summary.commit, head);
    assert.deepEqual(summary.baseline, { ref: base, commit: base, already_present: 1 });
    assert.equal(stderr, `bulwark: 1 new finding; 1 finding left out as already present in ${base} (${base.slice(0, 12)})\n`);

    // A branch name is a revision like any other.
    repo.git('branch', '--force', 'release', base);
    assert.deepEqual(scanJson(repo.dir, ['--type', 'secrets', '--baseline', 'release']).summary.baseline, { ref: 'release', commit: base, already_present: 1 });
    assert.deepEqual(leftInTmp(), [], 'the baseline\'s temporary folder is gone');
  });

  test('sarif: valid SARIF 2.1.0 holding only the new result, with the baseline in the run\'s properties', () => {
    const run = scan(repo.dir, ['--type', 'secrets', '--format', 'sarif', '--baseline', base]);
    assert.equal(run.status, 0, run.stderr);
    const sarif = JSON.parse(run.stdout);
    const validate = sarifValidator();
    assert.ok(validate(sarif), JSON.stringify(validate.errors, null, 2));
    const [only] = sarif.runs;
    assert.deepEqual(only.results.map((r: any) => [r.ruleId, r.locations[0].physicalLocation.artifactLocation.uri]), [['secrets.github-pat', 'src/config.js']]);
    assert.deepEqual(only.tool.driver.rules.map((r: { id: string }) => r.id), ['secrets.github-pat']);
    assert.deepEqual(only.properties.baseline, { ref: base, commit: base, alreadyPresent: 1 });
    assert.equal(only.properties.commit, head);
  });

  test('table and semgrep-json: the new finding only; the table\'s last line and stderr say what was left out', () => {
    const table = scan(repo.dir, ['--type', 'secrets', '--baseline', base]);
    assert.equal(table.status, 0, table.stderr);
    assert.equal(table.stderr, '');
    const lines = table.stdout.trimEnd().split('\n');
    assert.equal(lines.filter((l) => /^(critical|high|medium|low)\s/.test(l)).length, 1);
    assert.match(lines[1], /^critical\s+secrets\.github-pat\s+src\/config\.js:2\s/);
    assert.match(lines.at(-2)!, /^1 finding \(1 critical, 0 high, 0 medium, 0 low\) in /);
    assert.equal(lines.at(-1), `1 finding left out as already present in ${base} (${base.slice(0, 12)})`);

    const semgrep = scan(repo.dir, ['--type', 'secrets', '--format', 'semgrep-json', '--baseline', base]);
    assert.equal(semgrep.status, 0, semgrep.stderr);
    assert.deepEqual(JSON.parse(semgrep.stdout).results.map((r: any) => [r.check_id, r.path]), [['secrets.github-pat', 'src/config.js']]);
    assert.match(semgrep.stderr, /^bulwark: 1 new finding; 1 finding left out as already present in /);

    const outFile = path.join(tempDir('bulwark-baseline-out-'), 'report.json');
    const written = scan(repo.dir, ['--type', 'secrets', '--format', 'json', '--output', outFile, '--baseline', base]);
    assert.equal(written.status, 0, written.stderr);
    assert.equal(written.stdout, '');
    assert.equal(written.stderr, `bulwark: 1 new finding (1 finding left out as already present in ${base} (${base.slice(0, 12)})); json report written to ${outFile}\n`);
    assert.equal(JSON.parse(fs.readFileSync(outFile, 'utf8')).findings.length, 1);
  });

  test('exit codes: --fail-on weighs only new findings', () => {
    assert.equal(scan(repo.dir, ['--type', 'secrets', '--baseline', base, '--fail-on', 'critical']).status, 1, 'the new token is critical');
    const same = scan(repo.dir, ['--type', 'secrets', '--format', 'json', '--baseline', head, '--fail-on', 'low']);
    assert.equal(same.status, 0, `nothing is new against the head itself: ${same.stderr}`);
    assert.deepEqual(JSON.parse(same.stdout).summary.baseline.already_present, 2);
    assert.equal(scan(repo.dir, ['--type', 'secrets', '--fail-on', 'low']).status, 1, 'without --baseline both count');

    // Only the old credential: it moved, its file was renamed, and it still is not new.
    const moved = TestRepo.create();
    cleanup.push(() => moved.remove());
    const movedBase = moved.commit({ 'deploy/aws.sh': DEPLOY });
    moved.commit({ 'deploy/aws.sh': null, 'ops/publish.sh': `#!/bin/sh\nset -eu\n\n${DEPLOY.slice(DEPLOY.indexOf('\n') + 1)}` });
    assert.equal(scan(moved.dir, ['--type', 'secrets', '--fail-on', 'low']).status, 1);
    assert.equal(scan(moved.dir, ['--type', 'secrets', '--baseline', movedBase, '--fail-on', 'low']).status, 0);
  });

  test('semgrep: the SSRF call moved into a renamed file is not new; the added command injection is', () => {
    const all = scanJson(repo.dir, ['--type', 'semgrep']).findings;
    assert.ok(all.some((f) => f.check_id === SSRF && f.file_path === 'web/app.py' && f.start_line === 14), JSON.stringify(all));
    const { findings, summary } = scanJson(repo.dir, ['--type', 'semgrep', '--baseline', base]);
    assert.ok(!findings.some((f) => f.check_id === SSRF), JSON.stringify(findings));
    assert.ok(findings.some((f) => f.check_id === COMMAND && f.file_path === 'tasks.py'), JSON.stringify(findings));
    assert.ok(findings.every((f) => ['tasks.py', 'src/config.js'].includes(f.file_path)), 'only the files the head added');
    assert.equal(summary.baseline.already_present, all.length - findings.length);
    assert.ok(summary.baseline.already_present >= 1);
  });

  test('every scan type the CLI runs takes --baseline', () => {
    for (const type of ['secrets', 'semgrep', 'deep', 'sbom']) {
      const { summary } = scanJson(repo.dir, ['--type', type, '--baseline', head]);
      assert.equal(summary.total, 0, `${type}: nothing is new against the head itself`);
      assert.equal(summary.baseline.commit, head);
    }
  });

  test('a folder inside the work tree is compared with the same folder of REF', () => {
    const { findings, summary } = scanJson(path.join(repo.dir, 'src'), ['--type', 'secrets', '--baseline', base]);
    assert.deepEqual(findings.map((f) => [f.check_id, f.file_path]), [['secrets.github-pat', 'config.js']]);
    assert.equal(summary.baseline.already_present, 0);
    assert.equal(scanJson(path.join(repo.dir, 'src'), ['--type', 'secrets', '--baseline', head]).summary.total, 0);
  });

  test('usage errors: an unknown revision, an option-like value, a folder outside any repository, --format cyclonedx', () => {
    const plain = tempDir('bulwark-baseline-plain-');
    fs.writeFileSync(path.join(plain, 'config.js'), `token = "${githubToken}"\n`);
    const cases: [string, string[], RegExp][] = [
      [repo.dir, ['--baseline', 'no-such-branch'], /--baseline no-such-branch: no such commit in the repository at /],
      [repo.dir, ['--baseline', `${base}:app.py`], /no such commit/],
      [repo.dir, ['--baseline=--output=/tmp/x'], /--baseline takes a git revision \(a branch, tag or commit\), not "--output=\/tmp\/x"/],
      [repo.dir, ['--baseline', ''], /--baseline needs a git revision/],
      [plain, ['--baseline', 'main'], /is not in a git work tree/],
      [repo.dir, ['--type', 'sbom', '--format', 'cyclonedx', '--baseline', base], /--format cyclonedx prints the SBOM/],
    ];
    for (const [dir, args, message] of cases) {
      const run = scan(dir, args.includes('--type') ? args : ['--type', 'secrets', ...args]);
      assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, message);
    }
    assert.deepEqual(leftInTmp(), []);
  });

  test('DIR\'s work tree, index and .git are unchanged, nothing the repository configures runs, no temporary folder is left', () => {
    const { repo: dirty, base: dirtyBase } = historyRepo();
    // Nothing of this may run: a clean filter for every file, an fsmonitor hook, hooks.
    const marker = path.join(tempDir('bulwark-baseline-marker-'), 'ran');
    const hooks = tempDir('bulwark-baseline-hooks-');
    for (const hook of ['post-checkout', 'post-index-change', 'reference-transaction']) {
      fs.writeFileSync(path.join(hooks, hook), `#!/bin/sh\necho ${hook} >> "${marker}"\n`, { mode: 0o755 });
    }
    fs.writeFileSync(path.join(dirty.dir, '.git', 'info', 'attributes'), '* filter=tidy diff=tidy\n');
    dirty.git('config', 'filter.tidy.clean', `echo clean >> "${marker}"; cat`);
    dirty.git('config', 'filter.tidy.required', 'true');
    dirty.git('config', 'diff.tidy.textconv', `echo textconv >> "${marker}"; cat`);
    dirty.git('config', 'diff.external', `echo external >> "${marker}"`);
    dirty.git('config', 'core.fsmonitor', `echo fsmonitor >> "${marker}"; true`);
    dirty.git('config', 'core.hooksPath', hooks);
    // A dirty work tree: a tracked file edited, an untracked file, and every file's stat changed, so that git
    // hashes them again (running the filter), and for README.md, the same in REF, writes the stat data it
    // refreshed to the index it read.
    fs.appendFileSync(path.join(dirty.dir, 'tasks.py'), '# Edited, not staged.\n');
    fs.writeFileSync(path.join(dirty.dir, 'notes.txt'), `feed: ${feedToken}\n`);
    const earlier = new Date(Date.now() - 3_600_000);
    for (const file of ['README.md', 'scripts/deploy-aws.sh', 'web/app.py', 'src/config.js']) fs.utimesSync(path.join(dirty.dir, file), earlier, earlier);
    const before = snapshot(dirty.dir);

    const { findings, summary } = scanJson(dirty.dir, ['--type', 'secrets', '--baseline', dirtyBase]);
    assert.deepEqual(
      findings.map((f) => [f.check_id, f.file_path]).sort(),
      [['secrets.github-pat', 'src/config.js'], ['secrets.gitlab-feed-token', 'notes.txt']],
      'the untracked file is scanned and new; the renamed file still is not',
    );
    assert.equal(summary.baseline.already_present, 1);
    assert.equal(fs.existsSync(marker), false, fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '');
    assert.deepEqual(snapshot(dirty.dir), before);
    assert.deepEqual(leftInTmp(), []);
  });

  test('REF\'s symbolic links are not followed and its crafted paths write nothing outside the temporary folder', () => {
    const hostile = TestRepo.create();
    cleanup.push(() => hostile.remove());
    const outside = tempDir('bulwark-baseline-outside-');
    fs.writeFileSync(path.join(outside, 'prod.env'), `GITHUB_TOKEN=${githubToken}\n`);
    fs.symlinkSync(path.join(outside, 'prod.env'), path.join(hostile.dir, 'prod.env'));
    const linked = hostile.commit({ 'README.md': '# linked\n' }, 'a link to a file outside');
    // The head holds the credential itself where REF had the link: followed, the link would hide it.
    fs.rmSync(path.join(hostile.dir, 'prod.env'));
    hostile.commit({ 'prod.env': `GITHUB_TOKEN=${githubToken}\n` }, 'the file itself');
    const { findings } = scanJson(hostile.dir, ['--type', 'secrets', '--baseline', linked]);
    assert.deepEqual(findings.map((f) => [f.check_id, f.file_path]), [['secrets.github-pat', 'prod.env']]);

    // A tree git itself would never check out: `..` and `.GIT` entries, next to a harmless file.
    const mktree = (entries: string) => spawnSync('git', ['mktree'], { cwd: hostile.dir, input: entries, encoding: 'utf8' }).stdout.trim();
    const blob = spawnSync('git', ['hash-object', '-w', '--stdin'], { cwd: hostile.dir, input: `GITHUB_TOKEN=${githubToken}\n`, encoding: 'utf8' }).stdout.trim();
    const inner = mktree(`100644 blob ${blob}\tescaped.env\n`);
    const root = mktree(`040000 tree ${inner}\t..\n040000 tree ${inner}\t.GIT\n100644 blob ${blob}\tprod.env\n`);
    const crafted = hostile.git('commit-tree', root, '-m', 'crafted').trim();
    // Its tree only: reading the crafted commit's history is the engine's affair, not the baseline's.
    const run = scanJson(hostile.dir, ['--type', 'secrets', '--baseline', crafted, '--history-depth', '0']);
    assert.deepEqual(run.findings, [], 'the regular file of the crafted tree is read');
    assert.equal(run.summary.baseline.already_present, 1);
    assert.deepEqual(leftInTmp(), [], 'nothing escaped into the temporary directory');
    assert.equal(fs.existsSync(path.join(hostile.dir, 'escaped.env')), false);
  });

  test('Ctrl-C while REF is written or scanned removes its temporary folder', async () => {
    const large = TestRepo.create();
    cleanup.push(() => large.remove());
    const files: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) files[`pkg${i % 30}/module${i}.js`] = `// module ${i}\n${'export const value = "' + 'x'.repeat(60) + '";\n'.repeat(40)}`;
    const largeBase = large.commit(files, 'many files');
    large.commit({ 'src/config.js': `module.exports = { github: "${githubToken}" };\n` });

    const child = spawn(process.execPath, [CLI, 'scan', large.dir, '--type', 'secrets', '--baseline', largeBase], { cwd, env: scanEnv(), stdio: 'ignore' });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    let seen = false;
    let finished = false;
    void exited.then(() => (finished = true));
    while (!finished && !seen) {
      seen = fs.readdirSync(tmp).some((name) => name.startsWith('bulwark-baseline-'));
      if (!seen) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    assert.ok(seen, 'the scan reached the baseline before it ended');
    child.kill('SIGINT');
    const { signal } = await exited;
    assert.equal(signal, 'SIGINT', 'the interrupt still ends the process');
    assert.deepEqual(leftInTmp(), []);
  });
});
