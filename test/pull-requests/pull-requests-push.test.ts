import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CheckoutCache, CheckoutError, RemoteBranchExistsError } from '../../src/scm/checkout-cache.ts';
import { gitRefusedToken } from '../../src/scm/pull-requests/token-refusals.ts';
import { pushFixBranch, FixBranchError } from '../../src/scm/pull-requests/fix-branch.ts';
import { TestRepo } from '../support/git-repo.ts';
import { workTreesUnder } from '../support/work-trees.ts';
import { startGitHttpsServer, type GitHttpsServer } from '../support/git-https-server.ts';

const DIFF = ['--- a/app.js', '+++ b/app.js', '@@ -1 +1 @@', '-console.log(1);', '+console.log(2);', ''].join('\n');

describe('pushing fix branches over HTTPS with an access token', () => {
  const token = `ghp_${'PushT0k3n'.repeat(3)}abc`;
  const expected = `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  let server: GitHttpsServer;
  let work: TestRepo;
  let hostRoot: string;
  let bare: string;
  let root: string;
  let cache: CheckoutCache;
  let base: string;
  let head: string;
  const previousCa = process.env.GIT_SSL_CAINFO;

  before(async () => {
    work = TestRepo.create();
    base = work.commit({ 'app.js': 'console.log(1);\n' }, 'base');
    head = work.commit({ 'README.md': '# later\n' }, 'later');
    hostRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-host-'));
    bare = path.join(hostRoot, 'app.git');
    execFileSync('git', ['clone', '--quiet', '--bare', work.dir, bare]);
    server = await startGitHttpsServer(hostRoot, expected);
    process.env.GIT_SSL_CAINFO = server.caFile;
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-cache-'));
    cache = new CheckoutCache({ root, allowLocal: false, allowPrivateHosts: true, timeoutMs: 30_000 });
  });

  after(async () => {
    if (previousCa === undefined) delete process.env.GIT_SSL_CAINFO;
    else process.env.GIT_SSL_CAINFO = previousCa;
    await server.close();
    work.remove();
    fs.rmSync(hostRoot, { recursive: true, force: true });
    fs.rmSync(root, { recursive: true, force: true });
  });

  const source = (secret: string | null) => ({ id: 'src-push', provider: 'github', cloneUrl: `${server.url}/app.git`, token: secret });
  const remoteRef = (branch: string) => {
    try {
      return execFileSync('git', ['--git-dir', bare, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { encoding: 'utf8' }).trim();
    } catch {
      return null;
    }
  };

  test('checkoutCommit for a scan holds the commit to the scan budget and says what it left out; for a fix it does not', async () => {
    const budgeted = new CheckoutCache({ root, allowLocal: false, allowPrivateHosts: true, timeoutMs: 30_000, scanBudget: { maxFiles: 1, maxBytes: 1024 * 1024 } });
    const scanned = await budgeted.checkoutCommit(source(token), head, 'wt-budget-scan', undefined, true);
    try {
      assert.deepEqual(fs.readdirSync(scanned.dir).filter((name) => name !== '.git'), ['README.md']);
      assert.match(scanned.budgetWarning ?? '', /more than 1 files/);
    } finally {
      await scanned.dispose();
    }
    const whole = await budgeted.checkoutCommit(source(token), head, 'wt-budget-fix');
    try {
      assert.deepEqual(fs.readdirSync(whole.dir).filter((name) => name !== '.git').sort(), ['README.md', 'app.js']);
      assert.equal(whole.budgetWarning, undefined);
    } finally {
      await whole.dispose();
    }
  });

  test('checkoutCommit gives a worktree at an older commit than the branch head', async () => {
    const checkout = await cache.checkoutCommit(source(token), base, 'wt-1');
    try {
      assert.equal(checkout.commit, base);
      assert.ok(fs.existsSync(path.join(checkout.dir, 'app.js')));
      assert.ok(!fs.existsSync(path.join(checkout.dir, 'README.md')));
    } finally {
      await checkout.dispose();
    }
    assert.ok(!fs.existsSync(checkout.dir));
  });

  test('checkoutCommit refuses what is not a commit id, and a commit the repository does not have', async () => {
    await assert.rejects(cache.checkoutCommit(source(token), '--upload-pack=evil', 'wt-2'), CheckoutError);
    await assert.rejects(cache.checkoutCommit(source(token), 'a'.repeat(40), 'wt-3'), /commit a{40} is no longer in the repository/);
  });

  test('the fix branch is pushed with the token as a header: never in a process argument or on disk', async () => {
    const listingsBefore = server.processListings.length;
    const result = await pushFixBranch(cache, {
      source: source(token),
      baseCommit: base,
      baseBranch: 'main',
      diff: DIFF,
      branch: 'bulwark/https',
      message: 'Fix it\n',
    });
    assert.equal(result.reused, false);
    assert.equal(result.baseCommit, base);
    assert.equal(remoteRef('bulwark/https'), result.commit);
    assert.equal(execFileSync('git', ['--git-dir', bare, 'show', `${result.commit}:app.js`], { encoding: 'utf8' }), 'console.log(2);\n');
    assert.equal(remoteRef('main'), head, 'the base branch did not move');
    const listings = server.processListings.slice(listingsBefore);
    assert.ok(listings.some((l) => /git .*push .*HEAD:refs\/heads\/bulwark\/https/.test(l)), 'the push itself was observed');
    for (const listing of listings) {
      assert.ok(!listing.includes(token), 'the token appeared in ps output');
      assert.ok(!listing.includes(expected.slice(6)), 'the encoded credentials appeared in ps output');
    }
    assert.ok(server.authorizations.slice(-1)[0] === expected);
    assert.ok(!fs.readFileSync(path.join(root, 'mirrors', 'src-push.git', 'config'), 'utf8').includes(token));
    assert.deepEqual(workTreesUnder(root), [], 'the worktree was removed');
  });

  test('push never moves an existing branch, even one it could fast-forward', async () => {
    const checkout = await cache.checkoutCommit(source(token), head, 'wt-4');
    try {
      execFileSync('git', ['--git-dir', bare, 'update-ref', 'refs/heads/existing', base]);
      await assert.rejects(cache.push(source(token), checkout.dir, 'existing'), (error: Error) => {
        assert.ok(error instanceof RemoteBranchExistsError);
        assert.equal(error.message, 'branch "existing" already exists in the repository');
        return true;
      });
      assert.equal(remoteRef('existing'), base);
    } finally {
      await checkout.dispose();
    }
  });

  test('a branch that appears between the fetch and the push is refused atomically (the lease expects none)', async () => {
    const checkout = await cache.checkoutCommit(source(token), base, 'wt-5');
    try {
      // Created on the host after the mirror was fetched: only the push itself can notice.
      execFileSync('git', ['--git-dir', bare, 'update-ref', 'refs/heads/racing', head]);
      await assert.rejects(cache.push(source(token), checkout.dir, 'racing'), RemoteBranchExistsError);
      assert.equal(remoteRef('racing'), head);
    } finally {
      await checkout.dispose();
    }
  });

  test('a refused token makes a clear push failure without the token', async () => {
    const wrong = `${token}WRONG`;
    await assert.rejects(
      pushFixBranch(cache, { source: source(wrong), baseCommit: base, baseBranch: 'main', diff: DIFF, branch: 'bulwark/denied', message: 'x\n' }),
      (error: Error) => {
        assert.ok(error instanceof FixBranchError);
        assert.equal(error.failure, 'checkout');
        assert.match(error.message, /could not fetch the repository/);
        assert.ok(gitRefusedToken(error.message), `git's words say the token was refused, so the opener answers PR_TOKEN_REJECTED: ${error.message}`);
        assert.ok(!error.message.includes(wrong) && !error.message.includes(token));
        return true;
      },
    );
    assert.equal(remoteRef('bulwark/denied'), null);
  });

  test('push follows the clone rules: no plain http, no local paths unless enabled, no odd branch names', async () => {
    const checkout = await cache.checkoutCommit(source(token), base, 'wt-6');
    try {
      await assert.rejects(cache.push({ ...source(null), cloneUrl: 'http://127.0.0.1:1/x.git' }, checkout.dir, 'b'), /plain http/);
      await assert.rejects(cache.push({ ...source(null), cloneUrl: bare }, checkout.dir, 'b'), /local paths is disabled/);
      await assert.rejects(cache.push(source(token), checkout.dir, 'a..b'), /not a valid branch name/);
      await assert.rejects(cache.push(source(token), checkout.dir, '-f'), /not a valid branch name/);
    } finally {
      await checkout.dispose();
    }
  });
});
