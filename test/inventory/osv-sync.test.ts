import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startOsvRefresh } from '../../src/osv/refresh.ts';
import type { OsvRecord } from '../../src/osv/record.ts';
import { syncOsv } from '../../src/osv/sync.ts';
import { scanRepository, waitFor } from '../support/helpers.ts';
import { createHarness, type Harness } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';
import { osvRecord, writeRecordZip } from '../support/osv-records.ts';
import { createTestDatabase, type TestDatabase } from '../support/store.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** The CLI in a child process, waited for without blocking this one (which serves the bucket). */
function runCli(args: string[], env: Record<string, string | undefined>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

interface Served {
  path: string;
  status: number;
  bytes: number;
}

/**
 * A stand-in for the OSV bucket on loopback: per ecosystem an all.zip built with yazl, a modified_id.csv
 * (newest first) and each record as `<id>.json`, with ETags honoured; `fail` makes paths answer 500.
 */
class OsvBucket {
  readonly served: Served[] = [];
  readonly fail = new Set<string>();
  readonly #files = new Map<string, { body: Buffer; etag: string }>();
  readonly #work = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-osv-bucket-'));
  #server = http.createServer((request, response) => this.#answer(request, response));
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
    fs.rmSync(this.#work, { recursive: true, force: true });
  }

  #put(file: string, body: Buffer) {
    this.#files.set(file, { body, etag: `"${crypto.createHash('sha1').update(body).digest('hex')}"` });
  }

  async publish(ecosystems: Record<string, OsvRecord[]>): Promise<void> {
    this.#put('/ecosystems.txt', Buffer.from(Object.keys(ecosystems).join('\n') + '\n'));
    for (const [ecosystem, records] of Object.entries(ecosystems)) {
      const dir = `/${encodeURIComponent(ecosystem)}`;
      const zip = path.join(this.#work, `${ecosystem}.zip`);
      await writeRecordZip(zip, records);
      this.#put(`${dir}/all.zip`, fs.readFileSync(zip));
      const newestFirst = [...records].sort((a, b) => b.modified.localeCompare(a.modified));
      this.#put(`${dir}/modified_id.csv`, Buffer.from(newestFirst.map((r) => `${r.modified},${r.id}\n`).join('')));
      for (const record of records) this.#put(`${dir}/${record.id}.json`, Buffer.from(JSON.stringify(record)));
    }
  }

  #answer(request: http.IncomingMessage, response: http.ServerResponse) {
    const file = request.url ?? '/';
    const done = (status: number, body?: Buffer, headers: Record<string, string> = {}) => {
      this.served.push({ path: file, status, bytes: body?.length ?? 0 });
      response.writeHead(status, { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) });
      response.end(body);
    };
    if (this.fail.has(file)) return done(500, Buffer.from('bucket is down'));
    const found = this.#files.get(file);
    if (!found) return done(404, Buffer.from('no such key'));
    if (request.headers['if-none-match'] === found.etag) return done(304, undefined, { etag: found.etag });
    done(200, found.body, { etag: found.etag, 'last-modified': 'Wed, 01 Jan 2098 00:00:00 GMT' });
  }

  /** What was served since `from` (an index into `served`). */
  since(from: number): Served[] {
    return this.served.slice(from);
  }
}

const lodash = osvRecord('GHSA-2099-lodash-aaaa', 'npm', 'lodash', [{ introduced: '0' }, { fixed: '4.17.21' }], {
  summary: 'Prototype pollution in lodash',
  database_specific: { severity: 'HIGH' },
});
const minimist = osvRecord('GHSA-2099-mini-bbbb', 'npm', 'minimist', [{ introduced: '0' }, { fixed: '1.2.6' }], { modified: '2099-01-02T00:00:00Z' });
const django = osvRecord('PYSEC-2099-7', 'PyPI', 'django', [{ introduced: '3.2' }, { fixed: '3.2.19' }]);

