// Code hosts' webhooks in, end to end: each host's documented delivery (headers, signature, payload) to the
// hook's address, checked, kept once, applied by the worker to fixes and findings, read back through the
// event feed as a client would.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { createUser, setMembership } from '../../src/core/accounts.ts';
import { createWebhook } from '../../src/core/code-host-webhooks.ts';
import type { Role } from '../../src/core/roles.ts';
import { newId, nowIso } from '../../src/ids.ts';
import type { Database } from '../../src/store/schema.ts';
import { createHarness, testTokenBox, type Harness, type TestOrg } from '../support/api.ts';
import { githubSignature, readEvents, waitFor } from '../support/helpers.ts';


/** GitHub's `pull_request` delivery (https://docs.github.com/en/webhooks/webhook-events-and-payloads#pull_request). */
function githubPullRequest(fullName: string, number: number, pr: { state: 'open' | 'closed'; merged?: boolean; title?: string; body?: string; sha?: string }) {
  return {
    action: pr.state === 'closed' ? 'closed' : 'synchronize',
    number,
    pull_request: {
      number,
      html_url: `https://github.com/${fullName}/pull/${number}`,
      state: pr.state,
      title: pr.title ?? 'Bulwark: fix hard-coded AWS key',
      body: pr.body ?? null,
      merged: pr.merged ?? false,
      merged_at: pr.merged ? '2026-11-20T10:00:00Z' : null,
      head: { sha: pr.sha ?? 'a'.repeat(40), ref: 'bulwark/fix-1' },
    },
    repository: { full_name: fullName },
  };
}


/** A credential someone pastes into a pull request's description. */
const LEAKED = 'AKIAIOSFODNN7EXAMPLF';

