// Scans on push: a repository's push scan types, set by an admin, start scan batches when its code host's
// webhook reports a push to the branch it scans, and only then.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import { azureDevOpsWebhooks } from '../../src/code-hosts/webhooks/azure-devops.ts';
import { gitlabWebhooks } from '../../src/code-hosts/webhooks/gitlab.ts';
import { createUser, setMembership } from '../../src/core/accounts.ts';
import { createWebhook } from '../../src/core/code-host-webhooks.ts';
import type { Database } from '../../src/store/schema.ts';
import { createHarness, testTokenBox, type Harness, type TestOrg } from '../support/api.ts';
import { githubSignature, waitFor } from '../support/helpers.ts';



describe('scans on push', () => {
  let h: Harness;
  let db: Kysely<Database>;
  let org: TestOrg;
  let admin: (method: string, url: string, body?: object) => Promise<LightMyRequestResponse>;

  before(async () => {
    h = await createHarness({ scanning: true });
    db = h.database.store.db;
    org = await h.org('push');
    const email = 'push-admin@example.com';
    const password = 'correct horse battery staple';
    const user = await createUser(db, { email, password });
    await setMembership(db, org.id, user.id, 'admin');
    const session = await h.app.inject({ method: 'POST', url: '/console/api/session', payload: { email, password }, remoteAddress: '10.7.0.1' });
    const headers = { cookie: String(session.headers['set-cookie']).split(';')[0], 'x-csrf-token': session.json().csrf_token, 'x-bulwark-organization': org.id };
    admin = (method, url, body) => h.app.inject({ method: method as 'GET', url, headers, ...(body ? { payload: body } : {}) });
  });
  after(() => h.close());

  const batchesOf = (unitId: string) => db.selectFrom('scan_batches').select(['scan_type']).where('unit_id', '=', unitId).orderBy('scan_type').execute();
  const appliedOutcome = (deliveryId: string) =>
    waitFor(`${deliveryId} applied`, 30, async () => {
      const d = await db.selectFrom('code_host_deliveries').select(['applied_at', 'outcome']).where('delivery_id', '=', deliveryId).executeTakeFirstOrThrow();
      return d.applied_at !== null ? d : undefined;
    });

  test('an admin sets a repository’s push and pull-request scan types; unknown ones are refused', async () => {
    const unit = await h.unit(org, ['github:acme/settings@main']);
    const url = `/console/api/organizations/${org.id}/units/${unit.id}/scan-triggers`;
    assert.deepEqual((await admin('GET', url)).json(), { on_push: [], on_pull_request: [] });
    const set = await admin('PUT', url, { on_push: ['sbom_scan', 'secrets_scan', 'secrets_scan'], on_pull_request: ['semgrep_scan'] });
    assert.equal(set.statusCode, 200, set.body);
    assert.deepEqual(set.json(), { on_push: ['secrets_scan', 'sbom_scan'], on_pull_request: ['semgrep_scan'] });
    assert.equal((await admin('PUT', url, { on_push: ['virus_scan'] })).statusCode, 422);
    assert.equal((await admin('PUT', url, { on_push: [], on_pull_request: ['virus_scan'] })).statusCode, 422);
    assert.deepEqual((await admin('GET', url)).json(), { on_push: ['secrets_scan', 'sbom_scan'], on_pull_request: ['semgrep_scan'] });
  });

  test('a GitHub push to the scanned branch starts the repository’s push scans; other branches, tags and deletions do not', async () => {
    const unit = await h.unit(org, ['github:acme/api@main']);
    const quiet = await h.unit(org, ['github:acme/api@main'], 'same repository, no push scans');
    assert.equal((await admin('PUT', `/console/api/organizations/${org.id}/units/${unit.id}/scan-triggers`, { on_push: ['secrets_scan', 'semgrep_scan'] })).statusCode, 200);
    const { hook, secret } = await createWebhook(db, testTokenBox, { orgId: org.id, provider: 'github', unitId: null, userId: null });
    // https://docs.github.com/en/webhooks/webhook-events-and-payloads#push
    const push = (deliveryId: string, ref: string, extra: object = {}) => {
      const body = JSON.stringify({ ref, before: '1'.repeat(40), after: '2'.repeat(40), deleted: false, repository: { full_name: 'acme/api' }, ...extra });
      return h.app.inject({
        method: 'POST',
        url: `/hooks/code-hosts/${hook.id}`,
        payload: body,
        headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': deliveryId, 'x-hub-signature-256': githubSignature(secret, body) },
      });
    };

    for (const [id, ref, extra] of [
      ['p-branch', 'refs/heads/feature'],
      ['p-tag', 'refs/tags/v1.0'],
      ['p-deleted', 'refs/heads/main', { deleted: true, after: '0'.repeat(40) }],
    ] as const) {
      assert.equal((await push(id, ref, extra)).statusCode, 202);
    }
    assert.equal((await push('p-main', 'refs/heads/main')).statusCode, 202);
    const { outcome } = await appliedOutcome('p-main');
    assert.match(outcome ?? '', /^push to main: secrets_scan of github:acme\/api@main: batch [0-9a-f-]+; semgrep_scan of github:acme\/api@main: batch /);
    assert.deepEqual((await batchesOf(unit.id)).map((b) => b.scan_type), ['secrets_scan', 'semgrep_scan']);
    assert.deepEqual(await batchesOf(quiet.id), [], 'a unit without push scans starts none');
    const ignored = await db.selectFrom('code_host_deliveries').select(['outcome']).where('delivery_id', 'in', ['p-tag', 'p-deleted']).execute();
    assert.deepEqual(ignored.map((d) => d.outcome), ['ignored: nothing Bulwark uses', 'ignored: nothing Bulwark uses'], 'a tag and a deleted branch start nothing');
    const branch = await appliedOutcome('p-branch');
    assert.match(branch.outcome ?? '', /push to feature: no repository scans on push there/);
  });

  test('GitLab and Azure DevOps push deliveries name the branch and commit', () => {
    const gitlab = gitlabWebhooks.read(
      { 'x-gitlab-event': 'Push Hook', 'x-gitlab-event-uuid': 'g-1' },
      { object_kind: 'push', ref: 'refs/heads/main', after: 'a'.repeat(40), checkout_sha: 'a'.repeat(40), project: { path_with_namespace: 'acme/group/api' } },
    );
    assert.deepEqual('pushes' in gitlab && gitlab.pushes, [{ repoFullName: 'acme/group/api', branch: 'main', sha: 'a'.repeat(40) }]);
    const deleted = gitlabWebhooks.read({ 'x-gitlab-event': 'Push Hook', 'x-gitlab-event-uuid': 'g-2' }, { ref: 'refs/heads/old', after: '0'.repeat(40), checkout_sha: null, project: { path_with_namespace: 'acme/group/api' } });
    assert.deepEqual('pushes' in deleted && deleted.pushes, []);
    // https://learn.microsoft.com/azure/devops/service-hooks/events#git.push
    const azure = azureDevOpsWebhooks.read(
      {},
      {
        id: 'e-1',
        eventType: 'git.push',
        resource: {
          refUpdates: [
            { name: 'refs/heads/main', oldObjectId: '1'.repeat(40), newObjectId: 'b'.repeat(40) },
            { name: 'refs/tags/v2', oldObjectId: '0'.repeat(40), newObjectId: 'c'.repeat(40) },
          ],
          repository: { name: 'api', remoteUrl: 'https://acme@dev.azure.com/acme/platform/_git/api' },
        },
      },
    );
    assert.deepEqual('pushes' in azure && azure.pushes, [{ repoFullName: 'acme/platform/api', branch: 'main', sha: 'b'.repeat(40) }]);
  });
});
