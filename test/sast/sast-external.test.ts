import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadSettings } from '../../src/config.ts';
import type { EngineInput, RawFinding } from '../../src/scanning/engine.ts';
import { defaultEngines } from '../../src/scanning/engines.ts';
import type { SemgrepResult } from '../../src/scanning/sast/external-semgrep.ts';
import { SastEngine } from '../../src/scanning/sast/sast-engine.ts';

// The SAST engine with an external `semgrep`/`opengrep`: a fake binary (a Node script) stands in for it,
// logs its arguments, and prints a fixed `--json` document whose paths it puts under the target it was given.

const APP_PY = `from flask import Flask, request
import os

app = Flask(__name__)


@app.route("/ping")
def ping():
    host = request.args.get("host")
    return os.popen("ping -c 1 " + host).read()


@app.route("/calc")
def calc():
    return str(eval(request.args.get("expr")))
`;

const UTIL_PY = `def greet(name):
    token =   'abc'
    return "hello " + name
`;

/** The fake: `mode` is `ok` (print output.json), `fail` (exit 2), `garbage` (not JSON) or `hang` (sleep). */
const FAKE = `
const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');
const here = path.dirname(process.argv[1]);
fs.appendFileSync(path.join(here, 'invocations.log'), JSON.stringify(process.argv.slice(2)) + '\\n');
const mode = fs.readFileSync(path.join(here, 'mode'), 'utf8').trim();
if (mode === 'fail') {
  process.stderr.write('semgrep: fatal: the rules could not be loaded\\n');
  process.exit(2);
}
if (mode === 'hang') setTimeout(() => {}, 30000);
else if (mode === 'garbage') process.stdout.write('Scanning 3 files...');
else {
  const target = process.argv.at(-1);
  const doc = JSON.parse(fs.readFileSync(path.join(here, 'output.json'), 'utf8'));
  for (const result of doc.results) result.path = path.join(target, result.path);
  process.stdout.write(JSON.stringify(doc));
}
`;

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

let root: string;
let repo: string;
let notes: string[];

function input(): EngineInput {
  notes = [];
  return { dir: repo, fingerprintKey: Buffer.alloc(32), onNote: (message) => notes.push(message) };
}

/** A folder holding a fake binary called `name`, set to `mode`, printing `output`. */
function fakeBinary(name: 'semgrep' | 'opengrep', mode: 'ok' | 'fail' | 'garbage' | 'hang', output: { results: SemgrepResult[]; errors?: unknown[] } = { results: [] }): string {
  const dir = fs.mkdtempSync(path.join(root, `bin-${name}-`));
  fs.writeFileSync(path.join(dir, name), `#!${process.execPath}\n${FAKE}`, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'mode'), mode);
  fs.writeFileSync(path.join(dir, 'output.json'), JSON.stringify({ errors: [], ...output }));
  return dir;
}

const invocations = (binDir: string): string[][] => {
  const log = path.join(binDir, 'invocations.log');
  return fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line)) : [];
};

const byPlace = (a: RawFinding, b: RawFinding) => a.filePath.localeCompare(b.filePath) || a.startLine - b.startLine;