describe('OSV sync from a bucket', () => {
  let bucket: OsvBucket;
  let database: TestDatabase;
  const db = () => database.store.db;
  const stored = async (id: string) => db().selectFrom('osv_advisories').selectAll().where('id', '=', id).executeTakeFirst();
  const countAdvisories = async () => Number((await db().selectFrom('osv_advisories').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  before(async () => {
    bucket = new OsvBucket();
    await bucket.start();
    database = await createTestDatabase();
  });
  after(async () => {
    await bucket.stop();
    await database.cleanup();
  });
  beforeEach(async () => {
    bucket.fail.clear();
    await bucket.publish({ npm: [lodash, minimist], PyPI: [django] });
    // Tests run in a random order: each starts from a database that has never synced.
    for (const table of ['osv_affected', 'osv_advisories', 'osv_ecosystems', 'task_leases'] as const) await db().deleteFrom(table).execute();
  });

  test('the first sync imports every published ecosystem the extractors read; the next, with nothing changed, downloads nothing', async () => {
    const first = await syncOsv(db(), { baseUrl: bucket.url });
    assert.deepEqual(first.failed, []);
    assert.deepEqual(
      first.ecosystems.map((e) => [e.ecosystem, e.mode, e.import?.added]),
      [
        ['npm', 'full', 2],
        ['PyPI', 'full', 1],
      ],
      'the default is the extractors\' ecosystems the bucket lists in ecosystems.txt',
    );
    assert.ok(first.ecosystems[0]!.bytes > 0);
    assert.equal((await stored(lodash.id))?.summary, 'Prototype pollution in lodash');
    assert.ok(await stored(django.id));
    const npm = await db().selectFrom('osv_ecosystems').selectAll().where('ecosystem', '=', 'npm').executeTakeFirstOrThrow();
    assert.equal(npm.newest_modified, minimist.modified, 'the index watermark: the newest record listed');
    assert.ok(npm.export_etag && npm.index_etag);

    const mark = bucket.served.length;
    const second = await syncOsv(db(), { baseUrl: bucket.url });
    assert.deepEqual(
      second.ecosystems.map((e) => [e.ecosystem, e.mode, e.bytes]),
      [
        ['npm', 'unchanged', 0],
        ['PyPI', 'unchanged', 0],
      ],
    );
    const served = bucket.since(mark);
    assert.ok(served.every((s) => s.path === '/ecosystems.txt' || s.status === 304), JSON.stringify(served));
    assert.ok(!served.some((s) => s.path.endsWith('all.zip')), 'the export is not asked for again');
  });

  test('a changed record is fetched alone and re-imported; a new one too', async () => {
    await syncOsv(db(), { baseUrl: bucket.url, ecosystems: ['npm'] });
    const fixedLater = { ...lodash, modified: '2099-03-01T00:00:00Z', summary: 'Prototype pollution in lodash (revised)' };
    const added = osvRecord('GHSA-2099-newx-cccc', 'npm', 'left-pad', [{ introduced: '0' }], { modified: '2099-02-01T00:00:00Z' });
    await bucket.publish({ npm: [fixedLater, minimist, added], PyPI: [django] });

    const mark = bucket.served.length;
    const report = await syncOsv(db(), { baseUrl: bucket.url, ecosystems: ['npm'] });
    assert.deepEqual(report.failed, []);
    const [npm] = report.ecosystems;
    assert.equal(npm!.mode, 'incremental');
    assert.deepEqual([npm!.import?.added, npm!.import?.updated], [1, 1]);
    const paths = bucket.since(mark).map((s) => s.path).sort();
    assert.deepEqual(paths, ['/ecosystems.txt', '/npm/GHSA-2099-lodash-aaaa.json', '/npm/GHSA-2099-newx-cccc.json', '/npm/modified_id.csv']);
    assert.equal((await stored(lodash.id))?.summary, 'Prototype pollution in lodash (revised)');
    assert.equal((await db().selectFrom('osv_ecosystems').select('newest_modified').where('ecosystem', '=', 'npm').executeTakeFirstOrThrow()).newest_modified, fixedLater.modified);
  });

  test('a server error fails that ecosystem with a clear message and leaves its records as they were', async () => {
    await syncOsv(db(), { baseUrl: bucket.url });
    const before = await countAdvisories();
    const previous = (await stored(lodash.id))?.summary;
    await bucket.publish({ npm: [{ ...lodash, modified: '2099-04-01T00:00:00Z', summary: 'changed' }, minimist], PyPI: [django] });
    bucket.fail.add('/npm/GHSA-2099-lodash-aaaa.json');

    const report = await syncOsv(db(), { baseUrl: bucket.url });
    assert.deepEqual(report.failed.map((f) => f.ecosystem), ['npm']);
    assert.match(report.failed[0]!.error, /GET http:\/\/127\.0\.0\.1:\d+\/npm\/GHSA-2099-lodash-aaaa\.json answered 500/);
    assert.deepEqual(report.ecosystems.map((e) => e.ecosystem), ['PyPI'], 'the other ecosystems still sync');
    assert.equal(await countAdvisories(), before);
    assert.equal((await stored(lodash.id))?.summary, previous, 'the previous record is intact');

    // Through the command: the error is said on stderr and the exit code is a runtime error's.
    bucket.fail.add('/npm/modified_id.csv');
    const cli = await runCli(['osv', 'sync', '--ecosystems', 'npm'], { ...database.env, BULWARK_OSV_URL: bucket.url });
    assert.equal(cli.status, 3, cli.stderr);
    assert.match(cli.stdout, /npm: FAILED, records left as they were: GET .*\/npm\/modified_id\.csv answered 500/);
    assert.match(cli.stderr, /the OSV sync failed for npm: GET .*modified_id\.csv answered 500/);

    bucket.fail.clear();
    const fixed = await runCli(['osv', 'sync', '--ecosystems', 'npm', '--json'], { ...database.env, BULWARK_OSV_URL: bucket.url });
    assert.equal(fixed.status, 0, fixed.stderr);
    const json = JSON.parse(fixed.stdout);
    assert.equal(json.ecosystems[0].mode, 'incremental');
    assert.equal((await stored(lodash.id))?.summary, 'changed');
  });

  test('a base URL that is neither https nor loopback is refused', async () => {
    await assert.rejects(syncOsv(db(), { baseUrl: 'http://osv.example.test' }), /must be an https:\/\/ URL/);
  });

  test('the scheduled refresh: one process of two runs it, not again before its interval; a failure is logged, not thrown; 0 is off', async () => {
    await db().deleteFrom('task_leases').execute();
    const logs: string[] = [];
    const log = (message: string, fields?: Record<string, unknown>) => logs.push(`${message} ${JSON.stringify(fields ?? {})}`);
    const options = { baseUrl: bucket.url, intervalMs: 3_600_000, log, firstCheckMs: 3_600_000 };
    const a = startOsvRefresh(db(), options);
    const b = startOsvRefresh(db(), options);
    try {
      const outcomes = await Promise.all([a.tick(), b.tick()]);
      assert.deepEqual(outcomes.sort(), ['not due', 'ran']);
      assert.equal(await a.tick(), 'not due', 'not again within the interval');
      assert.ok(logs.some((l) => l.startsWith('osv sync finished')), logs.join('\n'));
    } finally {
      await a.stop();
      await b.stop();
    }

    // Due again (the last start an interval ago), with the bucket down: logged and recorded, never thrown.
    await db().updateTable('task_leases').set({ last_started_at: new Date(Date.now() - 3_600_001).toISOString() }).execute();
    bucket.fail.add('/ecosystems.txt');
    const c = startOsvRefresh(db(), options);
    try {
      assert.equal(await c.tick(), 'ran');
      assert.ok(logs.some((l) => l.startsWith('osv sync failed') && l.includes('answered 500')), logs.join('\n'));
      const lease = await db().selectFrom('task_leases').selectAll().executeTakeFirstOrThrow();
      assert.match(lease.last_error ?? '', /ecosystems\.txt answered 500/);
      assert.equal(lease.holder, null, 'the lease is released for the next interval');
    } finally {
      await c.stop();
    }

    const mark = bucket.served.length;
    const off = startOsvRefresh(db(), { ...options, intervalMs: 0 });
    assert.equal(await off.tick(), 'off');
    await off.stop();
    assert.equal(bucket.served.length, mark);
  });
});

const PACKAGE_LOCK = JSON.stringify(
  {
    name: 'shop',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'shop', version: '1.0.0', dependencies: { minimist: '^1.2.8' } },
      'node_modules/minimist': { version: '1.2.8', resolved: 'https://registry.npmjs.org/minimist/-/minimist-1.2.8.tgz' },
    },
  },
  null,
  2,
);

