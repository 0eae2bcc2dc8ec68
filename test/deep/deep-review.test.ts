import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LlmSettings } from '../../src/config.ts';
import type { RawFinding } from '../../src/scanning/engine.ts';
import { DeepEngine } from '../../src/scanning/deep/deep-engine.ts';
import { verdictOf, type ReviewLimits } from '../../src/scanning/deep/model-review.ts';
import { SastEngine } from '../../src/scanning/sast/sast-engine.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { threatModelOf } from '../../src/scanning/deep/model-threats.ts';
import { createProvider } from '../../src/llm/create-provider.ts';
import { anthropicWire, openAiWire, startLlmStub, type LlmStub, type RecordedRequest, type StubTurn } from '../support/llm-stub-server.ts';
import { positiveSample } from '../support/secret-samples.ts';

// The model phase of a deep scan against loopback stand-ins for both provider APIs.

const token = positiveSample(SECRET_RULES.find((r) => r.id === 'github-pat')!, 7);

const APP = [
  'import os',
  'from flask import Flask, request, redirect',
  'app = Flask(__name__)',
  `GITHUB_TOKEN = "${token}"`,
  '',
  '@app.route("/lookup")',
  'def lookup():',
  '    return os.popen("nslookup " + request.args["host"]).read()',
  '',
  '@app.route("/go")',
  'def go():',
  '    return redirect(request.args["next"])',
  '',
].join('\n');

const verdict = (v: 'confirmed' | 'refuted', reason = 'checked') => JSON.stringify({ verdict: v, reason });
/** The text of a request, whichever API: enough to tell which finding it is about. */
const taskOf = (request: RecordedRequest) => JSON.stringify(request.body.messages);
const isAbout = (request: RecordedRequest, checkPart: string) => taskOf(request).includes(checkPart);
/** A request of the discovery phase (its system prompt), not of the review. */
const isDiscovery = (request: RecordedRequest) => JSON.stringify(request.body).includes('auditing one entry point');
/** The one request of the threat model phase. */
const isThreatModel = (request: RecordedRequest) => JSON.stringify(request.body).includes('threat model of a web application');
const NOTHING_FOUND = JSON.stringify({ findings: [] });
/** Discovery finds nothing; the review answers as `review` says. */
const reviewOnly = (wire: typeof openAiWire | typeof anthropicWire, review: (request: RecordedRequest, index: number) => string): StubTurn => (request, index) =>
  wire.text(isDiscovery(request) || isThreatModel(request) ? NOTHING_FOUND : review(request, index));
const reviews = (requests: RecordedRequest[]) => requests.filter((r) => !isDiscovery(r) && !isThreatModel(r));

const LIMITS: ReviewLimits = { runs: 1, maxCalls: 50, maxTokens: 1_000_000, timeoutSeconds: 60 };