describe('code-host webhooks', () => {
  let h: Harness;
  let db: Kysely<Database>;
  let org: TestOrg;

  before(async () => {
    h = await createHarness({ scanning: true });
    db = h.database.store.db;
    org = await h.org('webhooks');
  });
  after(() => h.close());

  /** A unit on `source`, two findings and a completed fix of both whose pull request is `number` there. */
  async function fixWithPullRequest(source: string, fullName: string, number: number) {
    const unit = await h.unit(org, [source]);
    const fixed = await h.finding(unit);
    const other = await h.finding(unit);
    const fixId = newId();
    const at = nowIso();
    await (db as Kysely<any>)
      .insertInto('fixes')
      .values({ id: fixId, org_id: org.id, unit_id: unit.id, title: 'fix', instructions: '', status: 'completed', source_repo: fullName, source_repo_provider: unit.sources[0].provider, created_at: at, updated_at: at })
      .execute();
    await db.insertInto('fix_findings').values([{ fix_id: fixId, finding_id: fixed.id, position: 0 }, { fix_id: fixId, finding_id: other.id, position: 1 }]).execute();
    await db
      .insertInto('fix_pull_requests')
      .values({ id: newId(), fix_id: fixId, repo_full_name: fullName, branch_name: 'bulwark/fix-1', pr_number: number, pr_url: `https://example.test/${fullName}/pull/${number}`, merge_status: 'clean', created_at: at, merged_at: null })
      .execute();
    return { unit, fixed, other, fixId };
  }

  const deliver = (hookId: string, body: string, headers: Record<string, string>) =>
    h.app.inject({ method: 'POST', url: `/hooks/code-hosts/${hookId}`, payload: body, headers: { 'content-type': 'application/json', ...headers } });

  test('GitHub: a signed delivery is applied once; pushes and merges become events and resolve the fixed findings', async () => {
    const { fixed, other } = await fixWithPullRequest('github:acme/api', 'acme/api', 7);
    const { hook, secret } = await createWebhook(db, testTokenBox, { orgId: org.id, provider: 'github', unitId: null, userId: null });

    const send = async (payload: object, deliveryId: string, signature?: string) => {
      const body = JSON.stringify(payload);
      return deliver(hook.id, body, { 'x-github-event': 'pull_request', 'x-github-delivery': deliveryId, 'x-hub-signature-256': signature ?? githubSignature(secret, body) });
    };

    // First word from the host: the head it is at; nothing changed yet.
    assert.equal((await send(githubPullRequest('acme/api', 7, { state: 'open', sha: '1'.repeat(40) }), 'd-1')).statusCode, 202);
    await waitFor('d-1 applied', 30, async () => {
      const d = await db.selectFrom('code_host_deliveries').select('applied_at').where('delivery_id', '=', 'd-1').executeTakeFirstOrThrow();
      return d.applied_at !== null ? d : undefined;
    });
    assert.equal((await readEvents(h, org.key, { finding_id: fixed.id, event_type: 'fix_pr_updated' })).total, 0);

    // A push to the pull request's branch.
    assert.equal((await send(githubPullRequest('acme/api', 7, { state: 'open', sha: '2'.repeat(40) }), 'd-2')).statusCode, 202);
    const pushed = await waitFor('fix_pr_updated', 30, async () => {
      const page = await readEvents(h, org.key, { finding_id: fixed.id, event_type: 'fix_pr_updated' });
      return page.total === 1 ? page : undefined;
    });
    assert.deepEqual(pushed.items[0].metadata.changes, ['pushed']);
    assert.equal(pushed.items[0].metadata.head_sha, '2'.repeat(40));

    // Badly signed, unsigned, unknown hook: refused, nothing kept.
    const merged = githubPullRequest('acme/api', 7, { state: 'closed', merged: true, sha: '2'.repeat(40) });
    assert.equal((await send(merged, 'd-3', githubSignature('not-the-secret', JSON.stringify(merged)))).statusCode, 401);
    assert.equal((await deliver(hook.id, JSON.stringify(merged), { 'x-github-event': 'pull_request', 'x-github-delivery': 'd-3' })).statusCode, 401);
    assert.equal((await deliver(newId(), JSON.stringify(merged), { 'x-github-event': 'pull_request', 'x-github-delivery': 'd-3' })).statusCode, 404);
    assert.equal((await db.selectFrom('code_host_deliveries').select('id').where('delivery_id', '=', 'd-3').execute()).length, 0);
    assert.equal((await h.call('GET', `/api/v1/repositories/${fixed.unit_id}/findings/${fixed.id}`)).json().status, 'open');

    // The merge: both findings of the fix are resolved, each with one resolved_pr_merged.
    assert.equal((await send(merged, 'd-4')).statusCode, 202);
    const resolved = await waitFor('resolved_pr_merged', 30, async () => {
      const page = await readEvents(h, org.key, { event_type: 'resolved_pr_merged', repository_id: fixed.unit_id });
      return page.total === 2 ? page : undefined;
    });
    assert.deepEqual(resolved.items.map((e: any) => e.finding_id).sort(), [fixed.id, other.id].sort());
    assert.ok(resolved.items.every((e: any) => e.previous_status === 'open' && e.new_status === 'resolved' && e.metadata.pr_number === 7));
    assert.equal((await h.call('GET', `/api/v1/repositories/${fixed.unit_id}/findings/${fixed.id}`)).json().status, 'resolved');
    const pr = await db.selectFrom('fix_pull_requests').selectAll().where('pr_number', '=', 7).executeTakeFirstOrThrow();
    assert.equal(pr.merged_at, '2026-11-20T10:00:00.000Z');

    // The same delivery again (GitHub's redelivery keeps its id): answered, nothing changes.
    const again = await send(merged, 'd-4');
    assert.equal(again.statusCode, 200);
    assert.match(again.json().detail, /Already received/);
    assert.equal((await readEvents(h, org.key, { finding_id: fixed.id, event_type: 'fix_pr_updated' })).total, 2);
    assert.equal((await readEvents(h, org.key, { event_type: 'resolved_pr_merged', repository_id: fixed.unit_id })).total, 2);

    // An old delivery arriving after the merge (here: resent under a new id) does not undo it.
    assert.equal((await send(githubPullRequest('acme/api', 7, { state: 'open', sha: '1'.repeat(40) }), 'd-late')).statusCode, 202);
    await waitFor('d-late applied', 30, async () => {
      const d = await db.selectFrom('code_host_deliveries').select('applied_at').where('delivery_id', '=', 'd-late').executeTakeFirstOrThrow();
      return d.applied_at !== null ? d : undefined;
    });
    assert.equal((await readEvents(h, org.key, { finding_id: fixed.id, event_type: 'fix_pr_updated' })).total, 2);
    assert.equal((await h.call('GET', `/api/v1/repositories/${fixed.unit_id}/findings/${fixed.id}`)).json().status, 'resolved');
  });

  test('a merged pull request naming findings resolves them with resolved_pr_linked; other repositories are not touched', async () => {
    const unit = await h.unit(org, ['github:acme/web']);
    const named = await h.finding(unit);
    const ignored = await h.finding(unit, { triage: 'ignored', status: 'ignored' });
    const elsewhereUnit = await h.unit(org, ['github:acme/other']);
    const elsewhere = await h.finding(elsewhereUnit);
    const { hook, secret } = await createWebhook(db, testTokenBox, { orgId: org.id, provider: 'github', unitId: null, userId: null });
    const body = JSON.stringify(
      githubPullRequest('acme/web', 31, { state: 'closed', merged: true, title: 'Escape output', body: `Fixes bulwark:${named.id}\nCloses bulwark:${ignored.id}\nresolves bulwark:${elsewhere.id}\nthe old key was ${LEAKED}` }),
    );
    const answer = await deliver(hook.id, body, { 'x-github-event': 'pull_request', 'x-github-delivery': 'link-1', 'x-hub-signature-256': githubSignature(secret, body) });
    assert.equal(answer.statusCode, 202);
    const linked = await waitFor('resolved_pr_linked', 30, async () => {
      const page = await readEvents(h, org.key, { event_type: 'resolved_pr_linked', repository_id: unit.id });
      return page.total >= 1 ? page : undefined;
    });
    assert.deepEqual(linked.items.map((e: any) => e.finding_id), [named.id]);
    assert.equal(linked.items[0].metadata.pr_url, 'https://github.com/acme/web/pull/31');
    assert.equal((await h.call('GET', `/api/v1/repositories/${elsewhereUnit.id}/findings/${elsewhere.id}`)).json().status, 'open');
    const kept = await db.selectFrom('code_host_deliveries').select('observation').where('delivery_id', '=', 'link-1').executeTakeFirstOrThrow();
    assert.ok(!kept.observation?.includes(LEAKED), 'a credential pasted in a description is not kept');
    assert.ok(kept.observation?.includes(`bulwark:${named.id}`), 'the links it names are');
    assert.equal((await h.call('GET', `/api/v1/repositories/${unit.id}/findings/${ignored.id}`)).json().status, 'ignored', 'a person’s decision stands');
  });

  test('GitLab: the secret token header, the event UUID, a merge request closed then reopened', async () => {
    const { fixed } = await fixWithPullRequest('gitlab:acme/group/api', 'acme/group/api', 12);
    const { hook, secret } = await createWebhook(db, testTokenBox, { orgId: org.id, provider: 'gitlab', unitId: null, userId: null });
    // https://docs.gitlab.com/user/project/integrations/webhook_events/#merge-request-events
    const event = (state: string, uuid: string, token = secret) =>
      deliver(
        hook.id,
        JSON.stringify({
          object_kind: 'merge_request',
          event_type: 'merge_request',
          project: { path_with_namespace: 'acme/group/api', web_url: 'https://gitlab.com/acme/group/api' },
          object_attributes: { iid: 12, title: 'Bulwark: fix', description: '', state, url: 'https://gitlab.com/acme/group/api/-/merge_requests/12', last_commit: { id: 'c'.repeat(40), message: 'fix' } },
        }),
        { 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-token': token, 'x-gitlab-event-uuid': uuid },
      );
    assert.equal((await event('closed', 'u-0', 'wrong')).statusCode, 401);
    assert.equal((await event('closed', 'u-1')).statusCode, 202);
    assert.equal((await event('opened', 'u-2')).statusCode, 202);
    const updates = await waitFor('two updates', 30, async () => {
      const page = await readEvents(h, org.key, { finding_id: fixed.id, event_type: 'fix_pr_updated' });
      return page.total === 2 ? page : undefined;
    });
    assert.deepEqual(updates.items.map((e: any) => e.metadata.changes[0]).sort(), ['closed', 'reopened']);
    assert.equal((await h.call('GET', `/api/v1/repositories/${fixed.unit_id}/findings/${fixed.id}`)).json().status, 'open');
  });

  test('Azure DevOps: basic credentials, the event id, a completed pull request', async () => {
    const { fixed } = await fixWithPullRequest('azure_devops:acme/platform/api', 'acme/platform/api', 44);
    const { hook, secret } = await createWebhook(db, testTokenBox, { orgId: org.id, provider: 'azure_devops', unitId: null, userId: null });
    // https://learn.microsoft.com/azure/devops/service-hooks/events#git.pullrequest.merged
    const body = JSON.stringify({
      id: 'e0c5a2a9-0000-4000-8000-000000000044',
      eventType: 'git.pullrequest.merged',
      resource: {
        pullRequestId: 44,
        status: 'completed',
        title: 'Bulwark: fix',
        description: '',
        closedDate: '2026-11-21T08:00:00Z',
        lastMergeSourceCommit: { commitId: 'd'.repeat(40) },
        repository: { name: 'api', webUrl: 'https://dev.azure.com/acme/platform/_git/api' },
      },
    });
    const basic = (password: string) => `Basic ${Buffer.from(`bulwark:${password}`).toString('base64')}`;
    assert.equal((await deliver(hook.id, body, { authorization: basic('nope') })).statusCode, 401);
    assert.equal((await deliver(hook.id, body, { authorization: basic(secret) })).statusCode, 202);
    await waitFor('merged', 30, async () => {
      const page = await readEvents(h, org.key, { finding_id: fixed.id, event_type: 'resolved_pr_merged' });
      return page.total === 1 ? page : undefined;
    });
  });

  test('a repository webhook ignores deliveries about repositories it does not cover', async () => {
    const { unit, fixed } = await fixWithPullRequest('github:acme/covered', 'acme/covered', 3);
    await fixWithPullRequest('github:acme/uncovered', 'acme/uncovered', 3);
    const { hook, secret } = await createWebhook(db, testTokenBox, { orgId: org.id, provider: 'github', unitId: unit.id, userId: null });
    const body = JSON.stringify(githubPullRequest('acme/uncovered', 3, { state: 'closed', merged: true }));
    assert.equal((await deliver(hook.id, body, { 'x-github-event': 'pull_request', 'x-github-delivery': 'other-1', 'x-hub-signature-256': githubSignature(secret, body) })).statusCode, 202);
    const kept = await db.selectFrom('code_host_deliveries').selectAll().where('delivery_id', '=', 'other-1').executeTakeFirstOrThrow();
    assert.match(kept.outcome ?? '', /not one this webhook covers/);
    assert.equal((await readEvents(h, org.key, { event_type: 'resolved_pr_merged', repository_id: unit.id })).total, 0);
    assert.equal((await h.call('GET', `/api/v1/repositories/${unit.id}/findings/${fixed.id}`)).json().status, 'open');
  });

  test('a person resolving a finding writes status_changed and resolved_manual', async () => {
    const unit = await h.unit(org, ['github:acme/manual']);
    const finding = await h.finding(unit);
    const changed = await h.call('PATCH', `/api/v1/repositories/${unit.id}/findings/${finding.id}`, { body: { status: 'resolved' } });
    assert.equal(changed.statusCode, 200, changed.body);
    const events = await readEvents(h, org.key, { finding_id: finding.id });
    assert.deepEqual(events.items.map((e: any) => e.event_type).sort(), ['resolved_manual', 'status_changed']);
    const manual = events.items.find((e: any) => e.event_type === 'resolved_manual');
    assert.equal(manual.new_status, 'resolved');
    assert.equal(manual.actor_user_id, org.keyId);
  });

  test('console: an admin makes a webhook (secret shown once), lists it with its setup and deliveries, removes it; a member cannot', async () => {
    let users = 0;
    const browser = async (role: Role) => {
      const email = `hooks-${role}-${++users}@example.com`;
      const password = 'correct horse battery staple';
      const user = await createUser(db, { email, password });
      await setMembership(db, org.id, user.id, role);
      const session = await h.app.inject({ method: 'POST', url: '/console/api/session', payload: { email, password }, remoteAddress: `10.8.0.${users}` });
      assert.equal(session.statusCode, 200, session.body);
      const headers = { cookie: String(session.headers['set-cookie']).split(';')[0], 'x-csrf-token': session.json().csrf_token, 'x-bulwark-organization': org.id };
      return (method: string, url: string, body?: object) => h.app.inject({ method: method as 'GET', url, headers, ...(body ? { payload: body } : {}) });
    };
    const admin = await browser('admin');
    const member = await browser('member');
    const base = `/console/api/organizations/${org.id}/code-host-webhooks`;
    const unit = await h.unit(org, ['gitlab:acme/console']);

    assert.equal((await member('POST', base, { provider: 'gitlab' })).statusCode, 403);
    assert.equal((await admin('POST', base, { provider: 'bitbucket' })).statusCode, 422);
    assert.equal((await admin('POST', base, { provider: 'gitlab', repository_id: newId() })).statusCode, 404);

    const made = await admin('POST', base, { provider: 'gitlab', repository_id: unit.id });
    assert.equal(made.statusCode, 201, made.body);
    const { webhook, secret } = made.json();
    assert.match(secret, /^bwhk_/);
    assert.match(webhook.url, new RegExp(`/hooks/code-hosts/${webhook.id}$`));
    assert.match(webhook.setup.events, /Merge request events/);
    const stored = await db.selectFrom('code_host_webhooks').select('secret_ciphertext').where('id', '=', webhook.id).executeTakeFirstOrThrow();
    assert.ok(!stored.secret_ciphertext.includes(secret), 'the secret is sealed');

    const listed = await admin('GET', base);
    assert.equal(listed.statusCode, 200);
    const shown = listed.json().items.find((item: any) => item.id === webhook.id);
    assert.deepEqual({ ...shown, secret: undefined }, { ...webhook, secret: undefined });
    assert.ok(!listed.body.includes(secret), 'the secret is shown once only');

    const delivered = await deliver(webhook.id, JSON.stringify({ object_kind: 'push' }), { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': secret, 'x-gitlab-event-uuid': 'push-1' });
    assert.equal(delivered.statusCode, 202);
    const log = await admin('GET', `${base}/${webhook.id}/deliveries`);
    assert.deepEqual(
      log.json().items.map((d: any) => [d.delivery_id, d.event, d.outcome]),
      [['push-1', 'Push Hook', 'ignored: nothing Bulwark uses']],
    );

    assert.equal((await admin('DELETE', `${base}/${webhook.id}`)).statusCode, 204);
    assert.equal((await deliver(webhook.id, '{}', { 'x-gitlab-token': secret })).statusCode, 404);
    assert.equal((await admin('DELETE', `${base}/${webhook.id}`)).statusCode, 404);
  });
});