describe('the worker keeps records fresh and dependency scans say when they are not', () => {
  let bucket: OsvBucket;
  let h: Harness;
  let repo: TestRepo;

  before(async () => {
    bucket = new OsvBucket();
    await bucket.start();
    await bucket.publish({ npm: [lodash, minimist], PyPI: [django] });
    repo = TestRepo.create();
    repo.commit({ 'package-lock.json': PACKAGE_LOCK, 'package.json': '{"name":"shop","dependencies":{"minimist":"^1.2.8"}}' });
  });
  after(async () => {
    await h?.close();
    await bucket.stop();
    repo.remove();
  });

  test('with no records a completed scan carries a warning; after the worker\'s refresh none; stale records warn again', async () => {
    h = await createHarness({ scanning: true });
    const org = await h.org('fresh');
    const unit = await h.unit(org, ['github:acme/shop@main'], 'shop', [repo.url]);

    const bare = await scanRepository(h, unit.id, 'sbom_scan');
    assert.equal(bare.progress.status, 'completed');
    assert.equal(bare.progress.error_message, null, 'error_message keeps its meaning: nothing failed');
    assert.equal(bare.progress.scans_completed, 1);
    assert.equal(bare.progress.warnings.length, 1, JSON.stringify(bare.progress.warnings));
    assert.match(bare.progress.warnings[0], /^acme\/shop: no vulnerability records are available, so no dependency was checked/);
    const batch = (await h.call('GET', `/api/v1/repositories/${unit.id}/scans/${bare.batchId}`)).json();
    assert.deepEqual(batch.warnings, bare.progress.warnings);

    // A worker of its own on the same database, refreshing from the loopback bucket.
    const worker = await createHarnessWorker(h, bucket.url);
    try {
      await waitFor('the refresh to import npm records', 20, async () =>
        (await h.database.store.db.selectFrom('osv_ecosystems').select('ecosystem').where('ecosystem', '=', 'npm').executeTakeFirst()) ? true : undefined,
      );
    } finally {
      await worker.close();
    }
    const fresh = await scanRepository(h, unit.id, 'sbom_scan');
    assert.equal(fresh.progress.status, 'completed');
    assert.deepEqual(fresh.progress.warnings, []);
    const found = (await h.call('GET', `/api/v1/repositories/${unit.id}/findings?scan_type=sbom_scan`)).json().items;
    assert.deepEqual(found.map((f: any) => f.check_id), [], 'minimist 1.2.8 is past the fix');

    await h.database.store.db.updateTable('osv_ecosystems').set({ refreshed_at: new Date(Date.now() - 100 * 3_600_000).toISOString() }).execute();
    const stale = await scanRepository(h, unit.id, 'sbom_scan');
    assert.equal(stale.progress.warnings.length, 1);
    assert.match(stale.progress.warnings[0], /^acme\/shop: vulnerability records for npm were last refreshed 100 hours ago \(more than 72\)/);
  });
});

/** Services with the refresh on (every hour, so only its first look runs), sharing the harness's database; the harness's own workers keep it off. */
async function createHarnessWorker(h: Harness, url: string) {
  const { loadSettings } = await import('../../src/config.ts');
  const { openServices } = await import('../../src/services.ts');
  const logs: string[] = [];
  const settings = loadSettings({ ...h.database.env, BULWARK_OSV_SYNC_HOURS: '1', BULWARK_OSV_URL: url, BULWARK_WORKER_CONCURRENCY: '1' });
  const services = await openServices(settings, h.database.store, (message, fields) => logs.push(`${message} ${JSON.stringify(fields ?? {})}`));
  await services.startWorkers();
  assert.ok(services.osvRefresh);
  return { logs, close: () => services.close() };
}
