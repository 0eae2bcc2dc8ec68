import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { ScanAnnotation, ScanReportRequest } from '../../src/code-hosts/code-host.ts';
import { codeHostClients, codeHostLabel } from '../../src/code-hosts/index.ts';
import { PullRequestError } from '../../src/core/pull-request-errors.ts';
import { startScanReportStandIn, unreachableUrl, type ScanReportStandIn } from '../support/code-host-standins.ts';

// Each host's real SDK client publishes a pull request scan's result on a stand-in that answers the host's
// documented REST paths, and updates what it published when the next push is scanned.

const HEAD = 'a1'.repeat(20);
const NEXT_HEAD = 'b2'.repeat(20);
const DETAILS = 'https://bulwark.example/scans/s-1';
const SUMMARY = '### 2 new findings\n\n| severity | rule |\n|---|---|\n| high | `aws-access-key` |\n';

const ANNOTATIONS: ScanAnnotation[] = [
  { path: 'src/config.js', startLine: 3, endLine: 3, level: 'failure', title: 'AWS access key', message: 'An AWS access key id is committed.' },
  { path: 'src/db.js', startLine: 10, endLine: 12, level: 'warning', title: 'SQL built from input', message: 'The query joins [user input](http://evil.example) @here.' },
];

const HOSTS = [
  { name: 'github', fullName: 'acme/api', token: `ghp_${'R3p0rtT0k3n'.repeat(3)}xyz`, gitUser: 'x-access-token', noun: 'pull request' },
  { name: 'gitlab', fullName: 'acme/platform/web', token: `glpat-${'R3p0rtGlT0k'.repeat(2)}`, gitUser: 'oauth2', noun: 'merge request' },
  { name: 'azure_devops', fullName: 'contoso/Payments Platform/api', token: `azdopat${'R'.repeat(45)}`, gitUser: 'PAT', noun: 'pull request' },
] as const;

