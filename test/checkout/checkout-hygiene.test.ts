import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CheckoutCache } from '../../src/scm/checkout-cache.ts';
import { scanRepository } from '../support/helpers.ts';
import { createHarness } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';
import { workTreesUnder } from '../support/work-trees.ts';

const source = (id: string, repo: TestRepo) => ({ id, provider: 'github', cloneUrl: repo.url, token: null });
const newCache = (root: string, extra: { maxMirrorBytes?: number } = {}) =>
  new CheckoutCache({ root, allowLocal: true, localRoot: os.tmpdir(), timeoutMs: 30_000, ...extra });

describe('checkouts do not outlive their job or their process', () => {
  let repo: TestRepo;
  let root: string;
  before(() => {
    repo = TestRepo.create();
    repo.commit({ '.env': 'API_TOKEN=s3cr3t-value\n', 'src/app.js': 'console.log(1);\n' });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-hygiene-'));
  });
  after(() => {
    repo.remove();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('the work tree of a killed process stays while it runs and is removed at the next start', async () => {
    const child = spawn(process.execPath, [path.join(import.meta.dirname, '../support', 'checkout-holder.ts'), root, repo.dir, 'scan-killed'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const dir = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      child.once('exit', (code) => reject(new Error(`holder exited with ${code}`)));
    });
    assert.ok(fs.existsSync(path.join(dir, '.env')));

    // Another process starting meanwhile leaves a live process's work tree alone.
    await newCache(root).cleanLeftovers();
    assert.ok(fs.existsSync(path.join(dir, '.env')), 'a running process lost its checkout');

    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    assert.ok(fs.existsSync(dir), 'kill -9 leaves the checkout behind');

    await newCache(root).cleanLeftovers();
    assert.ok(!fs.existsSync(dir), 'the dead process left its checkout, secrets included');
    assert.ok(!fs.existsSync(path.dirname(dir)));
    // The mirror no longer lists the removed work tree.
    const records = path.join(root, 'mirrors', 'held.git', 'worktrees');
    assert.ok(!fs.existsSync(records) || !fs.readdirSync(records).length);
  });

  test('a job that ends, by success or failure, leaves no work tree even when it never disposed of it', async () => {
    const cache = newCache(root);
    let dir = '';
    await cache.withinJob(async () => {
      dir = (await cache.checkout(source('ok', repo), 'main', 'scan-ok')).dir;
      assert.ok(fs.existsSync(dir));
    });
    assert.ok(!fs.existsSync(dir));
    await assert.rejects(
      cache.withinJob(async () => {
        dir = (await cache.checkout(source('ok', repo), 'main', 'scan-failing')).dir;
        throw new Error('engine crashed');
      }),
      /engine crashed/,
    );
    assert.ok(!fs.existsSync(dir));
    assert.deepEqual(workTreesUnder(root).filter((w) => !w.includes('killed')), []);
  });

  test('beyond the size cap the least recently used mirror goes first, and never one a work tree uses', async () => {
    const capRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-cap-'));
    try {
      const cache = newCache(capRoot, { maxMirrorBytes: 1 });
      const held = await cache.checkout(source('in-use', repo), 'main', 'scan-in-use');
      for (const id of ['oldest', 'newer']) await (await cache.checkout(source(id, repo), 'main', `scan-${id}`)).dispose();
      const mirror = (id: string) => path.join(capRoot, 'mirrors', `${id}.git`);
      const age = (id: string, minutes: number) => {
        const when = new Date(Date.now() - minutes * 60_000);
        fs.utimesSync(path.join(mirror(id), 'bulwark-last-used'), when, when);
      };
      age('oldest', 30);
      age('newer', 20);
      age('in-use', 40);
      const bytes = (dir: string): number =>
        fs.readdirSync(dir, { withFileTypes: true }).reduce((sum, e) => sum + (e.isDirectory() ? bytes(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).size), 0);
      const total = bytes(mirror('oldest')) + bytes(mirror('newer')) + bytes(mirror('in-use'));

      // Room for two mirrors: only the least recently used mirror nothing uses goes.
      const roomy = newCache(capRoot, { maxMirrorBytes: total - Math.ceil(bytes(mirror('oldest')) / 2) });
      assert.deepEqual(await roomy.evictMirrors(), [mirror('oldest')]);
      assert.ok(fs.existsSync(mirror('newer')) && fs.existsSync(mirror('in-use')));

      // Room for none: the unused one goes, the one with a live work tree stays.
      assert.deepEqual(await cache.evictMirrors(), [mirror('newer')]);
      assert.ok(fs.existsSync(path.join(held.dir, 'src/app.js')));
      assert.ok(fs.existsSync(mirror('in-use')));
      await held.dispose();
    } finally {
      fs.rmSync(capRoot, { recursive: true, force: true });
    }
  });
});

describe('a worker cleans its checkout root', () => {
  test('at start it removes a dead process’s leftovers, and a finished scan leaves no work tree', async () => {
    const checkoutDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-worker-root-'));
    const repo = TestRepo.create();
    repo.commit({ 'src/app.js': 'console.log(1);\n' });
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid!;
    const leftover = path.join(checkoutDir, 'worktrees', `${os.hostname()}-${deadPid}-dead`);
    fs.mkdirSync(path.join(leftover, 'scan-leftover'), { recursive: true });
    fs.writeFileSync(path.join(leftover, 'owner.json'), JSON.stringify({ pid: deadPid, host: os.hostname() }));
    fs.writeFileSync(path.join(leftover, 'scan-leftover', '.env'), 'API_TOKEN=left-behind\n');
    const h = await createHarness({ scanning: true, env: { BULWARK_CHECKOUT_DIR: checkoutDir } });
    try {
      assert.ok(!fs.existsSync(leftover), 'the worker kept a dead process’s checkout');
      const org = await h.org('hygiene');
      const unit = await h.unit(org, ['github:acme/hygiene@main'], 'hygiene', [repo.url]);
      const { progress } = await scanRepository(h, unit.id, 'secrets_scan');
      assert.equal(progress.status, 'completed', progress.error_message ?? '');
      assert.ok(fs.existsSync(path.join(checkoutDir, 'mirrors')), 'the scan ran in the configured checkout root');
      assert.deepEqual(workTreesUnder(checkoutDir), []);
    } finally {
      await h.close();
      repo.remove();
      fs.rmSync(checkoutDir, { recursive: true, force: true });
    }
  });
});
