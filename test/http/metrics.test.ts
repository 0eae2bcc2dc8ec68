import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { loadSettings } from '../../src/config.ts';
import { createApiKey } from '../../src/core/api-keys.ts';
import { findOrganization } from '../../src/core/organizations.ts';
import { addUnit } from '../../src/core/units.ts';
import { loadTokenBox } from '../../src/crypto/token-box.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { startWorker, type RunningWorker } from '../../src/worker.ts';
import { testCloneUrlPolicy } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';
import { waitFor } from '../support/helpers.ts';
import { createTestDatabase, type TestDatabase } from '../support/store.ts';

// What an operator watching a running service sees: each job's life in the log, and Prometheus metrics
// for requests, jobs, the queue and the records scans and fixes leave.

/** A server's (or worker's) settings on the test database, with local repositories and a metrics token. */
function serviceSettings(database: TestDatabase, metricsToken: string, extra: Record<string, string> = {}) {
  return loadSettings({
    ...database.env,
    PORT: '0',
    HOST: '127.0.0.1',
    BULWARK_ALLOW_LOCAL_REPOS: 'true',
    BULWARK_LOCAL_REPOS_ROOT: testCloneUrlPolicy.localRoot ?? undefined,
    BULWARK_METRICS_TOKEN: metricsToken,
    ...extra,
  });
}

/** Registers a repository in the default organization, scans it for secrets and waits for the batch to complete. */
async function scanToCompletion(server: RunningServer, database: TestDatabase): Promise<{ key: string; batchId: string }> {
  const repo = TestRepo.create();
  try {
    repo.commit({ 'app.py': 'print("hello")\n' });
    const db = server.store.db;
    const org = (await findOrganization(db, 'default'))!;
    const { key } = await createApiKey(db, { orgId: org.id, name: 'metrics test', scopes: ['read', 'scan:write'] });
    const tokenBox = loadTokenBox(null, database.dataDir);
    const unit = await addUnit(db, tokenBox, {
      orgId: org.id,
      name: 'acme/app',
      sources: [{ provider: 'github', fullName: 'acme/app', branch: 'main', cloneUrl: repo.url }],
    }, testCloneUrlPolicy);
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await fetch(`${server.url}/api/v1/repositories/${unit.id}/scans`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ scan_type: 'secrets_scan' }),
    });
    assert.equal(created.status, 202);
    const { batch_id: batchId } = (await created.json()) as { batch_id: string };
    let status = '';
    for (let i = 0; i < 300 && !['completed', 'failed', 'partial_failure'].includes(status); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const res = await fetch(`${server.url}/api/v1/repositories/${unit.id}/scans/${batchId}`, { headers: auth });
      status = ((await res.json()) as { status: string }).status;
    }
    assert.equal(status, 'completed');
    return { key, batchId };
  } finally {
    repo.remove();
  }
}

describe('observability', () => {
  let database: TestDatabase;
  let server: RunningServer;
  const logs: string[] = [];
  const METRICS_TOKEN = 'metrics-scrape-token-for-tests';

  before(async () => {
    database = await createTestDatabase();
    await database.store.close();
    const logStream = new PassThrough();
    logStream.on('data', (chunk) => logs.push(String(chunk)));
    const settings = serviceSettings(database, METRICS_TOKEN);
    server = await startServer(settings, { print: () => {}, logStream });
  });
  after(async () => {
    await server?.close();
    await database.cleanup().catch(() => {});
  });

  const metricsText = async () => {
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    return res.text();
  };

  test('a scan is logged from queued to completed and counted in /metrics; /metrics needs its token', async () => {
    const { key, batchId } = await scanToCompletion(server, database);

    const jobLines = logs
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string; kind?: string; key?: string; duration_ms?: number })
      .filter((line) => line.key === batchId && line.kind === 'scan-batch');
    assert.deepEqual(
      jobLines.map((line) => line.msg),
      ['job queued', 'job started', 'job completed'],
    );
    assert.ok(jobLines.every((line) => line.kind === 'scan-batch'));
    assert.equal(typeof jobLines[2].duration_ms, 'number');
    assert.ok(!logs.join('').includes(key), 'the API key never reaches the logs');

    assert.equal((await fetch(`${server.url}/metrics`)).status, 401);
    assert.equal((await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status, 401);
    const text = await metricsText();
    assert.match(text, /^bulwark_job_duration_seconds_count\{kind="scan-batch",outcome="completed"\} 1$/m);
    assert.match(text, /^bulwark_records\{record="scan_batch",type="secrets_scan",status="completed"\} 1$/m);
    assert.match(text, /^bulwark_queue_jobs\{kind="scan-batch",state="(queued|running)"\} 0$/m);
    assert.match(
      text,
      /^bulwark_http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/repositories\/:repository_id\/scans",status_code="202"\} 1$/m,
    );
    assert.match(text, /^bulwark_process_resident_memory_bytes \d+$/m);
  });
});

describe('a worker process serves its own /metrics', () => {
  let database: TestDatabase;
  let server: RunningServer;
  let worker: RunningWorker;
  const METRICS_TOKEN = 'worker-metrics-token-for-tests';

  before(async () => {
    database = await createTestDatabase();
    await database.store.close();
    const settings = serviceSettings(database, METRICS_TOKEN, { BULWARK_WORKER_METRICS_PORT: '0' });
    server = await startServer(settings, { print: () => {}, logStream: new PassThrough(), worker: false });
    worker = await startWorker(settings, () => {});
  });
  after(async () => {
    await worker?.close();
    await server?.close();
    await database.cleanup().catch(() => {});
  });

  test('the jobs a worker ran are counted at its address, behind the same token', async () => {
    await scanToCompletion(server, database);
    assert.ok(worker.metricsUrl);
    assert.equal((await fetch(worker.metricsUrl)).status, 401);
    const url = worker.metricsUrl;
    // A job is counted once its handler has returned, which may be just after its batch reads completed.
    const text = await waitFor('the worker to count its scan jobs', 30, async () => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      assert.equal(res.status, 200);
      const body = await res.text();
      return /^bulwark_job_duration_seconds_count\{kind="scan",outcome="completed"\} 1$/m.test(body) ? body : undefined;
    });
    assert.match(text, /^bulwark_job_duration_seconds_count\{kind="scan-batch",outcome="completed"\} 1$/m);
    assert.match(text, /^bulwark_job_duration_seconds_count\{kind="scan",outcome="completed"\} 1$/m);
    const serverText = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    assert.doesNotMatch(serverText, /^bulwark_job_duration_seconds_count\{kind="scan"/m, 'the API-only server ran no job');
  });
});
