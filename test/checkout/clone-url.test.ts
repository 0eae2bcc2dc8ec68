import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createOrganization } from '../../src/core/organizations.ts';
import { parseSourceSpec } from '../../src/core/source-repos.ts';
import { addUnit, SourceUrlRefused } from '../../src/core/units.ts';
import { TokenBox } from '../../src/crypto/token-box.ts';
import { CheckoutCache, CheckoutError } from '../../src/scm/checkout-cache.ts';
import { checkCloneUrl, CloneUrlError, isForbiddenAddress, type CloneUrlPolicy } from '../../src/scm/clone-url.ts';
import { startGitHttpsServer, type GitHttpsServer } from '../support/git-https-server.ts';
import { TestRepo } from '../support/git-repo.ts';
import { createTestDatabase, type TestDatabase } from '../support/store.ts';

const STRICT: CloneUrlPolicy = { allowLocal: false, localRoot: null, allowPrivateHosts: false };

describe('addresses a clone URL may not reach', () => {
  test('loopback, private, link-local, metadata, unspecified and their IPv6 forms are forbidden', () => {
    for (const ip of [
      '127.0.0.1', '127.8.9.10', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '169.254.1.1',
      '0.0.0.0', '100.64.0.1', '::1', '::', 'fc00::1', 'fd00:ec2::254', 'fe80::1', '::ffff:127.0.0.1', '::ffff:a9fe:a9fe', '64:ff9b::10.0.0.1',
    ]) {
      assert.ok(isForbiddenAddress(ip), ip);
    }
    for (const ip of ['140.82.112.3', '172.32.0.1', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) assert.ok(!isForbiddenAddress(ip), ip);
  });

  test('URLs naming such an address, plain http, other schemes and odd host spellings are refused without a lookup', () => {
    for (const url of [
      'https://127.0.0.1/acme/api.git',
      'https://10.0.0.1/acme/api.git',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/acme/api.git',
      'https://[fd00:ec2::254]/x',
      'https://0.0.0.0/x',
      'https://2130706433/x', // 127.0.0.1 written as one number
      'https://0x7f.1/x',
      'https://user:secret@github.com/acme/api.git',
      'http://github.com/acme/api.git',
      'ssh://git@github.com/acme/api.git',
      'git://github.com/acme/api.git',
      'ext::sh -c touch% /tmp/pwned',
      'file:///srv/repos/api',
      '/srv/repos/api',
    ]) {
      assert.throws(() => checkCloneUrl(url, STRICT), CloneUrlError, url);
    }
    assert.equal(checkCloneUrl('https://github.com/acme/api.git', STRICT), 'https');
    assert.equal(checkCloneUrl('https://127.0.0.1:8443/acme/api.git', { ...STRICT, allowPrivateHosts: true }), 'https');
  });
});

describe('local repositories stay inside the configured root', () => {
  let base: string;
  let root: string;
  before(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-local-'));
    root = path.join(base, 'repos');
    for (const dir of ['repos/acme/api', 'repos/globex/billing', 'outside/secret']) fs.mkdirSync(path.join(base, dir), { recursive: true });
    fs.symlinkSync(path.join(base, 'outside'), path.join(base, 'repos', 'acme', 'link'));
  });
  after(() => fs.rmSync(base, { recursive: true, force: true }));

  test('paths outside the root, through .. or a symlink, are refused; paths inside are accepted', () => {
    const policy = { allowLocal: true, localRoot: root, allowPrivateHosts: false };
    assert.equal(checkCloneUrl(`file://${root}/acme/api`, policy), 'local');
    assert.equal(checkCloneUrl(`${root}/acme/api`, policy), 'local');
    for (const url of [
      `file://${base}/outside/secret`,
      `${root}/../outside/secret`,
      `file://${root}/acme/link/secret`,
      `file://${root}`,
      'file:///etc',
      'file://otherhost/srv/repo',
    ]) {
      assert.throws(() => checkCloneUrl(url, policy), CloneUrlError, url);
    }
  });

  test('local paths are refused when local repositories are not allowed, or no root is configured', () => {
    assert.throws(() => checkCloneUrl(`${root}/acme/api`, { allowLocal: false, localRoot: root, allowPrivateHosts: true }), /BULWARK_ALLOW_LOCAL_REPOS/);
    assert.throws(() => checkCloneUrl(`${root}/acme/api`, { allowLocal: true, localRoot: null, allowPrivateHosts: true }), /BULWARK_LOCAL_REPOS_ROOT/);
  });

  test('with {org} in the root, an organization reaches only its own folder', () => {
    const policy = { allowLocal: true, localRoot: path.join(root, '{org}'), allowPrivateHosts: false };
    assert.equal(checkCloneUrl(`${root}/acme/api`, policy, 'acme'), 'local');
    assert.throws(() => checkCloneUrl(`${root}/globex/billing`, policy, 'acme'), /must be inside/);
    assert.throws(() => checkCloneUrl(`${root}/acme/../globex/billing`, policy, 'acme'), /must be inside/);
  });
});

