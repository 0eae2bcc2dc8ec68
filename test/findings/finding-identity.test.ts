import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Unit } from '../../src/core/units.ts';
import { expectStatus, expectValidationError, FINISHED_BATCH, pollUntil, readEvents } from '../support/helpers.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';

// A finding is the user's record of a problem: its id, status, triage and history must survive the edits
// code goes through, and must not be handed to a different problem. Each case scans a real repository,
// triages the finding, changes the code, scans again and checks what the API says.

const SSRF = 'python.lang.ssrf.outbound-request';
const COMMAND = 'python.lang.command-injection.shell-command';

const PREVIEW = `import requests
from flask import Flask, request

app = Flask(__name__)


@app.route("/preview")
def preview():
    url = request.args.get("url")
    return requests.get(url, timeout=5).text
`;

describe('finding identity across rescans, over HTTP', () => {
  let h: Harness;
  let org: TestOrg;
  const repos: TestRepo[] = [];
  let counter = 0;

  before(async () => {
    h = await createHarness({ scanning: true });
    org = await h.org('identity');
  });
  after(async () => {
    await h.close();
    for (const repo of repos) repo.remove();
  });

  function newRepo(): TestRepo {
    const repo = TestRepo.create();
    repos.push(repo);
    return repo;
  }

  async function scan(unit: Unit, collection: 'repositories' | 'applications' = 'repositories') {
    const created = await h.call('POST', `/api/v1/${collection}/${unit.id}/scans`, { body: { scan_type: 'semgrep_scan' } });
    const batchId: string = expectStatus(created, 202).batch_id;
    const progress = await pollUntil(h, `/api/v1/${collection}/${unit.id}/scans/${batchId}/progress`, (p) => FINISHED_BATCH.includes(p.status));
    assert.equal(progress.status, 'completed', progress.error_message ?? '');
    return batchId;
  }

  async function findings(unit: Unit, collection: 'repositories' | 'applications' = 'repositories') {
    return expectStatus(await h.call('GET', `/api/v1/${collection}/${unit.id}/findings?limit=200`), 200).items as any[];
  }

  async function triage(unit: Unit, findingId: string, status: string, comment?: string) {
    const body = comment === undefined ? { status } : { status, comment };
    return expectStatus(await h.call('PATCH', `/api/v1/repositories/${unit.id}/findings/${findingId}`, { body }), 200);
  }

  /** A repository holding `files`, scanned once; returns the unit and its findings of `rule`. */
  async function scanned(files: Record<string, string>, rule = SSRF) {
    const repo = newRepo();
    repo.commit(files, 'initial');
    const unit = await h.unit(org, [`github:acme/identity-${++counter}@main`], `identity-${counter}`, [repo.url]);
    await scan(unit);
    const found = (await findings(unit)).filter((f) => f.check_id === rule);
    return { repo, unit, found };
  }

  /** Scan, mark the one finding a false positive, apply `edit`, scan again: the same id and status come back. */
  async function survives(files: Record<string, string>, edit: Record<string, string | null>) {
    const { repo, unit, found } = await scanned(files);
    assert.equal(found.length, 1, JSON.stringify(found));
    const [before] = found;
    await triage(unit, before.id, 'false_positive', 'the URL is checked against an allow-list upstream');
    repo.commit(edit, 'edit');
    await scan(unit);
    const all = await findings(unit);
    const now = all.filter((f) => f.check_id === SSRF);
    assert.deepEqual(
      now.map((f) => [f.id, f.status]),
      [[before.id, 'false_positive']],
      `after the edit: ${JSON.stringify(now.map((f) => [f.id, f.status, f.file_path, f.start_line]))}`,
    );
    return { unit, before, after: now[0] };
  }

  test('lines added above: same finding, new line number; the triage comment is in the event feed', async () => {
    const { before, after } = await survives(
      { 'app.py': PREVIEW },
      { 'app.py': `"""Link previews."""\nimport logging\n\nlog = logging.getLogger(__name__)\n${PREVIEW}` },
    );
    assert.equal(before.start_line, 10);
    assert.equal(after.start_line, 14);
    const events = (await readEvents(h, org.key, { finding_id: before.id })).items;
    const changed = events.find((e: any) => e.event_type === 'status_changed');
    assert.equal(changed.comment, 'the URL is checked against an allow-list upstream');
    assert.equal(changed.new_status, 'false_positive');
    assert.ok(events.filter((e: any) => e.event_type !== 'status_changed').every((e: any) => e.comment === null));
    assert.deepEqual(events.map((e: any) => e.event_type).sort(), ['detected', 'status_changed']);
  });

  test('reformatting: re-indented arguments, line wrapping and a trailing comma', async () => {
    const wrapped = PREVIEW.replace('requests.get(url, timeout=5).text', 'requests.get(\n        url,\n        timeout=5,\n    ).text');
    await survives({ 'app.py': PREVIEW }, { 'app.py': wrapped });
  });

  test('another argument of the same call changes', async () => {
    await survives({ 'app.py': PREVIEW }, { 'app.py': PREVIEW.replace('timeout=5', 'timeout=10') });
  });

  test('the file is renamed and moved', async () => {
    const { after } = await survives({ 'app.py': PREVIEW }, { 'app.py': null, 'web/views/preview.py': PREVIEW });
    assert.equal(after.file_path, 'web/views/preview.py');
  });

  test('unrelated code in the same function changes', async () => {
    const edited = PREVIEW.replace(
      '    url = request.args.get("url")\n',
      '    app.logger.info("preview requested")\n    url = request.args.get("url", "")\n    app.logger.debug("fetching %s", url)\n',
    );
    await survives({ 'app.py': PREVIEW }, { 'app.py': edited });
  });

  test('two identical matches in one file stay two findings, each with its own triage', async () => {
    const twice = `${PREVIEW}

@app.route("/preview-again")
def preview_again():
    url = request.args.get("url")
    return requests.get(url, timeout=5).text
`;
    const { repo, unit, found } = await scanned({ 'app.py': twice });
    assert.equal(found.length, 2, JSON.stringify(found));
    const [first, second] = [...found].sort((a, b) => a.start_line - b.start_line);
    assert.notEqual(first.id, second.id);
    await triage(unit, first.id, 'ignored', 'internal tool');
    repo.commit({ 'app.py': `# header\n# more header\n${twice}` }, 'edit');
    await scan(unit);
    const now = (await findings(unit)).filter((f) => f.check_id === SSRF).sort((a, b) => a.start_line - b.start_line);
    assert.deepEqual(
      now.map((f) => [f.id, f.status, f.start_line]),
      [
        [first.id, 'ignored', first.start_line + 2],
        [second.id, 'open', second.start_line + 2],
      ],
    );
  });

  test('the vulnerable call replaced by a different one: the old finding resolves, the new one opens', async () => {
    const shell = `import os
from flask import Flask, request

app = Flask(__name__)


@app.route("/run")
def run():
    cmd = request.args.get("cmd")
    os.system(cmd)
    return "ok"
`;
    const { repo, unit, found } = await scanned({ 'tasks.py': shell }, COMMAND);
    assert.equal(found.length, 1, JSON.stringify(found));
    const [old] = found;
    await triage(unit, old.id, 'needs_manual_review', 'check who can reach this');
    repo.commit({ 'tasks.py': shell.replace('import os', 'import os, subprocess').replace('os.system(cmd)', 'subprocess.call(cmd, shell=True)') });
    await scan(unit);
    const now = (await findings(unit)).filter((f) => f.check_id === COMMAND);
    assert.equal(now.length, 2, JSON.stringify(now));
    assert.equal(now.find((f) => f.id === old.id)?.status, 'resolved');
    const fresh = now.find((f) => f.id !== old.id)!;
    assert.equal(fresh.status, 'open');
    assert.match(fresh.snippet, /subprocess\.call\(cmd, shell=True\)/);
  });

  test('a resolved finding that comes back is reopened with an event, keeping its id', async () => {
    const { repo, unit, found } = await scanned({ 'app.py': PREVIEW });
    const [finding] = found;
    repo.commit({ 'app.py': PREVIEW.replace('requests.get(url, timeout=5)', 'requests.get("https://status.example.com", timeout=5)') });
    await scan(unit);
    assert.equal((await findings(unit)).find((f) => f.id === finding.id)?.status, 'resolved');
    repo.commit({ 'app.py': PREVIEW });
    await scan(unit);
    const now = (await findings(unit)).filter((f) => f.check_id === SSRF);
    assert.deepEqual(now.map((f) => [f.id, f.status]), [[finding.id, 'open']]);
    const events = (await readEvents(h, org.key, { finding_id: finding.id })).items.map((e: any) => e.event_type);
    assert.deepEqual(events, ['reopened', 'resolved_auto', 'detected']);
  });

  test('an application with two source repositories holding the same file has two findings, one per repository', async () => {
    const one = newRepo();
    const two = newRepo();
    const oneSha = one.commit({ 'app.py': PREVIEW });
    const twoSha = two.commit({ 'app.py': PREVIEW });
    const unit = await h.unit(org, ['github:acme/shop-web@main', 'gitlab:acme/shop-admin@main'], 'shop', [one.url, two.url]);
    const batchId = await scan(unit, 'applications');
    const found = (await findings(unit, 'applications')).filter((f) => f.check_id === SSRF);
    assert.deepEqual(found.map((f) => f.source_repo).sort(), ['acme/shop-admin', 'acme/shop-web']);
    assert.notEqual(found[0].id, found[1].id);
    for (const f of found) {
      assert.equal(f.file_path, 'app.py');
      assert.equal(f.start_line, 10);
      assert.equal(f.end_line, 10);
      assert.equal(f.commit_sha, f.source_repo === 'acme/shop-web' ? oneSha : twoSha);
      assert.match(f.snippet, /requests\.get\(url, timeout=5\)/);
    }
    const results = expectStatus(await h.call('GET', `/api/v1/applications/${unit.id}/scans/${batchId}/results`), 200);
    const summaries = results.findings.filter((f: any) => f.check_id === SSRF);
    assert.deepEqual(summaries.map((f: any) => f.source_repo).sort(), ['acme/shop-admin', 'acme/shop-web']);
    assert.equal(results.findings_count, results.findings.length);

    // Triage in one repository leaves the other's finding alone, and both keep their ids on a rescan.
    const web = found.find((f) => f.source_repo === 'acme/shop-web')!;
    expectStatus(await h.call('PATCH', `/api/v1/applications/${unit.id}/findings/${web.id}`, { body: { status: 'false_positive' } }), 200);
    await scan(unit, 'applications');
    const again = (await findings(unit, 'applications')).filter((f) => f.check_id === SSRF);
    assert.deepEqual(
      again.map((f) => [f.id, f.status]).sort(),
      found.map((f) => [f.id, f.id === web.id ? 'false_positive' : 'open']).sort(),
    );
  });

  test('a triage comment is bounded and validated; a rejected request changes nothing', async () => {
    const { unit, found } = await scanned({ 'app.py': PREVIEW });
    const [finding] = found;
    const url = `/api/v1/repositories/${unit.id}/findings/${finding.id}`;
    expectValidationError(await h.call('PATCH', url, { body: { status: 'ignored', comment: 'x'.repeat(2001) } }), ['body', 'comment'], 'string_too_long');
    expectValidationError(await h.call('PATCH', url, { body: { status: 'ignored', comment: 42 } }), ['body', 'comment'], 'string_type');
    assert.equal(expectStatus(await h.call('GET', url), 200).status, 'open');
    const ok = expectStatus(await h.call('PATCH', url, { body: { status: 'ignored', comment: null } }), 200);
    assert.equal(ok.status, 'ignored');
    const [changed] = (await readEvents(h, org.key, { finding_id: finding.id, event_type: 'status_changed' })).items;
    assert.equal(changed.comment, null);
  });
});
