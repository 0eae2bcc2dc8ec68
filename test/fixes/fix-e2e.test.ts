import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { authenticate } from '../../src/core/api-keys.ts';
import { createFix } from '../../src/core/fixes.ts';
import { getUnit } from '../../src/core/units.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { maskSecret } from '../../src/scanning/secrets/text-checks.ts';
import { fixJobKey } from '../../src/fixing/fix-runner.ts';
import { importOsv } from '../../src/osv/import.ts';
import { pollUntil, prsUsed, retireFixesOf, scanRepository } from '../support/helpers.ts';
import { createHarness, testTokenBox, type Harness, type TestOrg } from '../support/api.ts';
import { startGitHubStandIn, type StandIn } from '../support/code-host-standins.ts';
import { TestRepo } from '../support/git-repo.ts';
import { osvRecord, writeRecordDir } from '../support/osv-records.ts';
import { positiveSample } from '../support/secret-samples.ts';
import { ownWorkTreeFolders, workTreeExists } from '../support/work-trees.ts';
import { startRegistryStandIn, type RegistryStandIn } from '../support/package-registry-standin.ts';

const stripeKey = positiveSample(SECRET_RULES.find((r) => r.id === 'stripe-secret-key')!, 201);

const PAYMENTS_PY = `"""Payment helpers."""
import requests

STRIPE_KEY = "${stripeKey}"


def charge(amount):
    return requests.post("https://api.stripe.com/v1/charges", auth=(STRIPE_KEY, ""), data={"amount": amount})
`;

const otherStripeKey = positiveSample(SECRET_RULES.find((r) => r.id === 'stripe-secret-key')!, 202);
const KEYS_JSON = `{ "stripe": "${otherStripeKey}" }\n`;

const CLIENT_PY = `import requests


def fetch(url):
    return requests.get(url, verify=False, timeout=5)
`;

/** A request fetching a URL the user gives (SSRF): a finding no deterministic fixer handles. */
const DIRECTORY_PY = `from flask import Flask, request
import ldap

app = Flask(__name__)
conn = ldap.initialize("ldap://directory.internal")


@app.route("/people")
def people():
    return str(conn.search_s("ou=people,dc=example", ldap.SCOPE_SUBTREE, "(uid=" + request.args["uid"] + ")"))
`;

const lock = (lodash: string) =>
  JSON.stringify(
    {
      name: 'shop',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'shop', version: '1.0.0', dependencies: { lodash: `^${lodash}` } },
        'node_modules/lodash': {
          version: lodash,
          resolved: `https://registry.npmjs.org/lodash/-/lodash-${lodash}.tgz`,
          integrity: 'sha512-AAAA',
        },
      },
    },
    null,
    2,
  ) + '\n';

const PACKAGE_JSON = JSON.stringify({ name: 'shop', version: '1.0.0', dependencies: { lodash: '^4.17.20' } }, null, 2) + '\n';

const TERMINAL = ['completed', 'failed', 'cancelled'];