describe('registration refuses clone URLs the server must not fetch', () => {
  let database: TestDatabase;
  let base: string;
  const tokenBox = new TokenBox(Buffer.alloc(32, 3));
  before(async () => {
    database = await createTestDatabase();
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-register-'));
    fs.mkdirSync(path.join(base, 'acme', 'api'), { recursive: true });
    fs.mkdirSync(path.join(base, 'globex', 'billing'), { recursive: true });
  });
  after(async () => {
    await database.cleanup();
    fs.rmSync(base, { recursive: true, force: true });
  });

  const register = async (slug: string, cloneUrl: string | undefined, policy: CloneUrlPolicy) => {
    const org = await createOrganization(database.store.db, { name: slug, slug: `${slug}-${Math.random().toString(36).slice(2, 8)}` });
    return addUnit(database.store.db, tokenBox, { orgId: org.id, name: 'api', sources: [{ ...parseSourceSpec('github:acme/api'), cloneUrl }] }, policy);
  };
  const unitCount = async () => (await database.store.db.selectFrom('units').select('id').execute()).length;

  test('loopback, private and metadata addresses, and names resolving to loopback, are refused and nothing is stored', async () => {
    const before = await unitCount();
    for (const url of ['https://127.0.0.1/acme/api.git', 'https://10.0.0.1/acme/api.git', 'https://169.254.169.254/latest', 'https://localhost/acme/api.git', 'http://github.com/acme/api.git']) {
      await assert.rejects(register('acme', url, STRICT), SourceUrlRefused, url);
    }
    assert.equal(await unitCount(), before);
    // The same loopback URL is accepted where the operator allows private hosts.
    await register('acme', 'https://localhost/acme/api.git', { ...STRICT, allowPrivateHosts: true });
    // A provider's default URL needs no flag.
    await register('acme', undefined, STRICT);
  });

  test("one organization cannot register another organization's local repository path", async () => {
    const policy = { allowLocal: true, localRoot: path.join(base, '{org}'), allowPrivateHosts: false };
    const org = await createOrganization(database.store.db, { name: 'acme', slug: 'acme' });
    const add = (url: string) => addUnit(database.store.db, tokenBox, { orgId: org.id, name: 'api', sources: [{ ...parseSourceSpec('github:acme/api'), cloneUrl: url }] }, policy);
    await assert.rejects(add(`file://${base}/globex/billing`), /must be inside/);
    await assert.rejects(add(`file://${base}/acme/../globex/billing`), /must be inside/);
    const unit = await add(`file://${base}/acme/api`);
    assert.equal(unit.sources[0]!.clone_url, `file://${base}/acme/api`);
  });
});

describe('every fetch checks the address it connects to', () => {
  const token = 'glpat-pinnedConnectionToken01';
  const expected = `Basic ${Buffer.from(`oauth2:${token}`).toString('base64')}`;
  let server: GitHttpsServer;
  let repo: TestRepo;
  let root: string;
  let listener: net.Server;
  let connections = 0;
  let listenerPort = 0;
  const previousCa = process.env.GIT_SSL_NO_VERIFY;

  before(async () => {
    repo = TestRepo.create();
    repo.commit({ 'README.md': '# pinned\n' });
    server = await startGitHttpsServer(path.dirname(repo.dir), expected);
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-pin-'));
    listener = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    listenerPort = (listener.address() as net.AddressInfo).port;
  });
  after(async () => {
    if (previousCa === undefined) delete process.env.GIT_SSL_NO_VERIFY;
    else process.env.GIT_SSL_NO_VERIFY = previousCa;
    await server.close();
    await new Promise((resolve) => listener.close(resolve));
    repo.remove();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const source = (cloneUrl: string) => ({ id: `src-${Math.random().toString(36).slice(2, 8)}`, provider: 'gitlab', cloneUrl, token });

  test('a name resolving to loopback, and literal internal addresses, are refused before any connection', async () => {
    const cache = new CheckoutCache({ root, allowLocal: false, timeoutMs: 30_000 });
    for (const url of [`https://localhost:${listenerPort}/acme/api.git`, `https://127.0.0.1:${listenerPort}/acme/api.git`, 'https://10.0.0.1/acme/api.git', 'https://169.254.169.254/latest']) {
      await assert.rejects(cache.checkout(source(url), 'main', 'w1'), (error: Error) => {
        assert.ok(error instanceof CheckoutError);
        assert.match(error.message, /loopback, private, link-local or metadata address/);
        return true;
      });
    }
    assert.equal(connections, 0, 'git never connected');
  });

  test('the host is looked up again at each connection, so a name that now resolves inside (DNS rebinding) is refused', async () => {
    const lookups: string[] = [];
    const lookup = async (host: string) => {
      lookups.push(host);
      return ['10.0.0.1'];
    };
    const cache = new CheckoutCache({ root, allowLocal: false, timeoutMs: 30_000, lookup });
    await assert.rejects(cache.checkout(source('https://rebind.example.test/acme/api.git'), 'main', 'w2'), /10\.0\.0\.1/);
    await assert.rejects(cache.checkout(source('https://rebind.example.test/acme/api.git'), 'main', 'w2'), /10\.0\.0\.1/);
    assert.deepEqual(lookups, ['rebind.example.test', 'rebind.example.test']);
  });

  test('git connects to exactly the address that was checked', async () => {
    process.env.GIT_SSL_NO_VERIFY = '1'; // the test host's certificate names 127.0.0.1, not the made-up name
    const port = new URL(server.url).port;
    const lookups: string[] = [];
    const cache = new CheckoutCache({
      root,
      allowLocal: false,
      allowPrivateHosts: true,
      timeoutMs: 30_000,
      lookup: async (host) => {
        lookups.push(host);
        return ['127.0.0.1'];
      },
    });
    // The name resolves nowhere but through the checked lookup, so the fetch works only if git used the pinned address.
    const checkout = await cache.checkout(source(`https://git.bulwark-pinned.invalid:${port}/${path.basename(repo.dir)}`), 'main', 'w3');
    try {
      assert.ok(fs.existsSync(path.join(checkout.dir, 'README.md')));
      assert.deepEqual([...new Set(lookups)], ['git.bulwark-pinned.invalid']);
    } finally {
      await checkout.dispose();
    }
  });
});
