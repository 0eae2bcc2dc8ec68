import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { TokenBox } from '../../src/crypto/token-box.ts';
import type { RawFinding } from '../../src/scanning/engine.ts';
import { detectSecrets } from '../../src/scanning/secrets/detector.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { SecretsEngine } from '../../src/scanning/secrets/secrets-engine.ts';
import { progressDisplay, type ProgressStream } from '../../src/cli/progress.ts';
import type { ScanProgress } from '../../src/scanning/engine.ts';
import { TestRepo } from '../support/git-repo.ts';
import { positiveSample } from '../support/secret-samples.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const FORMATS = ['table', 'json', 'sarif', 'semgrep-json'] as const;
/** The finding fields a local json report shares with the API's finding responses, plus its own three. */
const JSON_FINDING_FIELDS = [
  'check_id', 'severity', 'category', 'title', 'message', 'file_path', 'start_line', 'end_line', 'cwe', 'owasp', 'references',
  'source_url', 'cvss_base_score', 'cvss_severity', 'cvss_vector', 'fingerprint', 'match_hash', 'anchor', 'snippet', 'commit_sha', 'metadata',
];

/** A finding of a local json report. */
interface JsonFinding {
  check_id: string;
  severity: RawFinding['severity'];
  title: string;
  message: string;
  file_path: string;
  start_line: number;
  end_line: number;
  cwe: string[];
  fingerprint: string;
  commit_sha: string | null;
  metadata: Record<string, unknown>;
}

const sampleOf = (id: string, seed: number) => positiveSample(SECRET_RULES.find((r) => r.id === id)!, seed);

/**
 * The SARIF 2.1.0 schema as @microsoft/jest-sarif ships it (schemastore's sarif-2.1.0-rtm.5.json). Apart from
 * its header and description texts it is the OASIS standard's sarif-schema-2.1.0.json, and it uses only
 * keywords that mean the same in draft-04 and draft-07; its header says draft-04, which Ajv 8 does not load,
 * so the header is restated as draft-07 (`id` becomes `$id`) and the body is used as published.
 */
function sarifValidator() {
  const require = createRequire(import.meta.url);
  const file = require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json');
  const { $schema, id, ...body } = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.match($schema, /draft-04/, 'the shipped schema header changed; revisit the restatement below');
  // unicodeRegExp off: the standard's `language` pattern has a stray `]` that only the `u` flag rejects.
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  formats.default(ajv);
  return ajv.compile<any>({ $schema: 'http://json-schema.org/draft-07/schema#', $id: id, ...body });
}

/** A working directory of its own for each run, so a stray ./data would show. */
let cwd: string;

/**
 * Runs `bulwark scan` in a child process. Settings a developer's shell may carry are cleared, and the
 * database URL points nowhere: a local scan must not need one.
 */
