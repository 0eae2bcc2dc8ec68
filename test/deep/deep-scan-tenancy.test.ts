import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FINISHED_BATCH, waitFor } from '../support/helpers.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';
import { openAiWire, startLlmStub, type LlmStub, type RecordedRequest } from '../support/llm-stub-server.ts';
import { FLASK_LOOKUP_APP as APP } from '../support/flask-app.ts';

// Two organizations deep-scan the same code: what the model told one is never served to the other.

const isDiscovery = (request: RecordedRequest) => JSON.stringify(request.body).includes('auditing one entry point');

describe('the deep scan model cache, per organization', () => {
  let h: Harness;
  let llm: LlmStub;
  let repo: TestRepo;
  /** What the model says in its answers now: each organization's scan is told a text of its own. */
  let told = '';

  before(async () => {
    llm = await startLlmStub({
      path: openAiWire.path,
      basePath: openAiWire.basePath,
      script: (request) =>
        isDiscovery(request)
          ? openAiWire.text(JSON.stringify({ findings: [{ file: 'app.py', line: 7, cwe: 'CWE-306', severity: 'critical', title: told, explanation: told }] }))
          : openAiWire.text(JSON.stringify({ verdict: 'confirmed', reason: told })),
    });
    h = await createHarness({
      scanning: true,
      env: { BULWARK_LLM_PROVIDER: 'openai', BULWARK_LLM_BASE_URL: llm.url, BULWARK_LLM_MODEL: 'stub-model', BULWARK_LLM_API_KEY: 'sk-stub-key' },
    });
    repo = TestRepo.create();
    repo.commit({ 'app.py': APP });
  });
  after(async () => {
    await h.close();
    await llm.close();
    repo.remove();
  });

  async function deepScan(org: TestOrg) {
    const unit = await h.unit(org, ['github:acme/lookup@main'], 'lookup', [repo.url]);
    const before = llm.requests.length;
    const base = `/api/v1/repositories/${unit.id}`;
    const created = await h.call('POST', `${base}/scans`, { key: org.key, body: { scan_type: 'deep_ai_scan' } });
    assert.equal(created.statusCode, 202, created.body);
    const progress = await waitFor('the deep scan', 120, async () => {
      const body = (await h.call('GET', `${base}/scans/${created.json().batch_id}/progress`, { key: org.key })).json();
      return FINISHED_BATCH.includes(body.status) ? body : undefined;
    });
    assert.equal(progress.status, 'completed', JSON.stringify(progress));
    const findings = (await h.call('GET', `${base}/findings?limit=200`, { key: org.key })).json().items as { message: string }[];
    return { calls: llm.requests.length - before, findings };
  }

  test('the second organization scanning identical code makes its own model calls and never receives the first\'s answers', async () => {
    told = 'critical: the answer told to organization A';
    const a = await deepScan(await h.org('org-a'));
    assert.ok(a.calls > 0);
    assert.ok(a.findings.some((f) => f.message.includes(told)), JSON.stringify(a.findings));

    told = 'the answer told to organization B';
    const b = await deepScan(await h.org('org-b'));
    assert.equal(b.calls, a.calls, 'organization B asks the model everything organization A asked');
    assert.ok(!JSON.stringify(b.findings).includes('organization A'), JSON.stringify(b.findings));
    assert.ok(b.findings.some((f) => f.message.includes(told)), JSON.stringify(b.findings));
  });
});
