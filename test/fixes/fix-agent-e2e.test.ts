import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pollUntil, retireFixesOf, scanRepository } from '../support/helpers.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';
import { FIXED_LINE, VULNERABLE_DB_JS, VULNERABLE_LINE } from '../support/fix-agent-fixture.ts';
import { TestRepo } from '../support/git-repo.ts';
import { workTreeExists } from '../support/work-trees.ts';
import { openAiWire, startLlmStub, type LlmStub, type StubReply } from '../support/llm-stub-server.ts';

const TERMINAL = ['completed', 'failed', 'cancelled'];

describe('the fix agent through the API, against a scripted OpenAI-compatible model', () => {
  let h: Harness;
  let org: TestOrg;
  let repo: TestRepo;
  let llm: LlmStub;
  let unitId: string;
  /** The model's next answers; each test queues its own. */
  let turns: StubReply[] = [];
  const base = () => `/api/v1/repositories/${unitId}`;

  before(async () => {
    llm = await startLlmStub({ path: openAiWire.path, basePath: openAiWire.basePath, script: () => turns.shift() ?? openAiWire.error(400, 'script exhausted') });
    h = await createHarness({
      scanning: true,
      env: {
        BULWARK_JOB_LEASE_SECONDS: '10',
        BULWARK_LLM_PROVIDER: 'openai',
        BULWARK_LLM_BASE_URL: llm.url,
        BULWARK_LLM_MODEL: 'stub-model',
        BULWARK_LLM_API_KEY: 'sk-stub-key-never-logged',
      },
    });
    org = await h.org('agent');
    repo = TestRepo.create();
    repo.commit({ 'src/db.js': VULNERABLE_DB_JS, 'src/pool.js': 'module.exports = require("pg").Pool();\n' });
    unitId = (await h.unit(org, ['github:acme/users@main'], 'users', [repo.url])).id;
  });
  after(async () => {
    await h.close();
    await llm.close();
    repo.remove();
  });

  const waitFor = (url: string, done: (body: any) => boolean) => pollUntil(h, url, done, { intervalMs: 50 });

  async function sqlFinding() {
    await scanRepository(h, unitId, 'semgrep_scan');
    const findings = (await h.call('GET', `${base()}/findings?scan_type=semgrep_scan&limit=200`)).json().items as any[];
    const sql = findings.find((f) => f.file_path === 'src/db.js' && f.start_line === 5 && /CWE-89/.test(f.cwe.join()));
    assert.ok(sql, `no SQL injection at src/db.js:5 in ${JSON.stringify(findings.map((f) => [f.check_id, f.start_line]))}`);
    // Each test fixes it afresh, whatever fix an earlier test left on it.
    await retireFixesOf(h, [sql.id]);
    return sql;
  }

  const fixRow = (id: string) => h.database.store.db.selectFrom('fixes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  test('the agent reads, edits, rescans and finishes; the fix is verified, and a refinement continues from its patch', async () => {
    const finding = await sqlFinding();
    turns = [
      openAiWire.toolCalls([{ id: 'c1', name: 'read_file', args: { path: 'src/db.js' } }], { input: 900, output: 30 }),
      openAiWire.toolCalls([{ id: 'c2', name: 'edit_file', args: { path: 'src/db.js', old_text: VULNERABLE_LINE, new_text: FIXED_LINE } }]),
      openAiWire.toolCalls([{ id: 'c3', name: 'rescan', args: { paths: ['src/db.js'] } }]),
      openAiWire.text('Parameterized the query in findUser.', { input: 1200, output: 15 }),
    ];
    // This run's model requests: other tests of this file may have made theirs before.
    const start = llm.requests.length;
    const created = await h.call('POST', `${base()}/fixes`, {
      body: { finding_ids: [finding.id], title: 'Parameterize findUser', instructions: 'Use a bound parameter.', source_repo: 'acme/users' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const fixId = created.json().id;
    const progress = await waitFor(`${base()}/fixes/${fixId}/progress`, (p) => TERMINAL.includes(p.status));
    assert.equal(progress.status, 'completed', progress.error_message ?? '');
    // The SQL codemod goes first and refuses (./pool does not say which driver it is): one step, then one per model turn.
    assert.equal(progress.agent_steps_completed, 5, 'one step for the codemod, then one per model turn');
    const diff = (await h.call('GET', `${base()}/fixes/${fixId}/diff`)).json().diff;
    assert.ok(diff.includes(`-${VULNERABLE_LINE}`) && diff.includes(`+${FIXED_LINE}`), diff);
    const row = await fixRow(fixId);
    assert.equal(row.agent_input_tokens, 900 + 100 + 100 + 1200);
    assert.equal(row.agent_output_tokens, 30 + 20 + 20 + 15);
    assert.match(row.verification ?? '', /none of the 1 finding/);

    const first = llm.requests[start]!.body;
    assert.equal(first.model, 'stub-model');
    assert.equal(llm.requests[start]!.headers.authorization, 'Bearer sk-stub-key-never-logged');
    assert.deepEqual(first.tools.map((t: any) => t.function.name).sort(), ['edit_file', 'list_files', 'read_file', 'rescan', 'search']);
    const rescanResult = llm.requests[start + 3]!.body.messages.at(-1);
    assert.equal(rescanResult.role, 'tool');
    assert.match(rescanResult.content, /No finding of this fix is detected/);

    // Refine: the agent starts from the fix's patch with the follow-up instructions.
    const before = llm.requests.length;
    turns = [
      openAiWire.toolCalls([{ id: 'r1', name: 'edit_file', args: { path: 'src/db.js', old_text: 'function findUser(id) {', new_text: '/** Looks a user up by id. */\nfunction findUser(id) {' } }]),
      openAiWire.text('Documented findUser.'),
    ];
    const refined = await h.call('POST', `${base()}/fixes/${fixId}/refine`, { body: { instructions: 'Also document findUser.' } });
    assert.equal(refined.statusCode, 200, refined.body);
    const again = await waitFor(`${base()}/fixes/${fixId}/progress`, (p) => TERMINAL.includes(p.status));
    assert.equal(again.status, 'completed', again.error_message ?? '');
    const refinedDiff = (await h.call('GET', `${base()}/fixes/${fixId}/diff`)).json().diff;
    assert.ok(refinedDiff.includes(`+${FIXED_LINE}`) && refinedDiff.includes('+/** Looks a user up by id. */'), refinedDiff);
    const task = JSON.stringify(llm.requests[before]!.body.messages);
    assert.ok(task.includes('Use a bound parameter.') && task.indexOf('Use a bound parameter.') < task.indexOf('Also document findUser.'));
    // This fix's events only: the finding is the same one other tests of this file fix.
    const events = (await h.call('GET', `/api/v1/finding-events?finding_id=${finding.id}&limit=200`)).json().items
      .filter((e: any) => e.metadata?.fix_id === fixId)
      .map((e: any) => e.event_type);
    assert.deepEqual(events, ['fix_completed', 'fix_started', 'fix_completed', 'fix_started', 'fix_created']);

    // A refinement that fails leaves the fix as the last good run made it, and says why.
    turns = [openAiWire.error(401, 'Incorrect API key provided', 'authentication_error')];
    assert.equal((await h.call('POST', `${base()}/fixes/${fixId}/refine`, { body: { instructions: 'And rename it.' } })).statusCode, 200);
    const failedRefine = await waitFor(`${base()}/fixes/${fixId}/progress`, (p) => TERMINAL.includes(p.status));
    assert.equal(failedRefine.status, 'completed');
    assert.match(failedRefine.error_message, /^The refinement failed \(.*401.*\); the fix keeps its previous patch\.$/);
    assert.ok(!failedRefine.error_message.includes('sk-stub-key'));
    assert.equal((await h.call('GET', `${base()}/fixes/${fixId}/diff`)).json().diff, refinedDiff);
    const latest = (await h.call('GET', `/api/v1/finding-events?finding_id=${finding.id}`)).json().items[0];
    assert.equal(latest.event_type, 'fix_failed');
  });

  test('cancelling a running fix stops it within 5 seconds, aborts the model call and removes the work tree', async () => {
    const finding = await sqlFinding();
    turns = [{ ...openAiWire.text('too late'), delayMs: 60_000 }];
    const requestsBefore = llm.requests.length;
    const created = await h.call('POST', `${base()}/fixes`, {
      body: { finding_ids: [finding.id], title: 'A slow fix', instructions: 'Take your time.', source_repo: 'acme/users' },
    });
    const fixId = created.json().id;
    await waitFor(`${base()}/fixes/${fixId}/progress`, (p) => p.status === 'running');
    const checkoutRoot = path.join(h.database.dataDir, 'git');
    await waitFor(`${base()}/fixes/${fixId}/progress`, () => workTreeExists(checkoutRoot, `fix-${fixId}-1-1`));
    // Cancelled once the model has the request, so the run has a model call to abort.
    await waitFor(`${base()}/fixes/${fixId}/progress`, (p) => llm.requests.length > requestsBefore || p.status !== 'running');
    // Read after the request arrived: the progress the wait last read may predate it.
    const asked = (await h.call('GET', `${base()}/fixes/${fixId}/progress`)).json();
    assert.match(asked.current_step ?? '', /^the agent is fixing 1 finding/);
    const abandonedBefore = llm.abandoned;

    const cancelled = await h.call('POST', `${base()}/fixes/${fixId}/cancel`);
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assert.equal(cancelled.json().status, 'cancelled');
    // The model answers only after 60 s, so its request being abandoned shows the run was stopped, not waited out.
    const giveUp = Date.now() + 30_000;
    while (workTreeExists(checkoutRoot, `fix-${fixId}-1-1`) || llm.abandoned === abandonedBefore) {
      assert.ok(Date.now() < giveUp, 'the run was not stopped: its model request is still pending');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    const row = await fixRow(fixId);
    assert.equal(row.status, 'cancelled', 'the stopped run records no failure over the cancellation');
    assert.equal(row.diff, null);
    const again = await h.call('POST', `${base()}/fixes/${fixId}/cancel`);
    assert.equal(again.statusCode, 409);
    const events = (await h.call('GET', `/api/v1/finding-events?finding_id=${finding.id}&event_type=fix_cancelled`)).json().items;
    assert.equal(events.length, 1);
  });

  test('a model that keeps calling tools is stopped by the step limit, and the fix fails saying so', async () => {
    const finding = await sqlFinding();
    turns = Array.from({ length: 40 }, (_, i) => openAiWire.toolCalls([{ id: `l${i}`, name: 'list_files', args: {} }]));
    const created = await h.call('POST', `${base()}/fixes`, {
      body: { finding_ids: [finding.id], title: 'Loops forever', instructions: 'x', source_repo: 'acme/users' },
    });
    const progress = await waitFor(`${base()}/fixes/${created.json().id}/progress`, (p) => TERMINAL.includes(p.status));
    assert.equal(progress.status, 'failed');
    assert.match(progress.error_message, /did not finish within 30 steps/);
    assert.equal(progress.agent_steps_completed, 31, 'the codemod step and the 30 model turns');
    assert.ok(!JSON.stringify(progress).includes('sk-stub-key'));
    turns = [];
  });
});
