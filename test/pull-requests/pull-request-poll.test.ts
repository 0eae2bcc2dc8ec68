// The poll of fix pull requests where no webhook reports on them: the real host client asks a loopback
// stand-in for GitHub, and what it answers reaches fixes and findings as a webhook's word would.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { codeHostClients, codeHostSettings } from '../../src/code-hosts/index.ts';
import { pollFixPullRequests } from '../../src/core/pull-request-polling.ts';
import { newId, nowIso } from '../../src/ids.ts';
import type { Database } from '../../src/store/schema.ts';
import { createHarness, testTokenBox, type Harness, type TestOrg } from '../support/api.ts';
import { readEvents } from '../support/helpers.ts';
import { startPullRequestStateStandIn, type HostedPullRequest, type PullRequestStateStandIn } from '../support/pull-request-fixture.ts';

const TOKEN = 'ghp_pollToken0123456789abcdefABCDEFabcdef';

describe('the poll of fix pull requests', () => {
  let h: Harness;
  let db: Kysely<Database>;
  let org: TestOrg;
  let host: PullRequestStateStandIn;
  const hosted: Record<number, HostedPullRequest> = {};
  const logged: string[] = [];

  before(async () => {
    h = await createHarness();
    db = h.database.store.db;
    org = await h.org('poll');
    host = await startPullRequestStateStandIn({ provider: 'github', token: TOKEN, fullName: 'acme/api', pullRequests: hosted });
  });
  after(async () => {
    await host.close();
    await h.close();
  });

  // Every pull request is due at once: a round asks about all of them.
  const poll = () =>
    pollFixPullRequests(db, {
      tokenBox: testTokenBox,
      clients: codeHostClients({ ...codeHostSettings({}), github: host.url }),
      everyMs: -60_000,
      log: (message, fields) => logged.push(`${message} ${JSON.stringify(fields)}`),
    });

  /** A unit of `inOrg` on acme/api with its token, two findings, and a completed fix of both whose pull request is `number`. */
  async function fixWithPullRequest(number: number, inOrg: TestOrg = org) {
    const unit = await h.unit(inOrg, ['github:acme/api']);
    await db.updateTable('source_repos').set({ token_ciphertext: testTokenBox.seal(TOKEN) }).where('unit_id', '=', unit.id).execute();
    const findings = [await h.finding(unit), await h.finding(unit)];
    const fixId = newId();
    const at = nowIso();
    await (db as Kysely<any>)
      .insertInto('fixes')
      .values({ id: fixId, org_id: inOrg.id, unit_id: unit.id, title: 'fix', instructions: '', status: 'completed', source_repo: 'acme/api', source_repo_provider: 'github', created_at: at, updated_at: at })
      .execute();
    await db.insertInto('fix_findings').values(findings.map((f, position) => ({ fix_id: fixId, finding_id: f.id, position }))).execute();
    const pullRequestId = newId();
    await db
      .insertInto('fix_pull_requests')
      .values({ id: pullRequestId, fix_id: fixId, repo_full_name: 'acme/api', branch_name: `bulwark/fix-${number}`, pr_number: number, pr_url: `https://github.com/acme/api/pull/${number}`, merge_status: 'clean', created_at: at, merged_at: null })
      .execute();
    return { unit, findings, pullRequestId };
  }

  test('a merge seen by the poll resolves the fixed and the linked findings, once', async () => {
    const { unit, findings } = await fixWithPullRequest(7);
    const linked = await h.finding(unit);
    hosted[7] = { state: 'open', title: 'Bulwark: fix', body: null, headSha: 'a'.repeat(40), commits: ['Move the key to the environment'] };

    // (Other tests' pull requests may be asked about in the same rounds: what is checked is this one's.)
    assert.equal((await poll()).failed, 0);
    assert.equal((await readEvents(h, org.key, { repository_id: unit.id, event_type: 'fix_pr_updated' })).total, 0, 'the first look only records');
    hosted[7] = { ...hosted[7], state: 'merged', closedAt: '2026-11-22T09:00:00Z', mergeCommitSha: 'f'.repeat(40), commits: [...hosted[7].commits, `Also fixes bulwark:${linked.id}`] };
    assert.equal((await poll()).failed, 0);

    const merged = await readEvents(h, org.key, { event_type: 'resolved_pr_merged', repository_id: unit.id });
    assert.deepEqual(merged.items.map((e: any) => e.finding_id).sort(), findings.map((f) => f.id).sort());
    assert.ok(merged.items.every((e: any) => e.metadata.via === 'poll' && e.metadata.merged_at === '2026-11-22T09:00:00.000Z'));
    const links = await readEvents(h, org.key, { event_type: 'resolved_pr_linked', repository_id: unit.id });
    assert.deepEqual(links.items.map((e: any) => e.finding_id), [linked.id]);
    const updates = await readEvents(h, org.key, { event_type: 'fix_pr_updated', finding_id: findings[0].id });
    assert.deepEqual(updates.items.map((e: any) => e.metadata.changes), [['merged']]);

    // A merged pull request is not asked about again.
    const before = host.requests.length;
    await poll();
    assert.ok(!host.requests.slice(before).some((r) => /\/pulls\/7(\/|$|\?)/.test(r.path)), 'no request about the merged pull request');
    assert.ok(host.requests.every((r) => r.headers.authorization === `token ${TOKEN}`), 'the repository’s stored token is used');
  });

  test('a host that cannot answer is noted, the token never logged, and asked again next round', async () => {
    await fixWithPullRequest(8);
    hosted[8] = { state: 'open', title: 'Bulwark: fix', body: null, headSha: 'b'.repeat(40), commits: [] };
    host.respondWith({ status: 500, body: { message: `upstream failed for ${TOKEN}` } });
    try {
      const report = await poll();
      assert.ok(report.failed >= 1);
      assert.ok(logged.some((line) => line.startsWith('pull request poll failed') && line.includes('/pull/8')));
      assert.ok(!logged.join('\n').includes(TOKEN));
    } finally {
      host.respondWith(null);
    }
    const before = host.requests.length;
    assert.equal((await poll()).failed, 0);
    assert.ok(host.requests.slice(before).some((r) => /\/pulls\/8(\/|$|\?)/.test(r.path)), 'asked again');
  });

  test('repositories a webhook of the organization reports on are not polled', async () => {
    const other = await h.org('poll-with-webhook');
    const { pullRequestId: prId } = await fixWithPullRequest(9, other);
    const at = nowIso();
    await db
      .insertInto('code_host_webhooks')
      .values({ id: newId(), org_id: other.id, provider: 'github', unit_id: null, secret_ciphertext: testTokenBox.seal('s'), created_by_user_id: null, created_at: at, last_delivery_at: at })
      .execute();
    const before = host.requests.length;
    await poll();
    assert.ok(!host.requests.slice(before).some((r) => r.path.includes('/pulls/9')), 'no request about the webhook-covered pull request');
    assert.equal(await db.selectFrom('fix_pull_request_states').select('pull_request_id').where('pull_request_id', '=', prId).executeTakeFirst(), undefined);
  });
});
