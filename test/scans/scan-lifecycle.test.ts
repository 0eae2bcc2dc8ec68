import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import type { Unit } from '../../src/core/units.ts';
import { recordAnalysisProgress } from '../../src/store/scan-batches.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';
import { positiveSample } from '../support/secret-samples.ts';

const sampleOf = (id: string, seed: number) => positiveSample(SECRET_RULES.find((r) => r.id === id)!, seed);

describe('a secrets scan, end to end on real git repositories', () => {
  let h: Harness;
  let org: TestOrg;
  const repos: TestRepo[] = [];
  const responses: string[] = [];
  const githubToken = sampleOf('github-pat', 101);
  const awsKey = sampleOf('aws-access-key-id', 102);
  const stripeKey = sampleOf('stripe-secret-key', 103);

  before(async () => {
    h = await createHarness({ scanning: true, env: { BULWARK_JOB_LEASE_SECONDS: '10' } });
    org = await h.org('scanning');
  });
  after(async () => {
    await h.close();
    for (const repo of repos) repo.remove();
  });

  const newRepo = () => {
    const repo = TestRepo.create();
    repos.push(repo);
    return repo;
  };

  async function call(method: string, url: string, body?: unknown) {
    const res = await h.call(method, url, { body });
    responses.push(res.body);
    return res;
  }

  /** Triggers a scan and polls its progress until it ends, checking the bar only ever rises. */
  async function scanToEnd(family: 'repositories' | 'applications', unit: Unit, scanType = 'secrets_scan') {
    const created = await call('POST', `/api/v1/${family}/${unit.id}/scans`, { scan_type: scanType });
    assert.equal(created.statusCode, 202, created.body);
    const batchId = created.json().batch_id;
    const percents: number[] = [];
    const deadline = Date.now() + 60_000;
    for (;;) {
      const progress = (await call('GET', `/api/v1/${family}/${unit.id}/scans/${batchId}/progress`)).json();
      percents.push(progress.percent_complete);
      if (['completed', 'partial_failure', 'failed'].includes(progress.status)) {
        assert.deepEqual(percents, [...percents].sort((a, b) => a - b), 'percent_complete never goes down');
        assert.equal(progress.percent_complete, 100);
        return progress;
      }
      assert.ok(Date.now() < deadline, `batch still ${progress.status} after 60s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const findings = async (unit: Unit, query = '') =>
    (await call('GET', `/api/v1/repositories/${unit.id}/findings?limit=200${query}`)).json().items as any[];
  const events = async (findingId: string) =>
    (await call('GET', `/api/v1/finding-events?finding_id=${findingId}`)).json().items as any[];

  test('finds secrets in the tree and in history, then resolves, reopens and respects triage', async () => {
    const repo = newRepo();
    repo.commit({ 'README.md': '# service\n' }, 'initial');
    const base = repo.commit({ 'deploy/aws.sh': `export AWS_ACCESS_KEY_ID=${awsKey}\n` }, 'add deploy script');
    repo.commit({ 'deploy/aws.sh': 'export AWS_ACCESS_KEY_ID="$AWS_KEY"\n' }, 'read the key from the environment');
    const head = repo.commit({ 'src/config.js': `module.exports = {\n  github: "${githubToken}",\n};\n` }, 'add config');
    const unit = await h.unit(org, ['github:acme/service@main'], 'service', [repo.url]);

    const first = await scanToEnd('repositories', unit);
    assert.equal(first.status, 'completed');
    assert.equal(first.error_message, null);
    assert.deepEqual(
      [first.total_repositories, first.scans_created, first.scans_completed, first.scans_failed, first.scans_assessed],
      [1, 1, 1, 0, 1],
    );
    assert.equal(first.repositories.length, 1);
    assert.equal(first.repositories[0].repository, 'acme/service');
    assert.equal(first.repositories[0].status, 'completed');
    assert.equal(first.repositories[0].findings_count, 2);

    const open = await findings(unit);
    const byCheck = Object.fromEntries(open.map((f) => [f.check_id, f]));
    assert.deepEqual(Object.keys(byCheck).sort(), ['secrets.aws-access-key-id', 'secrets.github-pat']);
    const gh = byCheck['secrets.github-pat'];
    assert.equal(gh.file_path, 'src/config.js');
    assert.equal(gh.start_line, 2);
    assert.equal(gh.severity, 'critical');
    assert.equal(gh.scan_batch_id, first.batch_id);
    assert.equal(gh.category, 'secrets');
    assert.ok(gh.cwe[0].startsWith('CWE-798'));
    const aws = byCheck['secrets.aws-access-key-id'];
    assert.equal(aws.file_path, 'deploy/aws.sh');
    assert.match(aws.message, new RegExp(`in ${base.slice(0, 12)}`), 'a history finding names its commit');

    const results = (await call('GET', `/api/v1/repositories/${unit.id}/scans/${first.batch_id}/results`)).json();
    assert.equal(results.findings_count, 2);
    assert.ok(results.findings.every((f: any) => /^[0-9a-f]{64}$/.test(f.fingerprint)));
    assert.deepEqual((await events(gh.id)).map((e) => e.event_type), ['detected']);

    // A rescan of the same head changes nothing but the detection time and batch.
    const second = await scanToEnd('repositories', unit);
    const again = await findings(unit);
    assert.equal(again.length, 2);
    assert.ok(again.every((f) => f.status === 'open' && f.scan_batch_id === second.batch_id));

    // Triage: the AWS key is accepted as ignored; it must stay so.
    await call('PATCH', `/api/v1/repositories/${unit.id}/findings/${aws.id}`, { status: 'ignored' });

    // Rotate and rewrite history so the token is gone from the branch entirely.
    repo.git('reset', '--quiet', '--hard', head);
    repo.git('reset', '--quiet', '--soft', 'HEAD~1');
    repo.commit({ 'src/config.js': 'module.exports = { github: process.env.GITHUB_TOKEN };\n' }, 'config from env');
    await scanToEnd('repositories', unit);
    const afterRemoval = await findings(unit);
    const ghNow = afterRemoval.find((f) => f.id === gh.id);
    assert.equal(ghNow.status, 'resolved');
    assert.ok(ghNow.resolved_at);
    assert.equal(afterRemoval.find((f) => f.id === aws.id).status, 'ignored', 'ignored survives rescans');
    assert.deepEqual((await events(gh.id)).map((e) => e.event_type), ['resolved_auto', 'detected']);

    // The token comes back: the same finding reopens.
    repo.commit({ 'src/legacy.js': `const token = "${githubToken}";\n`, 'src/config.js': `module.exports = {\n  github: "${githubToken}",\n};\n` });
    await scanToEnd('repositories', unit);
    const reopened = (await findings(unit)).filter((f) => f.check_id === 'secrets.github-pat');
    const same = reopened.find((f) => f.id === gh.id);
    assert.equal(same.status, 'open');
    assert.equal(same.resolved_at, null);
    assert.equal(reopened.length, 2, 'the copy in another file is a finding of its own');
    assert.deepEqual((await events(gh.id)).map((e) => e.event_type), ['reopened', 'resolved_auto', 'detected']);
  });

  test('an application scan over three repositories with one unreachable ends in partial_failure', async () => {
    const one = newRepo();
    one.commit({ 'app.py': `STRIPE_KEY = "${stripeKey}"\n` });
    const two = newRepo();
    two.commit({ 'main.go': 'package main\n' });
    const unit = await h.unit(
      org,
      ['github:acme/payments@main', 'gitlab:acme/gateway@main', 'github:acme/gone@main'],
      'storefront',
      [one.url, two.url, `file://${path.join(os.tmpdir(), 'bulwark-missing-repo-nonexistent.git')}`],
    );
    const before = (await call('GET', '/api/v1/quotas/balance')).json().sast_scans.used;
    const progress = await scanToEnd('applications', unit);
    assert.equal(progress.status, 'partial_failure');
    assert.equal((await call('GET', '/api/v1/quotas/balance')).json().sast_scans.used, before + 1, 'scans ran, so the credit stays spent');
    assert.match(progress.error_message, /1 of 3 repositories failed/);
    const entries = Object.fromEntries(progress.repositories.map((r: any) => [r.repository, r]));
    assert.equal(entries['acme/payments'].status, 'completed');
    assert.equal(entries['acme/payments'].findings_count, 1);
    assert.equal(entries['acme/gateway'].findings_count, 0);
    assert.equal(entries['acme/gone'].status, 'failed');
    assert.match(entries['acme/gone'].status_reason, /could not fetch the repository/);
    assert.deepEqual([progress.scans_completed, progress.scans_failed], [2, 1]);
    const appFindings = (await call('GET', `/api/v1/applications/${unit.id}/findings`)).json();
    assert.equal(appFindings.total, 1);
    assert.equal(appFindings.items[0].check_id, 'secrets.stripe-secret-key');
    assert.equal(appFindings.items[0].application_id, unit.id);
  });

  test('a missing branch and a disallowed URL become clear status reasons, and the batch returns its credit', async () => {
    const repo = newRepo();
    repo.commit({ 'a.txt': 'hello\n' });
    const unit = await h.unit(org, ['github:acme/branchy@release', 'github:acme/remote@main'], 'reasons', [repo.url]);
    // Registration refuses such a URL now; a source stored before it did is refused again at checkout.
    await h.database.store.db
      .updateTable('source_repos')
      .set({ clone_url: 'ssh://git@example.invalid/acme/remote.git' })
      .where('unit_id', '=', unit.id)
      .where('full_name', '=', 'acme/remote')
      .execute();
    const before = (await call('GET', '/api/v1/quotas/balance')).json().sast_scans.used;
    const progress = await scanToEnd('applications', unit);
    assert.equal(progress.status, 'failed');
    assert.equal((await call('GET', '/api/v1/quotas/balance')).json().sast_scans.used, before, 'no scan could run, so the credit came back');
    const reasons = progress.repositories.map((r: any) => r.status_reason).sort();
    assert.match(reasons[0], /branch "release" does not exist/);
    assert.match(reasons[1], /unsupported clone URL/);
  });

  test('deep_ai_scan reports what semgrep_scan reports plus whole-application findings, for one deep credit', async () => {
    const repo = newRepo();
    repo.commit({
      'app.py': [
        'import os',
        'from flask import Flask, request, session',
        'app = Flask(__name__)',
        '',
        '@app.route("/login", methods=["POST"])',
        'def login():',
        '    if request.form["password"] == os.environ["ADMIN_PASSWORD"]:',
        '        session["user"] = "admin"',
        '    return "ok"',
        '',
        '@app.route("/ping")',
        'def ping():',
        '    return os.popen("ping -c 1 " + request.args["host"]).read()',
        '',
      ].join('\n'),
    });
    const unit = await h.unit(org, ['github:acme/deep@main'], 'deep', [repo.url]);
    const before = (await call('GET', '/api/v1/quotas/balance')).json();
    const progress = await scanToEnd('repositories', unit, 'deep_ai_scan');
    assert.equal(progress.status, 'completed', JSON.stringify(progress));
    const after = (await call('GET', '/api/v1/quotas/balance')).json();
    assert.equal(after.deep_ai_scans.used, before.deep_ai_scans.used + 1);
    assert.equal(after.sast_scans.used, before.sast_scans.used);
    const checks = (scanType: string) => call('GET', `/api/v1/repositories/${unit.id}/findings?scan_type=${scanType}&limit=50`);
    const deep = (await checks('deep_ai_scan')).json().items.map((f: any) => `${f.check_id}:${f.line_number ?? f.start_line ?? ''}`);
    assert.ok(deep.some((c: string) => c.startsWith('python.deep.auth.login-without-attempt-limit')), deep.join('\n'));
    assert.ok(deep.some((c: string) => c.startsWith('python.lang.command-injection')), deep.join('\n'));
    // The engine's progress on the scan only ever rises, whatever order writes arrive in.
    const db = h.database.store.db;
    const scanRow = await db.selectFrom('scans').selectAll().where('batch_id', '=', progress.batch_id).executeTakeFirstOrThrow();
    await db.updateTable('scans').set({ analysis_progress: 0.2 }).where('id', '=', scanRow.id).execute();
    await recordAnalysisProgress(db, scanRow.id, 0.6);
    await recordAnalysisProgress(db, scanRow.id, 0.4);
    await recordAnalysisProgress(db, scanRow.id, 7);
    const progressNow = async () => (await db.selectFrom('scans').select('analysis_progress').where('id', '=', scanRow.id).executeTakeFirstOrThrow()).analysis_progress;
    assert.equal(await progressNow(), 1, 'clamped to 1, never lowered by the 0.4 that came late');
    const semgrep = await scanToEnd('repositories', unit, 'semgrep_scan');
    assert.equal(semgrep.status, 'completed');
    const staticChecks = (await checks('semgrep_scan')).json().items.map((f: any) => f.check_id as string);
    for (const check of staticChecks) assert.ok(deep.some((c: string) => c.startsWith(`${check}:`)), `deep scan lacks ${check}`);
  });

  test('no raw secret appears in any response or database row', async () => {
    // A scan of its own, so the dump holds findings, events and jobs whichever tests ran before it.
    const repo = newRepo();
    repo.commit({ 'README.md': '# leaky\n' }, 'initial');
    repo.commit({ 'deploy/aws.sh': `export AWS_ACCESS_KEY_ID=${awsKey}\n`, 'billing/keys.py': `STRIPE_KEY = "${stripeKey}"\n` }, 'add keys');
    repo.commit({ 'src/config.js': `module.exports = {\n  github: "${githubToken}",\n};\n` }, 'add config');
    const unit = await h.unit(org, ['github:acme/leaky@main'], 'leaky', [repo.url]);
    assert.equal((await scanToEnd('repositories', unit)).status, 'completed');
    for (const finding of await findings(unit)) await events(finding.id);

    const tables = ['findings', 'finding_events', 'scans', 'scan_batches', 'jobs'] as const;
    const dump: string[] = [...responses];
    for (const table of tables) {
      const rows = await h.database.store.db.selectFrom(table as 'findings').selectAll().execute().catch(() => []);
      dump.push(JSON.stringify(rows));
    }
    const everything = dump.join('\n');
    assert.ok(everything.includes('secrets.github-pat'), 'the dump does hold the findings');
    for (const secret of [githubToken, awsKey, stripeKey]) {
      assert.ok(!everything.includes(secret), 'a raw secret leaked');
      assert.ok(!everything.includes(secret.slice(4, 16)), 'a large piece of a raw secret leaked');
    }
  });
});