for (const host of HOSTS) {
  const label = codeHostLabel(host.name);

  describe(`publishing a scan's report on a ${host.noun} on ${label}`, () => {
    let standIn: ScanReportStandIn;

    // A stand-in of its own per test: what one test publishes is no other's business, whatever the order.
    beforeEach(async () => {
      standIn = await startScanReportStandIn({ provider: host.name, token: host.token, fullName: host.fullName, pullRequests: [17, 18, 19, 20] });
    });
    afterEach(() => standIn.close());

    const client = (url = standIn.url) => codeHostClients({ github: url, gitlab: url, azure_devops: url }, 10_000)[host.name];
    const report = (overrides: Partial<ScanReportRequest> = {}): ScanReportRequest => ({
      fullName: host.fullName,
      number: 17,
      headSha: HEAD,
      token: host.token,
      conclusion: 'failure',
      title: 'Bulwark: 2 new findings (1 high)',
      summary: SUMMARY,
      annotations: ANNOTATIONS,
      detailsUrl: DETAILS,
      previous: null,
      ...overrides,
    });
    const publish = (overrides: Partial<ScanReportRequest> = {}, url?: string) => client(url).publishScanReport(report(overrides));

    /** Asserts a failure is the host's, carries no trace of the token, and returns it. */
    function tokenFree(error: unknown): PullRequestError {
      assert.ok(error instanceof PullRequestError, String(error));
      assert.equal(error.provider, host.name);
      for (const user of ['', host.gitUser, 'x-access-token', 'oauth2', 'PAT']) {
        assert.ok(!error.message.includes(Buffer.from(`${user}:${host.token}`).toString('base64')), `Basic credentials leaked into: ${error.message}`);
      }
      assert.ok(!error.message.includes(host.token), `the token leaked into: ${error.message}`);
      return error;
    }

    /** The Markdown a note, thread or fallback comment holds: the summary as is, then one item per annotated line. */
    function assertCommentBody(body: string, items = ANNOTATIONS.length) {
      assert.ok(body.startsWith(SUMMARY), body);
      const listed = body.split('\n').filter((line) => line.startsWith('- **'));
      assert.equal(listed.length, items, body);
      if (items >= 2) {
        assert.equal(listed[0], '- **failure** `src/config.js` line 3: AWS access key: An AWS access key id is committed.');
        // Text from the scanned code makes no link or mention of its own.
        assert.ok(listed[1].startsWith('- **warning** `src/db.js` lines 10–12: SQL built from input: '), listed[1]);
        assert.ok(listed[1].includes('\\[user input\\]\\(http://evil.example\\) \\@here'), listed[1]);
      }
    }

    if (host.name === 'github') {
      test('the first report is a check run named Bulwark on the head, with its conclusion, output, annotations and link', async () => {
        const published = await publish();
        assert.deepEqual(Object.keys(published), ['checkRunId']);
        const run = standIn.published.checkRuns.get(published.checkRunId!)!;
        assert.equal(run.headSha, HEAD);
        assert.equal(run.fields.name, 'Bulwark');
        assert.equal(run.fields.status, 'completed');
        assert.equal(run.fields.conclusion, 'failure');
        assert.equal(run.fields.details_url, DETAILS);
        assert.deepEqual(run.fields.output, {
          title: 'Bulwark: 2 new findings (1 high)',
          summary: SUMMARY,
          annotations: [
            { path: 'src/config.js', start_line: 3, end_line: 3, annotation_level: 'failure', title: 'AWS access key', message: 'An AWS access key id is committed.' },
            { path: 'src/db.js', start_line: 10, end_line: 12, annotation_level: 'warning', title: 'SQL built from input', message: ANNOTATIONS[1].message },
          ],
        });
        const create = standIn.requests.find((request) => request.method === 'POST' && request.path === '/repos/acme/api/check-runs');
        assert.equal(create?.headers.authorization, `token ${host.token}`);
        assert.equal(standIn.published.statuses.length, 0);
        assert.equal(standIn.published.comments.size, 0);
      });

      test('a later report on the same head updates its check run, sending only annotations it does not have; a new head gets a new one', async () => {
        const first = await publish({ number: 18 });
        const fixed = ANNOTATIONS[0];
        const added: ScanAnnotation = { path: 'src/new.js', startLine: 1, endLine: 1, level: 'notice', title: 'New', message: 'Another one.' };
        const second = await publish({ number: 18, previous: first, title: 'Bulwark: 2 new findings', annotations: [fixed, added] });
        assert.deepEqual(second, first);
        const run = standIn.published.checkRuns.get(first.checkRunId!)!;
        assert.equal((run.fields.output as { title: string }).title, 'Bulwark: 2 new findings');
        assert.deepEqual(run.annotations.map((a) => a.path), ['src/config.js', 'src/db.js', 'src/new.js']);
        const update = standIn.requests.findLast((request) => request.method === 'PATCH');
        assert.equal(update?.path, `/repos/acme/api/check-runs/${first.checkRunId}`);

        // The caller leaves the check run out on a new head, as a check run belongs to one commit.
        const { checkRunId: _previousRun, ...rest } = second;
        const third = await publish({ number: 18, headSha: NEXT_HEAD, conclusion: 'success', previous: rest, annotations: [] });
        assert.notEqual(third.checkRunId, first.checkRunId);
        const newRun = standIn.published.checkRuns.get(third.checkRunId!)!;
        assert.equal(newRun.headSha, NEXT_HEAD);
        assert.equal(newRun.fields.conclusion, 'success');
      });

      test('a check run deleted since is created again', async () => {
        const published = await publish({ number: 19, previous: { checkRunId: 987_654 } });
        assert.notEqual(published.checkRunId, 987_654);
        assert.equal(standIn.published.checkRuns.get(published.checkRunId!)?.headSha, HEAD);
      });

      test('with a personal access token (the Checks API answers 403): a commit status and one comment, updated by the next report', async () => {
        standIn.refuseChecks(true);
        try {
          const statusesBefore = standIn.published.statuses.length;
          const first = await publish({ number: 20, title: `Bulwark: ${'many new findings '.repeat(20)}` });
          assert.deepEqual(Object.keys(first), ['commentId']);
          const status = standIn.published.statuses.at(-1)!;
          assert.equal(standIn.published.statuses.length, statusesBefore + 1);
          assert.equal(status.sha, HEAD);
          assert.equal(status.state, 'failure');
          assert.equal(status.fields.context, 'bulwark');
          assert.equal(status.fields.target_url, DETAILS);
          const description = String(status.fields.description);
          assert.equal(description.length, 140);
          assert.ok(description.endsWith('…'));
          const comment = standIn.published.comments.get(first.commentId!)!;
          assert.equal(comment.pullRequest, 20);
          assertCommentBody(comment.body);

          const second = await publish({ number: 20, headSha: NEXT_HEAD, conclusion: 'success', annotations: [], summary: 'No new findings.', previous: first });
          assert.deepEqual(second, first);
          assert.equal(standIn.published.comments.size, 1);
          assert.equal(standIn.published.comments.get(first.commentId!)!.body, 'No new findings.');
          assert.deepEqual(
            standIn.published.statuses.slice(-1).map((s) => [s.sha, s.state]),
            [[NEXT_HEAD, 'success']],
          );
          assert.ok(standIn.requests.some((request) => request.method === 'PATCH' && request.path === `/repos/acme/api/issues/comments/${first.commentId}`));
        } finally {
          standIn.refuseChecks(false);
        }
      });
    } else {
      const statusOn = (index = -1) => standIn.published.statuses.at(index)!;

      test(`the first report is a status and one ${host.name === 'gitlab' ? 'note' : 'thread'} holding the summary and the annotated lines`, async () => {
        const published = await publish();
        if (host.name === 'gitlab') {
          assert.deepEqual(Object.keys(published), ['noteId']);
          assert.equal(statusOn().sha, HEAD);
          assert.equal(statusOn().state, 'failed');
          assert.deepEqual(
            { name: statusOn().fields.name, target_url: statusOn().fields.target_url, description: statusOn().fields.description },
            { name: 'bulwark', target_url: DETAILS, description: 'Bulwark: 2 new findings (1 high)' },
          );
          const note = standIn.published.comments.get(published.noteId!)!;
          assert.equal(note.pullRequest, 17);
          assertCommentBody(note.body);
          const paths = standIn.requests.filter((request) => request.method === 'POST').map((request) => request.path);
          assert.deepEqual(paths, [`/api/v4/projects/acme%2Fplatform%2Fweb/statuses/${HEAD}`, '/api/v4/projects/acme%2Fplatform%2Fweb/merge_requests/17/notes']);
        } else {
          assert.deepEqual(Object.keys(published).sort(), ['commentId', 'threadId']);
          assert.equal(statusOn().pullRequest, 17);
          assert.equal(statusOn().state, 'failed');
          assert.deepEqual(statusOn().fields.context, { genre: 'bulwark', name: 'scan' });
          assert.equal(statusOn().fields.targetUrl, DETAILS);
          assert.equal(statusOn().fields.description, 'Bulwark: 2 new findings (1 high)');
          const thread = standIn.published.threads.get(published.threadId!)!;
          assert.equal(thread.status, 'active');
          assert.equal(thread.comments.size, 1);
          assertCommentBody(thread.comments.get(published.commentId!)!);
          for (const request of standIn.requests) {
            assert.equal(request.headers.authorization, `Basic ${Buffer.from(`PAT:${host.token}`).toString('base64')}`);
          }
        }
      });

      test(`a later report updates the same ${host.name === 'gitlab' ? 'note' : 'thread'} and sets the new head's status`, async () => {
        const first = await publish({ number: 18 });
        const second = await publish({ number: 18, headSha: NEXT_HEAD, conclusion: 'success', title: 'Bulwark: no new findings', summary: 'No new findings.', annotations: [], previous: first });
        assert.deepEqual(second, first);
        assert.equal(statusOn().state, host.name === 'gitlab' ? 'success' : 'succeeded');
        if (host.name === 'gitlab') {
          assert.equal(statusOn().sha, NEXT_HEAD);
          assert.equal([...standIn.published.comments.values()].filter((note) => note.pullRequest === 18).length, 1);
          assert.equal(standIn.published.comments.get(first.noteId!)!.body, 'No new findings.');
          assert.ok(standIn.requests.some((request) => request.method === 'PUT' && request.path === `/api/v4/projects/acme%2Fplatform%2Fweb/merge_requests/18/notes/${first.noteId}`));
        } else {
          assert.equal([...standIn.published.threads.values()].filter((thread) => thread.pullRequest === 18).length, 1);
          const thread = standIn.published.threads.get(first.threadId!)!;
          assert.equal(thread.comments.get(first.commentId!), 'No new findings.');
          assert.equal(thread.status, 'closed');
          // And back to active when a later push brings findings again.
          await publish({ number: 18, previous: second });
          assert.equal(thread.status, 'active');
          assertCommentBody(thread.comments.get(first.commentId!)!);
        }
      });

      test(`a ${host.name === 'gitlab' ? 'note' : 'thread'} deleted since is started again`, async () => {
        const gone = host.name === 'gitlab' ? { noteId: 987_654 } : { threadId: 987_654, commentId: 1 };
        const published = await publish({ number: 19, previous: gone });
        if (host.name === 'gitlab') {
          assert.notEqual(published.noteId, 987_654);
          assert.equal(standIn.published.comments.get(published.noteId!)?.pullRequest, 19);
        } else {
          assert.notEqual(published.threadId, 987_654);
          assert.equal(standIn.published.threads.get(published.threadId!)?.pullRequest, 19);
        }
      });
    }

    test('at most 50 annotations are sent, the most severe first as the caller put them', async () => {
      const many: ScanAnnotation[] = Array.from({ length: 60 }, (_, i) => ({
        path: `src/file-${i}.js`,
        startLine: i + 1,
        endLine: i + 1,
        level: 'warning',
        title: `Finding ${i}`,
        message: `Message ${i}`,
      }));
      const published = await publish({ number: 19, annotations: many, previous: null });
      let body: string;
      if (host.name === 'github') {
        const run = standIn.published.checkRuns.get(published.checkRunId!)!;
        assert.equal(run.annotations.length, 50);
        assert.deepEqual(run.annotations.map((a) => a.path), many.slice(0, 50).map((a) => a.path));
        standIn.refuseChecks(true);
        try {
          body = standIn.published.comments.get((await publish({ number: 19, annotations: many })).commentId!)!.body;
        } finally {
          standIn.refuseChecks(false);
        }
      } else if (host.name === 'gitlab') {
        body = standIn.published.comments.get(published.noteId!)!.body;
      } else {
        body = standIn.published.threads.get(published.threadId!)!.comments.get(published.commentId!)!;
      }
      const items = body.split('\n').filter((line) => line.startsWith('- **'));
      assert.equal(items.length, 50);
      assert.ok(items[0].includes('`src/file-0.js`') && items[49].includes('`src/file-49.js`'));
    });

    test(`an unknown ${host.noun} is a 404 refusal`, async () => {
      standIn.refuseChecks(true);
      try {
        await assert.rejects(publish({ number: 99 }), (error) => {
          const failure = tokenFree(error);
          assert.equal(failure.status, 404);
          assert.ok(failure.message.startsWith(`${label} refused the ${host.noun} (404): `), failure.message);
          return true;
        });
      } finally {
        standIn.refuseChecks(false);
      }
    });

    test('the token appears in no error: a refused token, words from the host that repeat it, a host that cannot be reached', async () => {
      await assert.rejects(publish({ token: `${host.token}-not-this-one` }), (error) => {
        const failure = tokenFree(error);
        assert.equal(failure.status, 401);
        assert.match(failure.message, /\(401\): .*\(the stored access token was not accepted\)$/);
        return true;
      });

      const basic = Buffer.from(`${host.gitUser}:${host.token}`).toString('base64');
      standIn.respondWith({ status: 422, body: { message: `token ${host.token} (Basic ${basic}) may not write to ${host.fullName}` } });
      try {
        await assert.rejects(publish(), (error) => {
          const failure = tokenFree(error);
          assert.equal(failure.status, 422);
          assert.match(failure.message, /\(422\): token \*\*\* \(Basic \*\*\*\) may not write to /);
          return true;
        });
      } finally {
        standIn.respondWith(null);
      }

      const nowhere = await unreachableUrl();
      await assert.rejects(publish({}, nowhere), (error) => {
        const failure = tokenFree(error);
        assert.equal(failure.status, null);
        assert.ok(failure.message.startsWith(`could not reach ${label} at `), failure.message);
        return true;
      });
    });
  });
}