describe('autofix over HTTP on a real repository', () => {
  let h: Harness;
  let org: TestOrg;
  let repo: TestRepo;
  let github: StandIn;
  let packages: RegistryStandIn;
  let unitId: string;
  const base = () => `/api/v1/repositories/${unitId}`;
  const TOKEN = 'ghp_e2eTestTokenForTheStandIn000000000000';

  before(async () => {
    repo = TestRepo.create();
    github = await startGitHubStandIn({ token: TOKEN, repos: { 'acme/shop': path.join(repo.dir, '.git') } });
    packages = await startRegistryStandIn({ npm: { lodash: { '4.17.20': {}, '4.17.21': {}, '4.17.22': {} } } });
    h = await createHarness({
      scanning: true,
      env: { BULWARK_JOB_LEASE_SECONDS: '10', BULWARK_GITHUB_API_URL: github.url, BULWARK_NPM_REGISTRY_URL: packages.url, BULWARK_PYPI_URL: packages.url },
    });
    org = await h.org('fixing');
    const records = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-fix-osv-'));
    writeRecordDir(records, [osvRecord('GHSA-2099-lodash-ffff', 'npm', 'lodash', [{ introduced: '0' }, { fixed: '4.17.21' }])]);
    await importOsv(h.database.store.db, records);
    fs.rmSync(records, { recursive: true });
    repo.commit({
      'app/payments.py': PAYMENTS_PY,
      'app/client.py': CLIENT_PY,
      'app/directory.py': DIRECTORY_PY,
      'data/keys.json': KEYS_JSON,
      'package.json': PACKAGE_JSON,
      'package-lock.json': lock('4.17.20'),
    });
    const unit = await h.unit(org, ['github:acme/shop@main'], 'shop', [repo.url]);
    unitId = unit.id;
    await h.database.store.db.updateTable('source_repos').set({ token_ciphertext: testTokenBox.seal(TOKEN) }).where('unit_id', '=', unitId).execute();
  });
  after(async () => {
    await h.close();
    await github.close();
    await packages.close();
    repo.remove();
  });

  async function scan(scanType: string) {
    await scanRepository(h, unitId, scanType);
    return (await h.call('GET', `${base()}/findings?scan_type=${scanType}&status=open&limit=200`)).json().items as any[];
  }

  const waitFor = (url: string, done: (body: any) => boolean) => pollUntil(h, url, done);

  async function runFix(findingIds: string[], title: string) {
    await retireFixesOf(h, findingIds);
    const created = await h.call('POST', `${base()}/fixes`, {
      body: { finding_ids: findingIds, title, instructions: 'Fix it without changing behaviour.', source_repo: 'acme/shop' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const fix = created.json();
    const progress = await waitFor(`${base()}/fixes/${fix.id}/progress`, (p) => TERMINAL.includes(p.status));
    const diff = (await h.call('GET', `${base()}/fixes/${fix.id}/diff`)).json();
    return { fix, progress, diff };
  }

  test('a committed secret: the fix replaces the literal by an environment lookup, verified by a rescan', async () => {
    const secret = (await scan('secrets_scan')).find((f) => f.file_path === 'app/payments.py');
    assert.ok(secret, 'the planted key is found');
    const { fix, progress, diff } = await runFix([secret.id], 'Move the Stripe key out of the code');
    assert.equal(progress.status, 'completed', progress.error_message ?? '');
    assert.ok(progress.agent_steps_completed >= 1);
    assert.ok(progress.started_at && progress.completed_at && progress.duration_seconds >= 0);
    assert.deepEqual(Object.keys(progress).sort(), [
      'agent_steps_completed', 'completed_at', 'current_step', 'duration_seconds', 'error_message', 'fix_id', 'latest_activity_at', 'repository_id', 'started_at', 'status',
    ]);
    assert.equal(progress.current_step, null, 'a finished fix is doing nothing');
    assert.equal(diff.status, 'completed');
    assert.match(diff.diff, /^-STRIPE_KEY = "sk_/m);
    assert.match(diff.diff, /^\+STRIPE_KEY = os\.environ\.get\("STRIPE_KEY"\)$/m);
    assert.match(diff.diff, /^\+import os$/m);
    assert.ok(!diff.diff.includes(stripeKey), 'the API shows the removed key masked');
    assert.ok(diff.diff.includes(`-STRIPE_KEY = "${maskSecret(stripeKey)}"`));
    const row = await h.database.store.db.selectFrom('fixes').selectAll().where('id', '=', fix.id).executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(row).includes(stripeKey), 'no column holds the key in clear');
    assert.ok(testTokenBox.open(row.diff_ciphertext!).includes(`-STRIPE_KEY = "${stripeKey}"`), 'the sealed diff applies as it is');

    const stored = (await h.call('GET', `${base()}/fixes/${fix.id}`)).json();
    assert.equal(stored.status, 'completed');
    // A finding of the same credential by the SAST scan (when it ran first) is folded in: one change moves it.
    assert.deepEqual(stored.finding_outcomes[0] && [stored.finding_outcomes[0].finding_id, stored.finding_outcomes[0].fixed], [secret.id, true]);
    assert.ok(stored.finding_outcomes.every((o: any) => o.fixed), JSON.stringify(stored.finding_outcomes));
    assert.deepEqual(stored.finding_ids.slice(0, 1), [secret.id]);
    assert.match(stored.finding_outcomes[0].detail, /now read from the environment/);
    assert.match(diff.diff, /^\+if not STRIPE_KEY:\n\+ {4}raise RuntimeError\("Set the environment variable STRIPE_KEY: the app reads this credential from it"\)$/m);
    assert.deepEqual(stored.notes, [
      'The app now needs the environment variable STRIPE_KEY: app/payments.py now stops when it loads, with an error naming STRIPE_KEY, if the variable is unset or empty. ' +
        'Set it wherever app/payments.py runs (listed without a value in .env.example)',
      'Rotate the Stripe secret key that was committed in app/payments.py: it stays readable in the git history',
    ]);
    assert.match(diff.diff, /^\+STRIPE_KEY=$/m, 'the variable is listed in .env.example');
    assert.match(stored.source_base_commit_sha, /^[0-9a-f]{40}$/);
    const events = (await h.call('GET', `/api/v1/finding-events?finding_id=${secret.id}`)).json().items.map((e: any) => e.event_type);
    assert.deepEqual(events.slice(0, 3), ['fix_completed', 'fix_started', 'fix_created']);

    // The pull request: a branch with one commit carrying the diff, then the GitHub API through Octokit.
    const opened = await h.call('POST', `${base()}/fixes/${fix.id}/pull-requests`, { body: {} });
    assert.equal(opened.statusCode, 201, opened.body);
    const [pr] = opened.json().pull_requests;
    assert.equal(pr.repo_full_name, 'acme/shop');
    assert.equal(pr.branch_name, `bulwark/fix-${fix.id}`);
    assert.ok(pr.pr_number > 0);
    assert.match(pr.pr_url, /\/acme\/shop\/pull\/\d+$/);
    assert.equal(pr.merged_at, null);
    const creation = github.creations().find((c) => (c.body as { head?: string }).head === pr.branch_name) as { headers: Record<string, unknown>; body: any };
    assert.ok(creation, 'the stand-in received the creation request');
    assert.equal(creation.headers.authorization, `token ${TOKEN}`);
    assert.equal(creation.body.head, pr.branch_name);
    assert.equal(creation.body.base, 'main');
    assert.match(creation.body.body, /secrets\.stripe-secret-key/);
    assert.match(creation.body.body, /CWE-798/);
    assert.match(creation.body.body, /\*\*Before merging:\*\*\n\n- \[ \] The app now needs the environment variable STRIPE\\_KEY/);
    assert.match(creation.body.body, /- \[ \] Rotate the Stripe secret key/);
    const branchDiff = repo.git('diff', `${stored.source_base_commit_sha}..${pr.branch_name}`);
    assert.match(branchDiff, /^\+STRIPE_KEY = os\.environ\.get\("STRIPE_KEY"\)$/m);
    assert.equal(repo.git('rev-list', '--count', `${stored.source_base_commit_sha}..${pr.branch_name}`).trim(), '1');
    assert.equal((await h.call('GET', `${base()}/fixes/${fix.id}`)).json().pull_requests[0].pr_url, pr.pr_url);
    const prEvents = (await h.call('GET', `/api/v1/finding-events?finding_id=${secret.id}&event_type=fix_pr_created`)).json().items;
    assert.equal(prEvents.length, 1);
    const again = await h.call('POST', `${base()}/fixes/${fix.id}/pull-requests`, { body: {} });
    assert.equal(again.statusCode, 409, 'a fix opens its pull request once');
    const refine = await h.call('POST', `${base()}/fixes/${fix.id}/refine`, { body: { instructions: 'more' } });
    assert.equal(refine.statusCode, 409);
    assert.match(refine.json().detail.detail, /already has a pull request/, 'the branch would no longer match the diff');
  });

  test('a fix of two findings, one of which cannot be fixed, completes with the other and tells each outcome', async () => {
    const found = await scan('secrets_scan');
    const inCode = found.find((f) => f.file_path === 'app/payments.py');
    const inData = found.find((f) => f.file_path === 'data/keys.json');
    assert.ok(inCode && inData, JSON.stringify(found.map((f) => f.file_path)));
    const { fix, progress, diff } = await runFix([inData.id, inCode.id], 'Move both Stripe keys out of the repository');
    assert.equal(progress.status, 'completed', progress.error_message ?? '');
    assert.match(diff.diff, /^\+STRIPE_KEY = os\.environ\.get\("STRIPE_KEY"\)$/m);
    assert.ok(!diff.diff.includes('data/keys.json'), 'the data file is left as it was');
    const stored = (await h.call('GET', `${base()}/fixes/${fix.id}`)).json();
    const outcomes = Object.fromEntries(stored.finding_outcomes.map((o: any) => [o.finding_id, o]));
    assert.equal(outcomes[inCode.id].fixed, true);
    assert.equal(outcomes[inData.id].fixed, false);
    assert.match(outcomes[inData.id].detail, /keys\.json is a data file that cannot read the environment/);
    assert.ok(!JSON.stringify(stored).includes(otherStripeKey) && !JSON.stringify(stored).includes(stripeKey), 'outcomes never show a key');
  });

  test('a code host refusing the pull request marks the fix pr_creation_failed with the reason, and a retry can succeed', async () => {
    const [dependency] = await scan('sbom_scan');
    const { fix, progress } = await runFix([dependency.id], 'Upgrade lodash for the PR test');
    assert.equal(progress.status, 'completed', progress.error_message ?? '');
    github.respondWith({ status: 422, body: { message: 'Validation Failed', errors: [{ message: 'No commits between main and x' }] } });
    const refused = await h.call('POST', `${base()}/fixes/${fix.id}/pull-requests`, { body: { branch_name: 'bulwark/lodash-upgrade' } });
    assert.equal(refused.statusCode, 502, refused.body);
    assert.equal(refused.json().detail.error_code, 'PR_CREATION_FAILED');
    assert.match(refused.json().detail.detail, /was pushed .* but the pull request could not be opened.*422/);
    assert.ok(!refused.body.includes(TOKEN));
    const failed = (await h.call('GET', `${base()}/fixes/${fix.id}`)).json();
    assert.equal(failed.status, 'pr_creation_failed');
    assert.match(failed.error_message, /422/);
    assert.equal((await h.call('GET', `${base()}/fixes/${fix.id}/diff`)).json().diff?.length > 0, true, 'the diff stays readable');

    github.respondWith(null);
    const badName = await h.call('POST', `${base()}/fixes/${fix.id}/pull-requests`, { body: { branch_name: 'bad..name' } });
    assert.equal(badName.statusCode, 422, badName.body);
    assert.deepEqual(badName.json().detail[0].loc, ['body', 'branch_name']);
    const retried = await h.call('POST', `${base()}/fixes/${fix.id}/pull-requests`, { body: { branch_name: 'bulwark/lodash-upgrade' } });
    assert.equal(retried.statusCode, 201, retried.body);
    assert.equal((await h.call('GET', `${base()}/fixes/${fix.id}`)).json().status, 'completed');

    const twice = await h.call('POST', `${base()}/fixes/${fix.id}/pull-requests`, { body: { branch_name: 'another' } });
    assert.equal(twice.statusCode, 409, 'the fix already has its pull request');
  });

  test('a SAST finding with a rule fix: the rewrite lands in the diff', async () => {
    const found = await scan('semgrep_scan');
    const noVerify = found.find((f) => f.file_path === 'app/client.py' && /verify/i.test(f.check_id + f.message));
    assert.ok(noVerify, `no TLS-verification finding in ${JSON.stringify(found.map((f) => f.check_id))}`);
    const { progress, diff } = await runFix([noVerify.id], 'Verify TLS certificates');
    assert.equal(progress.status, 'completed', progress.error_message ?? '');
    assert.match(diff.diff, /^-    return requests\.get\(url, verify=False, timeout=5\)$/m);
    assert.match(diff.diff, /^\+    return requests\.get\(url, verify=True, timeout=5\)$/m);
  });

  test('a vulnerable dependency: the fix bumps the manifest and the lockfile to the nearest fixed version', async () => {
    const [dependency] = await scan('sbom_scan');
    assert.equal(dependency?.check_id, 'GHSA-2099-lodash-ffff');
    const { progress, diff } = await runFix([dependency.id], 'Upgrade lodash');
    assert.equal(progress.status, 'completed', progress.error_message ?? '');
    assert.match(diff.diff, /^\+    "lodash": "\^4\.17\.21"$/m);
    assert.match(diff.diff, /^-      "version": "4\.17\.20",?$/m);
    assert.match(diff.diff, /^\+      "version": "4\.17\.21",?$/m);
  });

  test('two requests opening the same fix\'s pull request at once open one', async () => {
    const [dependency] = await scan('sbom_scan');
    const { fix, progress } = await runFix([dependency.id], 'Upgrade lodash, twice asked');
    assert.equal(progress.status, 'completed', progress.error_message ?? '');
    const before = github.creations().length;
    const answers = await Promise.all(
      ['bulwark/race-a', 'bulwark/race-b'].map((branch_name) => h.call('POST', `${base()}/fixes/${fix.id}/pull-requests`, { body: { branch_name } })),
    );
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [201, 409], answers.map((a) => a.body).join('\n'));
    assert.equal(github.creations().length, before + 1);
    assert.equal((await h.call('GET', `${base()}/fixes/${fix.id}`)).json().pull_requests.length, 1);
  });

  test('a run whose worker died midway is started over from a fresh work tree and completes', async () => {
    const secret = (await scan('secrets_scan')).find((f) => f.file_path === 'app/payments.py');
    const db = h.database.store.db;
    const unit = await getUnit(db, org.id, unitId);
    const principal = (await authenticate(db, org.key))!;
    await retireFixesOf(h, [secret.id]);
    const view = await createFix(db, principal, unit, { finding_ids: [secret.id], title: 'Crash test', instructions: 'x', source_repo: 'acme/shop' }, {
      dispatch: async () => {},
      agentConfigured: false,
      hasFixer: () => true,
    });
    // What a worker that died mid-run leaves: the fix running, half an edit in its work tree.
    await db.updateTable('fixes').set({ status: 'running', started_at: new Date().toISOString() }).where('id', '=', view.fix.id).execute();
    const root = path.join(h.database.dataDir, 'git');
    const workId = `fix-${view.fix.id}-1-1`;
    const folders = ownWorkTreeFolders(root);
    assert.ok(folders.length, 'the scan made this process a work-tree folder');
    for (const folder of folders) {
      fs.mkdirSync(path.join(folder, workId, 'app'), { recursive: true });
      fs.writeFileSync(path.join(folder, workId, 'app', 'payments.py'), 'half written');
    }
    await db.transaction().execute((trx) => h.services!.queue.enqueue(trx, 'fix-run', fixJobKey(view.fix.id, 1)));

    const progress = await waitFor(`${base()}/fixes/${view.fix.id}/progress`, (p) => TERMINAL.includes(p.status));
    assert.equal(progress.status, 'completed', progress.error_message ?? '');
    const diff = (await h.call('GET', `${base()}/fixes/${view.fix.id}/diff`)).json().diff;
    assert.match(diff, /^\+STRIPE_KEY = os\.environ\.get\("STRIPE_KEY"\)$/m);
    assert.ok(!diff.includes('half written'));
    // The status is committed first; the work tree goes right after, as the run unwinds.
    const deadline = Date.now() + 5_000;
    while (workTreeExists(root, workId)) {
      assert.ok(Date.now() < deadline, 'the work tree is removed when the run ends');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  test('without an LLM, a fix for a finding no deterministic fixer handles is refused at creation, charging and storing nothing', async () => {
    const found = await scan('semgrep_scan');
    const withoutRuleFix = found.find((f) => f.file_path === 'app/directory.py');
    if (!withoutRuleFix) return assert.fail(`expected a finding without a rule fix in ${JSON.stringify(found.map((f) => f.check_id))}`);
    const used = await prsUsed(h, org.key);
    const fixesBefore = (await h.call('GET', `${base()}/fixes?limit=100`)).json().total;
    const refused = await h.call('POST', `${base()}/fixes`, {
      body: { finding_ids: [withoutRuleFix.id], title: 'Something only an agent could do', instructions: 'x', source_repo: 'acme/shop' },
    });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json().detail.error_code, 'NO_FIXER_AVAILABLE');
    assert.match(refused.json().detail.detail, new RegExp(`${withoutRuleFix.check_id}.*BULWARK_LLM_PROVIDER`));
    assert.equal(await prsUsed(h, org.key), used, 'no credit taken');
    assert.equal((await h.call('GET', `${base()}/fixes?limit=100`)).json().total, fixesBefore, 'no fix stored');
    const events = (await h.call('GET', `/api/v1/finding-events?finding_id=${withoutRuleFix.id}&event_type=fix_created`)).json().items;
    assert.equal(events.length, 0);
  });
});