describe('SAST engine with an external semgrep', () => {
  let builtIn: RawFinding[];
  let first: RawFinding;
  let firstCwe: string;

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-sast-external-'));
    repo = path.join(root, 'repo');
    fs.mkdirSync(path.join(repo, 'lib'), { recursive: true });
    fs.mkdirSync(path.join(repo, 'tests'));
    fs.writeFileSync(path.join(repo, 'app.py'), APP_PY);
    fs.writeFileSync(path.join(repo, 'lib', 'util.py'), UTIL_PY);
    fs.writeFileSync(path.join(repo, 'tests', 'test_app.py'), 'def test_ok():\n    assert True\n');
    builtIn = await new SastEngine().scan(input());
    assert.ok(builtIn.length >= 1, 'the fixture raises at least one built-in finding');
    first = builtIn[0];
    firstCwe = /^CWE-(\d+)/.exec(first.cwe[0])![1];
  });

  after(() => fs.rmSync(root, { recursive: true, force: true }));

  test('results are merged; one at the place and CWE of a built-in finding is dropped', async () => {
    const results: SemgrepResult[] = [
      // Same file, line and CWE number as a built-in finding, other rule and wording: the built-in one wins.
      {
        check_id: 'ext.same-place-same-cwe',
        path: first.filePath,
        start: { line: first.startLine },
        end: { line: first.endLine },
        extra: { message: 'Duplicate.', severity: 'ERROR', lines: 'x', metadata: { cwe: [`CWE-${firstCwe}: other wording`] } },
      },
      // Same place, another CWE: kept. Semgrep without a login hides the lines.
      {
        check_id: 'ext.same-place-other-cwe',
        path: first.filePath,
        start: { line: first.startLine },
        end: { line: first.endLine },
        extra: {
          message: 'Cookie without HttpOnly. Set it.',
          severity: 'INFO',
          lines: 'requires login',
          metadata: { cwe: 'CWE-1004: Sensitive Cookie Without HttpOnly', owasp: 'A05:2021 - Security Misconfiguration', references: 'https://example.test/ref' },
        },
      },
      // Another file, a list of CWEs (the first is kept).
      {
        check_id: 'ext.hardcoded-token',
        path: 'lib/util.py',
        start: { line: 2 },
        end: { line: 2 },
        extra: {
          message: 'Hard-coded token.',
          severity: 'WARNING',
          lines: "    token =   'abc'\n",
          metadata: { cwe: ['CWE-798: Use of Hard-coded Credentials', 'CWE-259: Hard-coded Password'], owasp: ['A07:2021'], confidence: 'HIGH', category: 'secrets' },
        },
      },
      // The same place and CWE from a second external rule: one finding.
      { check_id: 'ext.hardcoded-token-2', path: 'lib/util.py', start: { line: 2 }, end: { line: 2 }, extra: { severity: 'ERROR', metadata: { cwe: 'CWE-798' } } },
      // Test code, vendored code and paths outside the scanned folder are not reported.
      { check_id: 'ext.in-tests', path: 'tests/test_app.py', start: { line: 2 }, end: { line: 2 }, extra: { metadata: { cwe: 'CWE-703' } } },
      { check_id: 'ext.vendored', path: 'node_modules/pkg/index.js', start: { line: 1 }, end: { line: 1 }, extra: {} },
      { check_id: 'ext.outside', path: '../elsewhere.py', start: { line: 1 }, end: { line: 1 }, extra: {} },
    ];
    const bin = fakeBinary('semgrep', 'ok', { results, errors: [{ level: 'warn', message: 'Syntax error at line lib/broken.py:1' }] });
    const engine = new SastEngine({ externalSemgrep: { configs: ['rules/a.yml', 'p/python'], searchPath: `${bin}${path.delimiter}${process.env.PATH}` } });
    const findings = await engine.scan(input());

    assert.deepEqual(invocations(bin), [
      ['scan', '--json', '--quiet', '--metrics=off', '--disable-version-check', '--config', 'rules/a.yml', '--config', 'p/python', repo],
    ]);
    const otherCwe: RawFinding = {
      checkId: 'ext.same-place-other-cwe',
      severity: 'low',
      category: 'security',
      title: 'Cookie without HttpOnly.',
      message: 'Cookie without HttpOnly. Set it.',
      filePath: first.filePath,
      startLine: first.startLine,
      endLine: first.endLine,
      cwe: ['CWE-1004: Sensitive Cookie Without HttpOnly'],
      owasp: ['A05:2021 - Security Misconfiguration'],
      references: ['https://example.test/ref'],
      fingerprint: sha256(`ext.same-place-other-cwe\0${first.filePath}\0${first.startLine}-${first.endLine}`),
      // Without the matched lines only the place identifies it; the excerpt is read from the file.
      matchHash: sha256(`ext.same-place-other-cwe\0${first.filePath}\0${first.startLine}-${first.endLine}`),
      anchor: null,
      snippet: first.snippet,
      commitSha: null,
      metadata: { engine: 'semgrep' },
    };
    const token: RawFinding = {
      checkId: 'ext.hardcoded-token',
      severity: 'medium',
      category: 'secrets',
      title: 'Hard-coded token.',
      message: 'Hard-coded token.',
      filePath: 'lib/util.py',
      startLine: 2,
      endLine: 2,
      cwe: ['CWE-798: Use of Hard-coded Credentials'],
      owasp: ['A07:2021'],
      references: [],
      fingerprint: sha256(`ext.hardcoded-token\0lib/util.py\0token = 'abc'`),
      matchHash: sha256(`ext.hardcoded-token\0token='abc'`),
      anchor: null,
      snippet: "    token =   'abc'",
      commitSha: null,
      metadata: { engine: 'semgrep', confidence: 'high' },
    };
    assert.deepEqual(findings, [...builtIn, otherCwe, token].sort(byPlace));
    assert.deepEqual(notes, ['semgrep reported 1 problem(s) while scanning (first: Syntax error at line lib/broken.py:1)']);
  });

  test('a failing run becomes a note, and the built-in findings are still returned', async () => {
    const bin = fakeBinary('semgrep', 'fail');
    const engine = new SastEngine({ externalSemgrep: { configs: ['rules/a.yml'], searchPath: bin } });
    const findings = await engine.scan(input());
    assert.equal(invocations(bin).length, 1);
    assert.deepEqual(findings, builtIn);
    assert.equal(notes.length, 1);
    assert.match(notes[0], /^semgrep .* failed, so only the built-in rules' findings are reported: exited with code 2: semgrep: fatal: the rules could not be loaded$/);
  });

  test('output that is not JSON becomes a note too', async () => {
    const bin = fakeBinary('semgrep', 'garbage');
    const findings = await new SastEngine({ externalSemgrep: { configs: ['rules/a.yml'], searchPath: bin } }).scan(input());
    assert.deepEqual(findings, builtIn);
    assert.equal(notes.length, 1);
    assert.match(notes[0], /failed, so only the built-in rules' findings are reported: its output is not JSON: Scanning 3 files\.\.\.$/);
  });

  test('a run past its time limit is stopped and becomes a note', async () => {
    const bin = fakeBinary('semgrep', 'hang');
    const engine = new SastEngine({ externalSemgrep: { configs: ['rules/a.yml'], searchPath: bin, timeoutMs: 500 } });
    const findings = await engine.scan(input());
    assert.deepEqual(findings, builtIn);
    assert.equal(notes.length, 1);
    assert.match(notes[0], /timed out after 0.5 s$/);
  });

  test('without configs the binary is never run; without a binary nothing happens', async () => {
    const bin = fakeBinary('semgrep', 'ok');
    for (const externalSemgrep of [undefined, { configs: [], searchPath: bin }]) {
      assert.deepEqual(await new SastEngine({ externalSemgrep }).scan(input()), builtIn);
      assert.deepEqual(notes, []);
    }
    assert.ok(!fs.existsSync(path.join(bin, 'invocations.log')), 'the fake was not invoked');

    const empty = fs.mkdtempSync(path.join(root, 'empty-bin-'));
    assert.deepEqual(await new SastEngine({ externalSemgrep: { configs: ['p/python'], searchPath: empty } }).scan(input()), builtIn);
    assert.deepEqual(notes, []);
  });

  test('opengrep is run without --metrics, which it does not have', async () => {
    const bin = fakeBinary('opengrep', 'ok');
    const findings = await new SastEngine({ externalSemgrep: { configs: ['rules'], searchPath: bin } }).scan(input());
    assert.deepEqual(invocations(bin), [['scan', '--json', '--quiet', '--disable-version-check', '--config', 'rules', repo]]);
    assert.deepEqual(findings, builtIn);
  });

  test('BULWARK_SEMGREP_CONFIGS reaches the engine the registry builds, which finds the binary on PATH', async () => {
    const settings = loadSettings({ BULWARK_SEMGREP_CONFIGS: ['rules/a.yml', 'p/python', 'https://example.test/r.yml'].join(path.delimiter) });
    assert.deepEqual(settings.semgrepConfigs, ['rules/a.yml', 'p/python', 'https://example.test/r.yml']);
    assert.deepEqual(loadSettings({}).semgrepConfigs, []);

    const bin = fakeBinary('semgrep', 'ok');
    const savedPath = process.env.PATH;
    process.env.PATH = `${bin}${path.delimiter}${savedPath}`;
    try {
      const engines = defaultEngines({ secretsHistoryDepth: 0, semgrepConfigs: settings.semgrepConfigs });
      assert.deepEqual(await (await engines.engineFor('semgrep_scan'))!.scan(input()), builtIn);
    } finally {
      process.env.PATH = savedPath;
    }
    assert.deepEqual(invocations(bin).map((args) => args.filter((a, i, all) => all[i - 1] === '--config')), [settings.semgrepConfigs]);
  });
});