function scan(dir: string, args: string[], env: Record<string, string | undefined> = {}, runIn = cwd) {
  const result = spawnSync(process.execPath, [CLI, 'scan', dir, ...args], {
    cwd: runIn,
    encoding: 'utf8',
    env: {
      ...process.env,
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      BULWARK_DATA_DIR: undefined,
      BULWARK_ENCRYPTION_KEY: undefined,
      BULWARK_SECRETS_HISTORY_DEPTH: undefined,
      ...env,
    },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function scanOk(dir: string, args: string[], env?: Record<string, string | undefined>, runIn?: string) {
  const run = scan(dir, args, env, runIn);
  assert.equal(run.status, 0, `bulwark scan ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return run;
}

const scanJson = (dir: string, args: string[] = [], env?: Record<string, string | undefined>) =>
  JSON.parse(scanOk(dir, ['--type', 'secrets', '--format', 'json', ...args], env).stdout) as {
    findings: JsonFinding[];
    summary: Record<string, any>;
  };

describe('bulwark scan: local scanning without the server', () => {
  const cleanup: (() => void)[] = [];
  const awsKey = sampleOf('aws-access-key-id', 701); // critical, deleted: history only
  const githubToken = sampleOf('github-pat', 702); // critical
  const googleKey = sampleOf('gcp-api-key', 703); // high
  const feedToken = sampleOf('gitlab-feed-token', 704); // medium
  /** The credentials themselves, as the detector delimits them; none may appear in any output. */
  const rawSecrets = [awsKey, githubToken, googleKey, feedToken].map((sample) => {
    const [match] = detectSecrets(sample);
    assert.ok(match, `the fixture ${sample.slice(0, 4)}… is detected`);
    return match.secret;
  });
  const TREE = {
    'src/config.js': `module.exports = {\n  github: "${githubToken}",\n};\n`,
    'config dir/settings.env': `# settings\nGOOGLE_API_KEY=${googleKey}\n`,
    'ci/feed.txt': `feed: ${feedToken}\n`,
    'README.md': '# service\n',
  };
  let repo: TestRepo;
  let firstCommit: string;
  let head: string;
  let plain: string;
  let clean: TestRepo;

  const tempDir = (prefix: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    return dir;
  };

  before(() => {
    cwd = tempDir('bulwark-scan-cwd-');
    repo = TestRepo.create();
    cleanup.push(() => repo.remove());
    firstCommit = repo.commit({ 'deploy/aws.sh': `export AWS_ACCESS_KEY_ID=${awsKey}\n` }, 'add deploy script');
    repo.commit({ 'deploy/aws.sh': 'export AWS_ACCESS_KEY_ID="$AWS_KEY"\n' }, 'read the key from the environment');
    head = repo.commit(TREE, 'add config');

    plain = tempDir('bulwark-plain-');
    for (const [name, content] of Object.entries(TREE)) {
      fs.mkdirSync(path.dirname(path.join(plain, name)), { recursive: true });
      fs.writeFileSync(path.join(plain, name), content);
    }

    clean = TestRepo.create();
    cleanup.push(() => clean.remove());
    clean.commit({ 'README.md': '# nothing to see\n', 'src/app.js': 'export const token = process.env.TOKEN;\n' });
  });

  after(() => {
    for (const run of cleanup.reverse()) run();
  });

  test('json: the API\'s snake_case finding fields and a summary; the deleted key is found in history, the rest in the tree', () => {
    const { findings, summary } = scanJson(repo.dir);
    for (const finding of findings) {
      for (const field of JSON_FINDING_FIELDS) assert.ok(field in finding, `${field} in ${Object.keys(finding).join(', ')}`);
      for (const field of Object.keys(finding)) assert.match(field, /^[a-z0-9]+(?:_[a-z0-9]+)*$/, 'field names are snake_case');
    }
    assert.deepEqual(
      findings.map((f) => [f.check_id, f.severity, f.file_path, f.start_line, f.commit_sha]).sort(),
      [
        ['secrets.aws-access-key-id', 'critical', 'deploy/aws.sh', 1, firstCommit],
        ['secrets.gcp-api-key', 'high', 'config dir/settings.env', 2, null],
        ['secrets.github-pat', 'critical', 'src/config.js', 2, null],
        ['secrets.gitlab-feed-token', 'medium', 'ci/feed.txt', 1, null],
      ],
    );
    assert.deepEqual(summary, {
      total: 4,
      by_severity: { critical: 2, high: 1, medium: 1, low: 0 },
      scan_type: 'secrets_scan',
      target: repo.dir,
      commit: head,
      history_depth: 500,
    });
    assert.deepEqual(fs.readdirSync(cwd), [], 'a local scan creates nothing in the working directory (no ./data)');
  });

  test('table: severity, check, path:line and message per finding, most severe first, and a count line', () => {
    const { stdout, stderr } = scanOk(repo.dir, ['--type', 'secrets']);
    assert.equal(stderr, '');
    const lines = stdout.trimEnd().split('\n');
    assert.match(lines[0], /^SEVERITY\s+CHECK\s+LOCATION\s+MESSAGE$/);
    const rows = lines.slice(1, 5);
    assert.deepEqual(rows.map((row) => row.split(/\s+/)[0]), ['critical', 'critical', 'high', 'medium']);
    assert.ok(rows.some((row) => /^high\s+secrets\.gcp-api-key\s+config dir\/settings\.env:2\s+Google API key \(AIza\*+/.test(row)), rows.join('\n'));
    assert.ok(rows.some((row) => /^critical\s+secrets\.aws-access-key-id\s+deploy\/aws\.sh:1\s+.*history/.test(row)), rows.join('\n'));
    assert.equal(lines.at(-1), `4 findings (2 critical, 1 high, 1 medium, 0 low) in ${repo.dir} at ${head.slice(0, 12)}, reading up to 500 commits of history`);
  });

  test('sarif: valid against the SARIF 2.1.0 schema, with rules, levels, locations and fingerprints', () => {
    const validate = sarifValidator();
    const sarif: any = JSON.parse(scanOk(repo.dir, ['--type', 'secrets', '--format', 'sarif']).stdout);
    assert.ok(validate(sarif), JSON.stringify(validate.errors, null, 2));
    const broken = structuredClone(sarif);
    broken.runs[0].results[0].level = 'critical';
    assert.equal(validate(broken), false, 'the schema does reject what SARIF does not allow');
    const { findings } = scanJson(repo.dir);

    assert.equal(sarif.version, '2.1.0');
    assert.match(sarif.$schema, /sarif-schema-2\.1\.0\.json$/);
    assert.equal(sarif.runs.length, 1);
    const [run] = sarif.runs;
    assert.equal(run.tool.driver.name, 'Bulwark');
    const ruleIds = run.tool.driver.rules.map((r: { id: string }) => r.id);
    assert.deepEqual([...ruleIds].sort(), [...new Set(findings.map((f) => f.check_id))].sort());
    for (const rule of run.tool.driver.rules) {
      const finding = findings.find((f) => f.check_id === rule.id)!;
      assert.equal(rule.shortDescription.text, finding.title);
      assert.equal(rule.defaultConfiguration.level, { critical: 'error', high: 'error', medium: 'warning', low: 'note' }[finding.severity]);
      assert.ok(rule.properties.tags.includes('CWE-798'), JSON.stringify(rule.properties.tags));
    }

    assert.equal(run.results.length, findings.length);
    for (const result of run.results) {
      const finding = findings.find((f) => f.fingerprint === result.partialFingerprints['bulwark/v1']);
      assert.ok(finding, 'each result carries the finding fingerprint');
      assert.equal(result.ruleId, finding.check_id);
      assert.equal(ruleIds[result.ruleIndex], finding.check_id);
      assert.equal(result.level, { critical: 'error', high: 'error', medium: 'warning', low: 'note' }[finding.severity]);
      assert.equal(result.message.text, finding.message);
      const { artifactLocation, region } = result.locations[0].physicalLocation;
      assert.equal(decodeURIComponent(artifactLocation.uri), finding.file_path);
      assert.deepEqual(region, { startLine: finding.start_line, endLine: finding.end_line });
    }
    const spaced = run.results.find((r: any) => r.ruleId === 'secrets.gcp-api-key');
    assert.equal(spaced.locations[0].physicalLocation.artifactLocation.uri, 'config%20dir/settings.env', 'paths are URI references');
    assert.deepEqual(
      run.results.map((r: { level: string }) => r.level).sort(),
      ['error', 'error', 'error', 'warning'],
    );
  });

  test('semgrep-json: exactly results[{check_id, path, start, end, extra{message, severity, metadata{cwe}}}] and errors', () => {
    const out = JSON.parse(scanOk(repo.dir, ['--type', 'secrets', '--format', 'semgrep-json']).stdout);
    const { findings } = scanJson(repo.dir);
    const SEMGREP = { critical: 'ERROR', high: 'ERROR', medium: 'WARNING', low: 'INFO' } as const;
    assert.deepEqual(out, {
      results: findings.map((f) => ({
        check_id: f.check_id,
        path: f.file_path,
        start: { line: f.start_line },
        end: { line: f.end_line },
        extra: { message: f.message, severity: SEMGREP[f.severity], metadata: { cwe: f.cwe } },
      })),
      errors: [],
    });
    assert.deepEqual(out.results.map((r: any) => r.extra.severity).sort(), ['ERROR', 'ERROR', 'ERROR', 'WARNING']);
    assert.deepEqual(out.results[0].extra.metadata.cwe, ['CWE-798: Use of Hard-coded Credentials']);
  });

  test('no raw secret appears in any format, on stdout, stderr or in an --output file', () => {
    const outFile = path.join(tempDir('bulwark-out-'), 'report');
    for (const format of FORMATS) {
      const written = scanOk(repo.dir, ['--type', 'secrets', '--format', format, '--output', outFile]);
      const texts = [written.stdout, written.stderr, fs.readFileSync(outFile, 'utf8')];
      for (const dir of [repo.dir, plain]) {
        const shown = scanOk(dir, ['--type', 'secrets', '--format', format]);
        assert.ok(shown.stdout.includes('AIza'), 'the masked form still says what was found');
        texts.push(shown.stdout, shown.stderr);
      }
      for (const text of texts) {
        for (const secret of rawSecrets) assert.ok(!text.includes(secret), `${format} output holds a raw secret`);
      }
    }
  });

  test('--fail-on exits 1 when a finding is at or above the level, else 0; without it, 0', () => {
    assert.equal(scan(repo.dir, ['--type', 'secrets', '--fail-on', 'high']).status, 1, 'critical findings fail --fail-on high');
    assert.equal(scan(repo.dir, ['--type', 'secrets', '--fail-on', 'critical']).status, 1);
    assert.equal(scan(repo.dir, ['--type', 'secrets']).status, 0, 'findings alone do not fail the run');
    const failed = scan(repo.dir, ['--type', 'secrets', '--format', 'json', '--fail-on', 'high']);
    assert.equal(JSON.parse(failed.stdout).findings.length, 4, 'the report is still printed');

    for (const level of ['critical', 'high', 'medium', 'low']) {
      const run = scan(clean.dir, ['--type', 'secrets', '--fail-on', level]);
      assert.equal(run.status, 0, `a clean tree passes --fail-on ${level}: ${run.stderr}`);
      assert.match(run.stdout, /^0 findings \(0 critical, 0 high, 0 medium, 0 low\)/);
    }

    const mediumOnly = tempDir('bulwark-medium-');
    fs.writeFileSync(path.join(mediumOnly, 'feed.txt'), `feed: ${feedToken}\n`);
    assert.equal(scan(mediumOnly, ['--type', 'secrets', '--fail-on', 'high']).status, 0, 'medium is below high');
    assert.equal(scan(mediumOnly, ['--type', 'secrets', '--fail-on', 'medium']).status, 1);
    assert.equal(scan(mediumOnly, ['--type', 'secrets', '--fail-on', 'low']).status, 1);
  });

  test('--output writes the report to the file instead of stdout', () => {
    const outDir = tempDir('bulwark-out-');
    for (const format of FORMATS) {
      const file = path.join(outDir, `report.${format}`);
      const run = scan(repo.dir, ['--type', 'secrets', '--format', format, '--output', file, '--fail-on', 'high']);
      assert.equal(run.status, 1, '--fail-on still decides the exit code');
      assert.equal(run.stdout, '');
      assert.match(run.stderr, new RegExp(`4 findings; ${format} report written to`));
      assert.equal(fs.readFileSync(file, 'utf8'), scanOk(repo.dir, ['--type', 'secrets', '--format', format]).stdout);
    }
  });

  test('a plain folder is scanned without history; --history-depth 0 reads no history in a git work tree', () => {
    const folder = scanJson(plain);
    assert.deepEqual(folder.findings.map((f) => f.check_id).sort(), ['secrets.gcp-api-key', 'secrets.github-pat', 'secrets.gitlab-feed-token']);
    assert.ok(folder.findings.every((f) => f.commit_sha === null));
    assert.equal(folder.summary.commit, null);
    assert.equal(folder.summary.history_depth, 0);

    // A folder inside a work tree: history paths are the repository's, not the folder's, so none is read.
    const inside = scan(path.join(repo.dir, 'src'), ['--type', 'secrets', '--format', 'json']);
    assert.equal(inside.status, 0, inside.stderr);
    assert.match(inside.stderr, /inside the git work tree .*without its history/);
    const sub = JSON.parse(inside.stdout);
    assert.deepEqual(sub.findings.map((f: JsonFinding) => [f.check_id, f.file_path, f.commit_sha]), [['secrets.github-pat', 'config.js', null]]);
    assert.equal(sub.summary.commit, null);

    const treeOnly = scanJson(repo.dir, ['--history-depth', '0']);
    assert.deepEqual(treeOnly.findings.map((f) => f.check_id).sort(), folder.findings.map((f) => f.check_id).sort());
    assert.equal(treeOnly.summary.commit, head);
    assert.equal(treeOnly.summary.history_depth, 0);
    assert.equal(scanJson(repo.dir, [], { BULWARK_SECRETS_HISTORY_DEPTH: '0' }).findings.length, 3, 'the setting is the default depth');
    assert.equal(scanJson(repo.dir, ['--history-depth', '1']).findings.length, 3, 'one commit of history misses the deleted key');
    assert.equal(scanJson(repo.dir, ['--history-depth', '3']).findings.length, 4);

    // Fingerprints name the rule, path and secret, not where they were found, so the folder copy agrees.
    const byCheck = (findings: JsonFinding[]) => Object.fromEntries(findings.map((f) => [f.check_id, f.fingerprint]));
    assert.deepEqual(byCheck(folder.findings), byCheck(treeOnly.findings));
  });

  test('fingerprints are stable across local runs; with BULWARK_ENCRYPTION_KEY they are the server\'s', async () => {
    const first = scanJson(repo.dir).findings.map((f) => f.fingerprint);
    assert.deepEqual(scanJson(repo.dir).findings.map((f) => f.fingerprint), first);

    const key = crypto.randomBytes(32);
    const keyed = scanJson(repo.dir, [], { BULWARK_ENCRYPTION_KEY: key.toString('hex') }).findings;
    assert.ok(keyed.every((f, i) => f.fingerprint !== first[i]), 'the configured key changes every fingerprint');
    const server = await new SecretsEngine({ historyDepth: 500 }).scan({
      dir: repo.dir,
      gitDir: path.join(repo.dir, '.git'),
      commit: head,
      fingerprintKey: new TokenBox(key).deriveKey('finding-fingerprints'),
    });
    assert.deepEqual(keyed.map((f) => f.fingerprint), server.map((f) => f.fingerprint));
    assert.deepEqual(keyed.map((f) => f.metadata.secret_hash), server.map((f) => f.metadata.secret_hash));
    assert.deepEqual(fs.readdirSync(cwd), [], 'still nothing written to the working directory');
  });

  test('types: secrets and secrets_scan run; an unknown type is refused with the available ones (exit 2)', () => {
    assert.deepEqual(scanJson(repo.dir, ['--type', 'secrets_scan']).summary.total, 4);
    const cases: [string[], RegExp][] = [
      [['--type', 'bogus'], /unknown scan type "bogus"; available: secrets \(or secrets_scan\), semgrep \(or semgrep_scan\), deep \(or deep_ai_scan\), sbom \(or sbom_scan\)/],
      [[], /--type is required; available: secrets/],
      [['--type', 'secrets', '--format', 'xml'], /--format must be one of table, json, sarif, semgrep-json, cyclonedx/],
      [['--type', 'secrets', '--format', 'cyclonedx'], /--format cyclonedx needs --type sbom/],
      [['--type', 'secrets', '--fail-on', 'severe'], /--fail-on must be one of critical, high, medium, low/],
      [['--type', 'secrets', '--history-depth=-1'], /--history-depth must be a non-negative integer/],
    ];
    for (const [args, message] of cases) {
      const run = scan(repo.dir, args);
      assert.equal(run.status, 2, `bulwark scan ${args.join(' ')}: ${run.stderr}`);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, message);
    }
    const missing = scan(path.join(repo.dir, 'no-such-dir'), ['--type', 'secrets']);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /no such directory/);
  });

  test('exit codes: a file where a directory is expected is its own usage error (2); a failure while running is 3', () => {
    const file = path.join(plain, 'README.md');
    const given = scan(file, ['--type', 'secrets']);
    assert.equal(given.status, 2);
    assert.equal(given.stdout, '');
    assert.match(given.stderr, /README\.md is a file; bulwark scan takes a directory/);

    const unwritable = scan(repo.dir, ['--type', 'secrets', '--output', path.join(plain, 'README.md', 'report.json')]);
    assert.equal(unwritable.status, 3, unwritable.stderr);
    assert.match(unwritable.stderr, /^bulwark: .*report\.json/);

    const rules = tempDir('bulwark-bad-rules-');
    fs.writeFileSync(path.join(rules, 'broken.yml'), 'language: cobol\nrules: []\n');
    const broken = scan(plain, ['--type', 'semgrep'], { BULWARK_SAST_RULES_DIRS: rules });
    assert.equal(broken.status, 3, broken.stderr);
    assert.match(broken.stderr, /broken\.yml: language must be one of/);
  });

  test('the report does not depend on the directory the command runs in', () => {
    const runs = [
      scanOk(repo.dir, ['--type', 'secrets', '--format', 'json']),
      scanOk('.', ['--type', 'secrets', '--format', 'json'], {}, repo.dir),
      scanOk('src/..', ['--type', 'secrets', '--format', 'json'], {}, repo.dir),
      scanOk(path.relative(path.join(repo.dir, 'src'), repo.dir), ['--type', 'secrets', '--format', 'json'], {}, path.join(repo.dir, 'src')),
    ];
    for (const run of runs.slice(1)) assert.equal(run.stdout, runs[0].stdout);
    assert.ok(JSON.parse(runs[0].stdout).findings.some((f: JsonFinding) => f.file_path === 'src/config.js'), 'paths are relative to the scanned folder');
  });

  test('no progress on stderr when it is not a terminal', () => {
    for (const type of ['secrets', 'semgrep']) {
      const run = scanOk(clean.dir, ['--type', type, '--format', 'json']);
      assert.equal(run.stderr, '', `${type}: ${run.stderr}`);
    }
  });
});

describe('bulwark scan: the progress display', () => {
  function fakeStream(isTTY: boolean): ProgressStream & { text: string } {
    const stream = {
      isTTY,
      text: '',
      write(chunk: string) {
        stream.text += chunk;
        return true;
      },
    };
    return stream;
  }

  test('on a terminal: the phase and files done out of total on one redrawn line, cleared at the end', () => {
    const stream = fakeStream(true);
    const display = progressDisplay(stream);
    for (let done = 0; done <= 400; done++) display.update({ phase: 'scanning files', done, total: 400 });
    display.update({ phase: 'reading git history' });
    display.note('something worth saying');
    display.update({ phase: 'reading git history' });
    display.finish();
    const frames = stream.text.split('\r\x1b[2K').filter(Boolean);
    assert.equal(frames[0], 'bulwark: scanning files 0/400 (0%)');
    assert.ok(frames.includes('bulwark: scanning files 200/400 (50%)'));
    assert.ok(frames.includes('bulwark: scanning files 400/400 (100%)'));
    assert.equal(frames.filter((f) => f.startsWith('bulwark: scanning files')).length, 101, 'redrawn once per percent, not per file');
    assert.deepEqual(frames.slice(-3), ['bulwark: reading git history', 'bulwark: something worth saying\n', 'bulwark: reading git history']);
    assert.ok(stream.text.endsWith('\r\x1b[2K'), 'the line is cleared before the report');
  });

  test('elsewhere: no progress at all, notes as plain lines', () => {
    const stream = fakeStream(false);
    const display = progressDisplay(stream);
    display.update({ phase: 'scanning files', done: 1, total: 2 });
    display.note('something worth saying');
    display.finish();
    assert.equal(stream.text, 'bulwark: something worth saying\n');
  });

  test('the engines report every file they scan, up to the total', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-progress-'));
    try {
      for (const name of ['a.js', 'b.py', 'c/d.txt']) {
        fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        fs.writeFileSync(path.join(dir, name), 'x = 1\n');
      }
      const seen: ScanProgress[] = [];
      await new SecretsEngine({ historyDepth: 0 }).scan({ dir, fingerprintKey: Buffer.alloc(32), onProgress: (p) => seen.push(p) });
      assert.deepEqual(seen.map((p) => `${p.phase} ${p.done}/${p.total}`), ['scanning files 0/3', 'scanning files 1/3', 'scanning files 2/3', 'scanning files 3/3']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
