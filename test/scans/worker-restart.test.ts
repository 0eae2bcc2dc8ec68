import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { after, afterEach, before, describe, test } from 'node:test';
import { createApiKey } from '../../src/core/api-keys.ts';
import { createOrganization } from '../../src/core/organizations.ts';
import { SCOPES } from '../../src/core/scopes.ts';
import { parseSourceSpec } from '../../src/core/source-repos.ts';
import { addUnit, type Unit } from '../../src/core/units.ts';
import { TokenBox } from '../../src/crypto/token-box.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { buildApp } from '../../src/http/app.ts';
import { loadSettings } from '../../src/config.ts';
import { openServices, type Services } from '../../src/services.ts';
import { moveScan, scansOfBatches } from '../../src/store/scan-batches.ts';
import { testCloneUrlPolicy } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';
import { positiveSample } from '../support/secret-samples.ts';
import { createTestDatabase, TEST_DATABASE, type TestDatabase } from '../support/store.ts';
import type { FastifyInstance } from 'fastify';
import { waitFor } from '../support/helpers.ts';

// Workers are real child processes (`bulwark worker`), killed with SIGKILL in the middle of a scan.

const ENCRYPTION_KEY = Buffer.alloc(32, 9).toString('hex');
const PLANTED = ['github-pat', 'slack-bot-token', 'stripe-secret-key', 'npm-token'];
// Every node of a deployment shares its lease; pg-boss heartbeats cannot be shorter than 10 seconds.
const LEASE_SECONDS = TEST_DATABASE === 'postgres' ? '10' : '2';