describe('the model review of a deep scan', () => {
  let dir: string;
  let cacheDir: string;
  let stub: LlmStub | undefined;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-review-'));
    fs.writeFileSync(path.join(dir, 'app.py'), APP);
  });
  after(async () => {
    await stub?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function scan(
    wire: typeof openAiWire | typeof anthropicWire,
    script: StubTurn[] | StubTurn,
    limits = LIMITS,
    cache: string | null = null,
    cacheMaxBytes?: number,
    cacheScope = 'org-a',
  ) {
    await stub?.close();
    stub = await startLlmStub({ path: wire.path, basePath: wire.basePath, script });
    const settings: LlmSettings = {
      provider: wire === openAiWire ? 'openai' : 'anthropic',
      baseUrl: stub.url,
      model: 'stub-model',
      apiKey: 'test-key',
      maxSteps: 1,
      timeoutSeconds: 30,
    };
    const notes: string[] = [];
    const engine = new DeepEngine(new SastEngine({ pool: null }), {
      pool: null,
      review: { provider: () => createProvider(settings, { maxRetries: 0 }), limits, model: 'openai:stub-model', cacheDir: cache, cacheMaxBytes },
    });
    const findings = await engine.scan({ dir, fingerprintKey: Buffer.alloc(32, 1), cacheScope, onNote: (n) => notes.push(n) });
    return { findings, notes, requests: stub.requests };
  }

  async function unreviewed(): Promise<RawFinding[]> {
    return new DeepEngine(new SastEngine({ pool: null }), { pool: null }).scan({ dir, fingerprintKey: Buffer.alloc(32, 1) });
  }

  test('OpenAI API: a refuted candidate is left out, a confirmed one keeps its count; no credential reaches the model', async () => {
    const all = await unreviewed();
    assert.ok(all.some((f) => f.checkId.includes('open-redirect')) && all.some((f) => f.checkId.includes('command-injection')), all.map((f) => f.checkId).join());
    const { findings, notes, requests } = await scan(
      openAiWire,
      reviewOnly(openAiWire, (request) => (isAbout(request, 'open-redirect') ? verdict('refuted', 'the target is checked') : verdict('confirmed', 'host reaches a shell'))),
    );
    assert.equal(reviews(requests).length, all.length, 'one review request per candidate');
    assert.equal(requests.filter(isDiscovery).length, 2, 'one discovery per entry point');
    assert.ok(!findings.some((f) => f.checkId.includes('open-redirect')));
    const injection = findings.find((f) => f.checkId.includes('command-injection'))!;
    assert.deepEqual(injection.metadata.verification, { runs: 1, confirmed: 1, reason: 'host reaches a shell' });
    assert.equal(findings.length, all.length - 1);
    assert.ok(notes.some((n) => /refuted 1 finding, which was left out/.test(n)), notes.join('\n'));
    for (const request of requests) assert.ok(!JSON.stringify(request.body).includes(token), 'the token is veiled');
    assert.ok(requests.some((r) => taskOf(r).includes('⟦secret-1')), 'the model sees a placeholder where the token was');
  });

  test('Anthropic API: independent runs, each a fresh conversation; the count is how many confirmed', async () => {
    const answers = ['confirmed', 'refuted', 'confirmed'] as const;
    const { findings, requests } = await scan(anthropicWire, reviewOnly(anthropicWire, (request, index) => verdict(isAbout(request, 'command-injection') ? answers[index % 3] : 'confirmed')), {
      ...LIMITS,
      runs: 3,
    });
    assert.ok(reviews(requests).every((r) => r.body.messages.length === 1), 'every run starts a conversation of its own');
    const injection = findings.find((f) => f.checkId.includes('command-injection'))!;
    assert.equal((injection.metadata.verification as { runs: number }).runs, 3);
    assert.ok((injection.metadata.verification as { confirmed: number }).confirmed >= 1);
  });

  test('a spent budget stops the review; what it did not reach is reported unreviewed, with a note', async () => {
    const all = await unreviewed();
    // The threat model takes one request; discovery may use up to half the budget (one of the two entry
    // points gets its turn before the share is spent), the review the rest.
    const { findings, notes, requests } = await scan(openAiWire, reviewOnly(openAiWire, () => verdict('confirmed')), { ...LIMITS, maxCalls: 3 });
    assert.deepEqual(requests.map((r) => (isThreatModel(r) ? 'threats' : isDiscovery(r) ? 'discovery' : 'review')), ['threats', 'discovery', 'review']);
    assert.equal(findings.length, all.length);
    assert.equal(findings.filter((f) => f.metadata.verification).length, 1);
    assert.ok(notes.some((n) => new RegExp(`the budget of 3 model requests was spent\\); ${all.length - 1} finding`).test(n)), notes.join('\n'));
  });

  test('a provider that fails: the static findings are all kept, and the note says why without the key', async () => {
    const all = await unreviewed();
    const { findings, notes } = await scan(openAiWire, openAiWire.error(500, 'upstream overloaded', 'server_error'));
    assert.deepEqual(findings.map((f) => f.checkId), all.map((f) => f.checkId));
    assert.ok(notes.some((n) => /did not run to the end \(.*answered 500.*upstream overloaded/.test(n) && !n.includes('test-key')), notes.join('\n'));
  });

  test('verdicts are cached by the file content: an unchanged rescan asks nothing, a changed file is asked again', async () => {
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-review-cache-'));
    try {
      const first = await scan(openAiWire, reviewOnly(openAiWire, () => verdict('confirmed')), LIMITS, cacheDir);
      assert.ok(first.requests.length > 0);
      const again = await scan(openAiWire, [], LIMITS, cacheDir);
      assert.equal(again.requests.length, 0);
      assert.deepEqual(again.findings.map((f) => f.metadata.verification), first.findings.map((f) => f.metadata.verification));
      fs.appendFileSync(path.join(dir, 'app.py'), '# changed\n');
      const changed = await scan(openAiWire, reviewOnly(openAiWire, () => verdict('confirmed')), LIMITS, cacheDir);
      // Asked again: discovery and review of the changed file; the threat model's inventory did not change.
      assert.equal(changed.requests.filter(isThreatModel).length, 0);
      assert.equal(changed.requests.length, first.requests.length - 1);
    } finally {
      fs.writeFileSync(path.join(dir, 'app.py'), APP);
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  test('the cached answers stay under their size bound: past it the oldest go', async () => {
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-review-bound-'));
    const bytesIn = (dir: string): number =>
      fs.readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).reduce((n, e) => n + fs.statSync(path.join(e.parentPath, e.name)).size, 0);
    try {
      await scan(openAiWire, reviewOnly(openAiWire, () => verdict('confirmed')), LIMITS, cacheDir);
      const unbounded = bytesIn(cacheDir);
      assert.ok(unbounded > 0);
      fs.rmSync(cacheDir, { recursive: true, force: true });
      await scan(openAiWire, reviewOnly(openAiWire, () => verdict('confirmed')), LIMITS, cacheDir, Math.floor(unbounded / 2));
      assert.ok(bytesIn(cacheDir) <= unbounded / 2, `${bytesIn(cacheDir)} bytes kept of a ${Math.floor(unbounded / 2)}-byte bound`);
    } finally {
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  test('an answer without the asked-for JSON is no verdict', () => {
    assert.deepEqual(verdictOf('Sure! {"verdict": "refuted", "reason": "sanitized"}'), { verdict: 'refuted', reason: 'sanitized' });
    assert.deepEqual(verdictOf('I think it is fine.'), { verdict: 'unsure', reason: '' });
    assert.deepEqual(verdictOf('{"verdict": "maybe"}'), { verdict: 'unsure', reason: '' });
  });

  test('discovery: the model reads the code with read-only tools from each entry point; what it reports at a real place joins the candidates, once', async () => {
    const lookupDiscovery = (request: RecordedRequest) => {
      if (request.body.messages.length <= 2) {
        return openAiWire.toolCalls([
          { id: 'c1', name: 'read_file', args: { path: 'app.py' } },
          { id: 'c2', name: 'edit_file', args: { path: 'app.py', old_text: 'import os', new_text: 'import sys' } },
        ]);
      }
      const reported = [
        { file: 'app.py', line: 8, cwe: 'CWE-306', severity: 'high', title: 'Lookup needs no sign-in', explanation: 'Anyone can run nslookup through /lookup.' },
        { file: 'app.py', line: 12, cwe: 'CWE-601', severity: 'medium', title: 'Open redirect', explanation: 'already known' },
        { file: '../outside.py', line: 1, cwe: 'CWE-22', title: 'outside the checkout' },
        { file: 'app.py', line: 999, cwe: 'CWE-89', title: 'no such line' },
        { file: 'app.py', line: 3, cwe: 'not a cwe', title: 'no CWE' },
      ];
      return openAiWire.text(`Here is what I found: ${JSON.stringify({ findings: reported })}`);
    };
    const { findings, requests } = await scan(openAiWire, (request) => {
      if (!isDiscovery(request)) return openAiWire.text(verdict('confirmed', 'reachable'));
      return isAbout(request, 'lookup in app.py') ? lookupDiscovery(request) : openAiWire.text(NOTHING_FOUND);
    });
    const discovered = findings.filter((f) => f.metadata.mode === 'discovery');
    assert.deepEqual(discovered.map((f) => [f.checkId, f.filePath, f.startLine, f.severity, f.cwe]), [['ai.discovery.cwe-306', 'app.py', 8, 'high', ['CWE-306']]]);
    assert.match(discovered[0].message, /^Anyone can run nslookup through \/lookup\. \(Found by the model from the entry point lookup in app\.py:6\.\)$/);
    assert.deepEqual(discovered[0].metadata.verification, { runs: 1, confirmed: 1, reason: 'reachable' }, 'reviewed like every candidate');
    assert.equal(findings.filter((f) => f.cwe.some((c) => c.startsWith('CWE-601'))).length, 1, 'the known redirect is not reported twice');
    // The tools only read: the edit was refused, the file is as it was, and the file came back veiled.
    const toolResults = JSON.stringify(requests.find((r) => isDiscovery(r) && r.body.messages.length > 2)!.body.messages.slice(2));
    assert.match(toolResults, /there is no tool named \\"edit_file\\"/);
    assert.equal(fs.readFileSync(path.join(dir, 'app.py'), 'utf8'), APP);
    assert.ok(toolResults.includes('nslookup') && !toolResults.includes(token));
  });

  test('discovery answers are cached by the entry point file: a rescan of unchanged code asks the model nothing', async () => {
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-discovery-cache-'));
    try {
      const reply = (request: RecordedRequest) =>
        isDiscovery(request)
          ? openAiWire.text(JSON.stringify({ findings: [{ file: 'app.py', line: 8, cwe: 'CWE-306', severity: 'high', title: 'Open lookup', explanation: 'No sign-in.' }] }))
          : openAiWire.text(verdict('confirmed'));
      const first = await scan(openAiWire, reply, LIMITS, cacheDir);
      assert.ok(first.requests.some(isDiscovery));
      const again = await scan(openAiWire, [], LIMITS, cacheDir);
      assert.equal(again.requests.length, 0);
      assert.deepEqual(
        again.findings.map((f) => `${f.checkId}:${f.startLine}`),
        first.findings.map((f) => `${f.checkId}:${f.startLine}`),
      );
    } finally {
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  test('cached answers stay within their scope: another scope asks the model itself and never gets the first scope\'s answers', async () => {
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-scoped-cache-'));
    try {
      const answer = (title: string) => (request: RecordedRequest) =>
        isDiscovery(request)
          ? openAiWire.text(JSON.stringify({ findings: isAbout(request, 'lookup in app.py') ? [{ file: 'app.py', line: 8, cwe: 'CWE-306', severity: 'critical', title, explanation: title }] : [] }))
          : openAiWire.text(verdict('confirmed', title));
      const first = await scan(openAiWire, answer('told to the first scope'), LIMITS, cacheDir, undefined, 'org-a');
      assert.ok(first.findings.some((f) => f.message.includes('told to the first scope')));
      const other = await scan(openAiWire, answer('told to the second scope'), LIMITS, cacheDir, undefined, 'org-b');
      assert.equal(other.requests.length, first.requests.length, 'the second scope makes every model call of its own');
      assert.ok(!JSON.stringify(other.findings).includes('told to the first scope'));
      assert.ok(other.findings.some((f) => f.message.includes('told to the second scope')));
      const again = await scan(openAiWire, [], LIMITS, cacheDir, undefined, 'org-a');
      assert.equal(again.requests.length, 0, 'within its scope an answer is served again');
      const unscoped = await scan(openAiWire, answer('told to no scope'), LIMITS, cacheDir, undefined, '');
      assert.equal(unscoped.requests.length, first.requests.length, 'without a scope nothing cached is served');
    } finally {
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  test('the threat model ranks the entry points: discovery takes the riskiest first, with the assets and boundaries in view', async () => {
    const threats = { assets: ['host lookups run on the server'], trust_boundaries: ['query string into a shell'], entry_points: [{ id: 'E1', risk: 'low' }, { id: 'E2', risk: 'high' }] };
    const { requests } = await scan(openAiWire, (request) => {
      if (isThreatModel(request)) return openAiWire.text(JSON.stringify(threats));
      return openAiWire.text(isDiscovery(request) ? NOTHING_FOUND : verdict('confirmed'));
    });
    assert.ok(isThreatModel(requests[0]), 'the threat model comes first');
    assert.match(taskOf(requests[0]), /E1: ANY \/lookup -> lookup \(app\.py:6\), no guard seen/);
    const discoveries = requests.filter(isDiscovery).map(taskOf);
    assert.deepEqual(discoveries.map((t) => /The entry point: (\w+)/.exec(t)?.[1]), ['go', 'lookup'], 'the high-risk entry point first');
    assert.match(discoveries[0], /rates its risk high/);
    assert.match(discoveries[0], /Assets: host lookups run on the server\.\\nTrust boundaries: query string into a shell\./);
  });

  test('a threat model answer that is not the asked-for JSON changes nothing', () => {
    const entries = [{ file: 'a.py', line: 1, name: 'a', methods: ['GET'], paths: ['/a'], guarded: false }];
    assert.deepEqual(threatModelOf('no idea', entries), { summary: '', risks: new Map() });
    assert.deepEqual(threatModelOf('{"entry_points": [{"id": "E7", "risk": "high"}, {"id": "E1", "risk": "extreme"}]}', entries).risks, new Map());
    assert.deepEqual(threatModelOf('{"entry_points": [{"id": "E1", "risk": "high"}]}', entries).risks, new Map([['a.py:1', 'high']]));
  });
});
