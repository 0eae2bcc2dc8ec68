import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LlmSettings } from '../src/config.ts';
import type { RawFinding } from '../src/engines/engine.ts';
import { DeepEngine } from '../src/engines/deep/deep-engine.ts';
import { verdictOf, type ReviewLimits } from '../src/engines/deep/model-review.ts';
import { SastEngine } from '../src/engines/sast/sast-engine.ts';
import { SECRET_RULES } from '../src/engines/secrets/rules.ts';
import { createProvider } from '../src/llm/provider.ts';
import { anthropicWire, openAiWire, startLlmStub, type LlmStub, type RecordedRequest, type StubTurn } from './support/llm-stub-server.ts';
import { positiveSample } from './support/secret-samples.ts';

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

  async function scan(wire: typeof openAiWire | typeof anthropicWire, script: StubTurn[] | StubTurn, limits = LIMITS, cache: string | null = null) {
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
      review: { provider: () => createProvider(settings, { maxRetries: 0 }), limits, model: 'openai:stub-model', cacheDir: cache },
    });
    const findings = await engine.scan({ dir, fingerprintKey: Buffer.alloc(32, 1), onNote: (n) => notes.push(n) });
    return { findings, notes, requests: stub.requests };
  }

  async function unreviewed(): Promise<RawFinding[]> {
    return new DeepEngine(new SastEngine({ pool: null }), { pool: null }).scan({ dir, fingerprintKey: Buffer.alloc(32, 1) });
  }

  test('OpenAI API: a refuted candidate is left out, a confirmed one keeps its count; no credential reaches the model', async () => {
    const all = await unreviewed();
    assert.ok(all.some((f) => f.checkId.includes('open-redirect')) && all.some((f) => f.checkId.includes('command-injection')), all.map((f) => f.checkId).join());
    const { findings, notes, requests } = await scan(openAiWire, (request) =>
      openAiWire.text(isAbout(request, 'open-redirect') ? verdict('refuted', 'the target is checked') : verdict('confirmed', 'host reaches a shell')),
    );
    assert.equal(requests.length, all.length, 'one request per candidate');
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
    const { findings, requests } = await scan(anthropicWire, (request, index) => anthropicWire.text(verdict(isAbout(request, 'command-injection') ? answers[index % 3] : 'confirmed')), {
      ...LIMITS,
      runs: 3,
    });
    assert.ok(requests.every((r) => r.body.messages.length === 1), 'every run starts a conversation of its own');
    const injection = findings.find((f) => f.checkId.includes('command-injection'))!;
    assert.equal((injection.metadata.verification as { runs: number }).runs, 3);
    assert.ok((injection.metadata.verification as { confirmed: number }).confirmed >= 1);
  });

  test('a spent budget stops the review; what it did not reach is reported unreviewed, with a note', async () => {
    const all = await unreviewed();
    const { findings, notes, requests } = await scan(openAiWire, openAiWire.text(verdict('confirmed')), { ...LIMITS, maxCalls: 1 });
    assert.equal(requests.length, 1);
    assert.equal(findings.length, all.length);
    assert.equal(findings.filter((f) => f.metadata.verification).length, 1);
    assert.ok(notes.some((n) => new RegExp(`the budget of 1 model requests was spent\\); ${all.length - 1} finding`).test(n)), notes.join('\n'));
  });

  test('a provider that fails: the static findings are all kept, and the note says why without the key', async () => {
    const all = await unreviewed();
    const { findings, notes } = await scan(openAiWire, openAiWire.error(500, 'upstream overloaded', 'server_error'));
    assert.deepEqual(findings.map((f) => f.checkId), all.map((f) => f.checkId));
    assert.ok(notes.some((n) => /answered 500.*upstream overloaded/.test(n) && !n.includes('test-key')), notes.join('\n'));
  });

  test('verdicts are cached by the file content: an unchanged rescan asks nothing, a changed file is asked again', async () => {
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-review-cache-'));
    try {
      const first = await scan(openAiWire, openAiWire.text(verdict('confirmed')), LIMITS, cacheDir);
      assert.ok(first.requests.length > 0);
      const again = await scan(openAiWire, [], LIMITS, cacheDir);
      assert.equal(again.requests.length, 0);
      assert.deepEqual(again.findings.map((f) => f.metadata.verification), first.findings.map((f) => f.metadata.verification));
      fs.appendFileSync(path.join(dir, 'app.py'), '# changed\n');
      const changed = await scan(openAiWire, openAiWire.text(verdict('confirmed')), LIMITS, cacheDir);
      assert.equal(changed.requests.length, first.requests.length);
    } finally {
      fs.writeFileSync(path.join(dir, 'app.py'), APP);
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  test('an answer without the asked-for JSON is no verdict', () => {
    assert.deepEqual(verdictOf('Sure! {"verdict": "refuted", "reason": "sanitized"}'), { verdict: 'refuted', reason: 'sanitized' });
    assert.deepEqual(verdictOf('I think it is fine.'), { verdict: 'unsure', reason: '' });
    assert.deepEqual(verdictOf('{"verdict": "maybe"}'), { verdict: 'unsure', reason: '' });
  });
});