describe('a worker dying mid-scan loses nothing', () => {
  let database: TestDatabase;
  let services: Services;
  let oneShot: Services;
  let app: FastifyInstance;
  let oneShotApp: FastifyInstance;
  let key: string;
  let unit: Unit;
  let repo: TestRepo;
  const children = new Set<ChildProcess>();

  before(async () => {
    database = await createTestDatabase();
    const env = { ...database.env, BULWARK_ENCRYPTION_KEY: ENCRYPTION_KEY, BULWARK_JOB_LEASE_SECONDS: LEASE_SECONDS };
    services = await openServices(loadSettings(env), database.store);
    app = await buildApp({ store: database.store, dispatchBatch: services.dispatchBatch });
    // Jobs carry the attempt limit of the node that enqueued them.
    oneShot = await openServices(loadSettings({ ...env, BULWARK_JOB_MAX_ATTEMPTS: '1' }), database.store);
    oneShotApp = await buildApp({ store: database.store, dispatchBatch: oneShot.dispatchBatch });
    const org = await createOrganization(database.store.db, { name: 'restart' });
    key = (await createApiKey(database.store.db, { orgId: org.id, name: 'k', scopes: [...SCOPES] })).key;
    repo = TestRepo.create();
    const files: Record<string, string> = {};
    PLANTED.forEach((id, i) => {
      files[`src/service-${i}.js`] = `// service ${i}\nexport const credential = "${positiveSample(SECRET_RULES.find((r) => r.id === id)!, 500 + i)}";\n`;
    });
    repo.commit(files, 'add services');
    unit = await addUnit(database.store.db, new TokenBox(Buffer.from(ENCRYPTION_KEY, 'hex')), {
      orgId: org.id,
      name: 'restartable',
      sources: [{ ...parseSourceSpec('github:acme/restartable@main'), cloneUrl: repo.url }],
    }, testCloneUrlPolicy);
  });

  after(async () => {
    await stopAll();
    await app.close();
    await oneShotApp.close();
    await services.close();
    await oneShot.close();
    await database.cleanup();
    repo.remove();
  });

  // A worker a test leaves running would take the next test's job before its doomed worker could.
  afterEach(() => stopAll());

  function startWorker(extraEnv: Record<string, string>): ChildProcess {
    const child = spawn(process.execPath, ['src/cli/main.ts', 'worker'], {
      env: {
        ...process.env,
        ...database.env,
        BULWARK_ENCRYPTION_KEY: ENCRYPTION_KEY,
        BULWARK_ALLOW_LOCAL_REPOS: 'true',
        BULWARK_LOCAL_REPOS_ROOT: os.tmpdir(),
        BULWARK_JOB_LEASE_SECONDS: LEASE_SECONDS,
        BULWARK_WORKER_CONCURRENCY: '1',
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    return child;
  }

  async function stopAll() {
    const exits = [...children].map((child) => new Promise((resolve) => child.once('exit', resolve)));
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(exits);
  }


  async function createBatch(via = app): Promise<string> {
    const res = await via.inject({
      method: 'POST',
      url: `/api/v1/repositories/${unit.id}/scans`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ scan_type: 'secrets_scan' }),
    });
    assert.equal(res.statusCode, 202);
    return res.json().batch_id;
  }

  const db = () => database.store.db;

  async function killMidScan(batchId: string, extraEnv: Record<string, string> = {}) {
    const doomed = startWorker({ BULWARK_FAULT_SCAN_DELAY_MS: '60000', ...extraEnv });
    await waitFor('the scan to reach the engine', 60, async () => {
      const scan = await db().selectFrom('scans').select('status').where('batch_id', '=', batchId).executeTakeFirst();
      return scan?.status === 'scanning' ? true : undefined;
    });
    doomed.kill('SIGKILL');
    await new Promise((resolve) => doomed.once('exit', resolve));
  }

  const terminal = (batchId: string, seconds: number) =>
    waitFor('a terminal batch', seconds, async () => {
      const batch = await db().selectFrom('scan_batches').selectAll().where('id', '=', batchId).executeTakeFirstOrThrow();
      return ['completed', 'partial_failure', 'failed'].includes(batch.status) ? batch : undefined;
    });

  const percentComplete = async (batchId: string): Promise<number> => {
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/repositories/${unit.id}/scans/${batchId}/progress`,
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().percent_complete;
  };

  test('the batch is picked up again and completes once, with no duplicate findings', async () => {
    const batchId = await createBatch();
    await killMidScan(batchId);
    const stuck = await db().selectFrom('scan_batches').select('status').where('id', '=', batchId).executeTakeFirstOrThrow();
    assert.equal(stuck.status, 'scanning', 'the killed worker left the batch mid-flight');
    const percents = [await percentComplete(batchId)];
    // What a replacement worker does first, held still: the scan goes back to cloning.
    const [interrupted] = await scansOfBatches(db(), [batchId]);
    assert.ok(await moveScan(db(), interrupted.id, 'cloning', { status_reason: null }));
    percents.push(await percentComplete(batchId));

    // SQLite: one embedded worker; PostgreSQL: two worker processes sharing the pg-boss queue.
    const replacements = TEST_DATABASE === 'postgres' ? 2 : 1;
    for (let i = 0; i < replacements; i++) startWorker({});
    // The replacement clones the repository again; the progress bar must not fall back meanwhile.
    const batch = await waitFor('a terminal batch', 90, async () => {
      percents.push(await percentComplete(batchId));
      const row = await db().selectFrom('scan_batches').selectAll().where('id', '=', batchId).executeTakeFirstOrThrow();
      return ['completed', 'partial_failure', 'failed'].includes(row.status) ? row : undefined;
    });
    percents.push(await percentComplete(batchId));
    assert.deepEqual(percents, [...percents].sort((a, b) => a - b), `percent_complete went down across the restart: ${percents.join(', ')}`);
    assert.equal(percents.at(-1), 100);
    assert.equal(batch.status, 'completed', batch.error_message ?? '');

    const findings = await db().selectFrom('findings').select(['fingerprint', 'check_id']).where('unit_id', '=', unit.id).execute();
    assert.equal(findings.length, PLANTED.length);
    assert.equal(new Set(findings.map((f) => f.fingerprint)).size, PLANTED.length);
    assert.deepEqual(findings.map((f) => f.check_id).sort(), PLANTED.map((id) => `secrets.${id}`).sort());
    const detected = await db().selectFrom('finding_events').select('finding_id').where('event_type', '=', 'detected').where('unit_id', '=', unit.id).execute();
    assert.equal(detected.length, PLANTED.length, 'one detected event per finding, even though the scan ran twice');
    const scans = await db().selectFrom('scans').selectAll().where('batch_id', '=', batchId).execute();
    assert.equal(scans.length, 1);
    assert.equal(scans[0].findings_count, PLANTED.length);
    await stopAll();
  });

  test('a job that keeps dying is given up and its batch fails with a reason', async () => {
    // One attempt only: after the kill, the next worker gives the job up instead of running it. The
    // workers queue the batch's scan jobs, so they carry the limit too.
    const oneAttempt = { BULWARK_JOB_MAX_ATTEMPTS: '1' };
    const batchId = await createBatch(oneShotApp);
    await killMidScan(batchId, oneAttempt);
    startWorker(oneAttempt);
    const batch = await terminal(batchId, 90);
    assert.equal(batch.status, 'failed');
    assert.match(batch.error_message ?? '', /could not be completed/);
    const scans = await db().selectFrom('scans').select(['status', 'status_reason']).where('batch_id', '=', batchId).execute();
    assert.ok(scans.every((s) => s.status === 'failed' && s.status_reason));
  });
});
