import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CheckoutCache, CheckoutError } from '../../src/scm/checkout-cache.ts';
import { TestRepo } from '../support/git-repo.ts';
import { startGitHttpsServer, type GitHttpsServer } from '../support/git-https-server.ts';

describe('checkouts over HTTPS with an access token', () => {
  const token = `ghp_${'T0k3nV4lu3'.repeat(3)}abcdef`;
  const expected = `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  let server: GitHttpsServer;
  let repo: TestRepo;
  let root: string;
  let cache: CheckoutCache;
  let head: string;
  const previousCa = process.env.GIT_SSL_CAINFO;

  before(async () => {
    repo = TestRepo.create();
    repo.commit({ 'README.md': '# hosted\n' });
    head = repo.commit({ 'src/app.js': 'console.log(1);\n' });
    server = await startGitHttpsServer(path.dirname(repo.dir), expected);
    process.env.GIT_SSL_CAINFO = server.caFile; // trust the test host's self-signed certificate
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-cache-'));
    cache = new CheckoutCache({ root, allowLocal: false, allowPrivateHosts: true, timeoutMs: 30_000 });
  });

  after(async () => {
    if (previousCa === undefined) delete process.env.GIT_SSL_CAINFO;
    else process.env.GIT_SSL_CAINFO = previousCa;
    await server.close();
    repo.remove();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const source = (secret: string | null) => ({
    id: 'src-1',
    provider: 'github',
    cloneUrl: `${server.url}/${path.basename(repo.dir)}`,
    token: secret,
  });

  test('the token travels as an Authorization header, and never in a process argument', async () => {
    const checkout = await cache.checkout(source(token), 'main', 'scan-1');
    try {
      assert.equal(checkout.commit, head);
      assert.ok(fs.existsSync(path.join(checkout.dir, 'src/app.js')));
    } finally {
      await checkout.dispose();
    }
    assert.ok(server.authorizations.includes(expected), 'the host saw the token as Basic credentials');
    assert.ok(server.processListings.length > 0);
    for (const listing of server.processListings) {
      assert.ok(!listing.includes(token), 'the token appeared in ps output');
      assert.ok(!listing.includes(expected.slice(6)), 'the encoded credentials appeared in ps output');
    }
    assert.ok(!fs.readFileSync(path.join(root, 'mirrors', 'src-1.git', 'config'), 'utf8').includes(token), 'nothing is written to the mirror config');
  });

  test('a refused token becomes a clear reason that does not contain it', async () => {
    const wrong = `${token}WRONG`;
    await assert.rejects(cache.checkout(source(wrong), 'main', 'scan-2'), (error: Error) => {
      assert.ok(error instanceof CheckoutError);
      assert.match(error.message, /could not fetch the repository/);
      assert.ok(!error.message.includes(wrong) && !error.message.includes(token));
      return true;
    });
  });

  test('plain http and local paths are refused unless local clones are enabled', async () => {
    await assert.rejects(cache.checkout({ ...source(null), cloneUrl: 'http://127.0.0.1:1/x.git' }, 'main', 's3'), /plain http/);
    await assert.rejects(cache.checkout({ ...source(null), cloneUrl: repo.dir }, 'main', 's4'), /local paths is disabled/);
  });
});
