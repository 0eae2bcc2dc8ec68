import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { after, afterEach, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { loadSettings } from '../../src/config.ts';
import { createApiKey } from '../../src/core/api-keys.ts';
import { createOrganization } from '../../src/core/organizations.ts';
import { SCOPES } from '../../src/core/scopes.ts';
import { parseSourceSpec } from '../../src/core/source-repos.ts';
import { addUnit, type Unit } from '../../src/core/units.ts';
import { TokenBox } from '../../src/crypto/token-box.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { buildApp } from '../../src/http/app.ts';
import { openServices, type Services } from '../../src/services.ts';
import { testCloneUrlPolicy } from '../support/api.ts';
import { TestRepo } from '../support/git-repo.ts';
import { positiveSample } from '../support/secret-samples.ts';
import { createTestDatabase, TEST_DATABASE, type TestDatabase } from '../support/store.ts';
import { waitFor } from '../support/helpers.ts';

// An API node that runs no jobs and two real `bulwark worker` processes sharing its database (pg-boss on
// PostgreSQL, the embedded queue's shared file on SQLite); one worker is killed in the middle of a job.

const ENCRYPTION_KEY = Buffer.alloc(32, 11).toString('hex');
// pg-boss heartbeats cannot be shorter than 10 seconds.
const LEASE_SECONDS = TEST_DATABASE === 'postgres' ? '10' : '2';
const PLANTED = ['github-pat', 'slack-bot-token'];
const SOURCES_PER_APPLICATION = 3;

interface JobLine {
  event: 'started' | 'completed' | 'failed';
  kind: string;
  key: string;
}

class Worker {
  readonly child: ChildProcess;
  readonly jobs: JobLine[] = [];
  private buffered = '';

  constructor(child: ChildProcess) {
    this.child = child;
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      this.buffered += chunk;
      const lines = this.buffered.split('\n');
      this.buffered = lines.pop() ?? '';
      for (const line of lines) {
        const match = /^job (started|completed|failed) (\{.*\})$/.exec(line);
        if (match) this.jobs.push({ event: match[1] as JobLine['event'], ...(JSON.parse(match[2]) as { kind: string; key: string }) });
      }
    });
    child.stderr!.resume();
  }

  started(kind: string): string[] {
    return this.jobs.filter((j) => j.event === 'started' && j.kind === kind).map((j) => j.key);
  }

  /** Jobs this worker started and has not finished. */
  running(kind: string): string[] {
    const ended = new Set(this.jobs.filter((j) => j.event !== 'started' && j.kind === kind).map((j) => j.key));
    return this.started(kind).filter((key) => !ended.has(key));
  }
}

describe('work spreads across worker processes sharing one database', () => {
  let database: TestDatabase;
  let services: Services;
  let app: FastifyInstance;
  let key: string;
  const units: Unit[] = [];
  const repos: TestRepo[] = [];
  const children = new Set<ChildProcess>();

  before(async () => {
    database = await createTestDatabase();
    const env = { ...database.env, BULWARK_ENCRYPTION_KEY: ENCRYPTION_KEY, BULWARK_JOB_LEASE_SECONDS: LEASE_SECONDS };
    // The API node only queues jobs: its services are opened, its workers never started.
    services = await openServices(loadSettings(env), database.store);
    app = await buildApp({ store: database.store, dispatchBatch: services.dispatchBatch });
    const org = await createOrganization(database.store.db, { name: 'spread' });
    key = (await createApiKey(database.store.db, { orgId: org.id, name: 'k', scopes: [...SCOPES] })).key;
    const tokenBox = new TokenBox(Buffer.from(ENCRYPTION_KEY, 'hex'));
    for (let a = 0; a < 4; a++) {
      const sources = [];
      for (let s = 0; s < SOURCES_PER_APPLICATION; s++) {
        const repo = TestRepo.create();
        const files: Record<string, string> = {};
        PLANTED.forEach((id, i) => {
          const sample = positiveSample(SECRET_RULES.find((r) => r.id === id)!, 700 + a * 50 + s * 10 + i);
          files[`src/config-${i}.js`] = `export const credential = "${sample}";\n`;
        });
        repo.commit(files, 'add configuration');
        repos.push(repo);
        sources.push({ ...parseSourceSpec(`github:acme/app${a}-svc${s}@main`), cloneUrl: repo.url });
      }
      units.push(await addUnit(database.store.db, tokenBox, { orgId: org.id, name: `app-${a}`, sources }, testCloneUrlPolicy));
    }
  });

  after(async () => {
    await stopAll();
    await app.close();
    await services.close();
    await database.cleanup();
    for (const repo of repos) repo.remove();
  });

  afterEach(() => stopAll());

  /** A worker process, once it is taking jobs. */
  async function readyWorker(extraEnv: Record<string, string> = {}): Promise<Worker> {
    const worker = startWorker(extraEnv);
    let printed = '';
    let complained = '';
    worker.child.stderr!.on('data', (chunk: Buffer) => (complained += chunk));
    await new Promise<void>((resolve, reject) => {
      worker.child.stdout!.on('data', (chunk: string) => {
        printed += chunk;
        if (printed.includes('Bulwark worker running')) resolve();
      });
      worker.child.once('exit', (code) => reject(new Error(`the worker exited (${code}) before taking jobs: ${complained.trim()}`)));
    });
    return worker;
  }

  function startWorker(extraEnv: Record<string, string> = {}): Worker {
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
    return new Worker(child);
  }

  async function stopAll() {
    const exits = [...children].map((child) => new Promise((resolve) => child.once('exit', resolve)));
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(exits);
  }


  async function createBatch(unit: Unit): Promise<string> {
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/repositories/${unit.id}/scans`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ scan_type: 'secrets_scan' }),
    });
    assert.equal(res.statusCode, 202, res.body);
    return res.json().batch_id;
  }

  const db = () => database.store.db;

  test('both workers take jobs, and a killed worker’s job finishes on the other', async () => {
    // Slow scans keep each job running long enough to see both workers busy and to kill one mid-job.
    const doomed = startWorker({ BULWARK_FAULT_SCAN_DELAY_MS: '4000' });
    const survivor = startWorker({ BULWARK_FAULT_SCAN_DELAY_MS: '1000' });
    const batchIds: string[] = [];
    for (const unit of units) batchIds.push(await createBatch(unit));

    const everyJobKey = new Set<string>();
    const all = () => [...doomed.jobs, ...survivor.jobs];
    const killedKey = await waitFor('both workers to be running a job', 60, () => {
      const doomedKeys = doomed.running('scan');
      return doomedKeys.length && survivor.started('scan').length ? doomedKeys[0] : undefined;
    });
    doomed.child.kill('SIGKILL');
    await new Promise((resolve) => doomed.child.once('exit', resolve));
    assert.ok(!doomed.jobs.some((j) => j.key === killedKey && j.event !== 'started'), 'the killed worker did not finish its job');

    const batches = await waitFor('every batch to end', 120, async () => {
      const rows = await db().selectFrom('scan_batches').selectAll().where('id', 'in', batchIds).execute();
      return rows.every((b) => ['completed', 'partial_failure', 'failed'].includes(b.status)) ? rows : undefined;
    });
    for (const batch of batches) assert.equal(batch.status, 'completed', batch.error_message ?? '');
    const scanIds = (await db().selectFrom('scans').select('id').where('batch_id', 'in', batchIds).execute()).map((s) => s.id);
    // These workers may also run a job another test of this file left behind (tests run in any order):
    // only this test's scans count.
    for (const line of all()) if (line.kind === 'scan' && scanIds.includes(line.key)) everyJobKey.add(line.key);
    assert.deepEqual([...everyJobKey].sort(), scanIds.sort(), 'one scan job per source repository of every batch');
    assert.ok(survivor.started('scan').includes(killedKey), 'the surviving worker ran the killed worker’s job');
    assert.ok(survivor.jobs.some((j) => j.key === killedKey && j.event === 'completed'));

    // Findings exactly once: one per planted secret per repository, one detected event each.
    for (const unit of units) {
      const findings = await db().selectFrom('findings').select(['id', 'fingerprint']).where('unit_id', '=', unit.id).execute();
      assert.equal(findings.length, PLANTED.length * SOURCES_PER_APPLICATION, `findings of ${unit.name}`);
      assert.equal(new Set(findings.map((f) => f.fingerprint)).size, findings.length);
      const detected = await db().selectFrom('finding_events').select('finding_id').where('event_type', '=', 'detected').where('unit_id', '=', unit.id).execute();
      assert.equal(detected.length, findings.length, `one detected event per finding of ${unit.name}`);
      // This test's batches only: the other tests of the file scan the same applications, in any order.
      const scans = await db().selectFrom('scans').selectAll().where('unit_id', '=', unit.id).where('batch_id', 'in', batchIds).execute();
      assert.equal(scans.length, SOURCES_PER_APPLICATION);
      assert.ok(scans.every((s) => s.status === 'completed' && s.findings_count === PLANTED.length));
    }
  });

  test('the repositories of one application are scanned on both workers at once', async () => {
    const unit = units[0];
    const first = await readyWorker({ BULWARK_FAULT_SCAN_DELAY_MS: '3000' });
    const second = await readyWorker({ BULWARK_FAULT_SCAN_DELAY_MS: '3000' });
    const batchId = await createBatch(unit);
    const batch = await waitFor('the batch to end', 90, async () => {
      const row = await db().selectFrom('scan_batches').selectAll().where('id', '=', batchId).executeTakeFirstOrThrow();
      return ['completed', 'partial_failure', 'failed'].includes(row.status) ? row : undefined;
    });
    assert.equal(batch.status, 'completed', batch.error_message ?? '');
    const scans = await db().selectFrom('scans').selectAll().where('batch_id', '=', batchId).execute();
    assert.equal(scans.length, SOURCES_PER_APPLICATION);
    const ran = (worker: Worker) => scans.filter((s) => worker.started('scan').includes(s.id));
    assert.ok(ran(first).length > 0 && ran(second).length > 0, 'each worker scanned a repository of the batch');
    assert.equal(ran(first).length + ran(second).length, SOURCES_PER_APPLICATION, 'each scan ran once');
    // Each worker runs one scan at a time, so scans of different workers overlapping means in parallel.
    const overlapping = ran(first).some((a) => ran(second).some((b) => a.started_at! < b.completed_at! && b.started_at! < a.completed_at!));
    assert.ok(overlapping, 'the two workers scanned at the same time');
    // The batch ends inside the conclusion job, a moment before the worker logs the job's end.
    const concluded = await waitFor('the conclusion job to be logged', 30, () => {
      const lines = [...first.jobs, ...second.jobs].filter((j) => j.kind === 'scan-batch-conclude' && j.key === batchId && j.event === 'completed');
      return lines.length ? lines : undefined;
    });
    assert.equal(concluded.length, 1, 'the batch was concluded once');
  });

  test('a worker stopped with SIGTERM hands back its running job, which another worker finishes, and exits', async () => {
    const unit = units[1];
    const stopping = await readyWorker({ BULWARK_FAULT_SCAN_DELAY_MS: '60000' });
    const batchId = await createBatch(unit);
    const interrupted = await waitFor('a scan to reach the engine', 60, async () => {
      const scan = await db().selectFrom('scans').select(['id', 'status']).where('batch_id', '=', batchId).where('status', '=', 'scanning').executeTakeFirst();
      return scan && stopping.running('scan').includes(scan.id) ? scan.id : undefined;
    });
    const exited = new Promise<number | null>((resolve) => stopping.child.once('exit', (code) => resolve(code)));
    stopping.child.kill('SIGTERM');
    assert.equal(await exited, 0, 'the worker exits cleanly');
    assert.ok(!stopping.jobs.some((j) => j.key === interrupted && j.event === 'completed'), 'the job did not complete on the stopped worker');
    if (TEST_DATABASE === 'sqlite') {
      // The embedded queue hands the job back at once rather than leaving it to its lease.
      const job = await db().selectFrom('jobs').select(['state', 'lease_until']).where('kind', '=', 'scan').where('key', '=', interrupted).executeTakeFirstOrThrow();
      assert.deepEqual({ ...job }, { state: 'queued', lease_until: null });
    }

    const replacement = await readyWorker({});
    const batch = await waitFor('the batch to end', 90, async () => {
      const row = await db().selectFrom('scan_batches').selectAll().where('id', '=', batchId).executeTakeFirstOrThrow();
      return ['completed', 'partial_failure', 'failed'].includes(row.status) ? row : undefined;
    });
    assert.equal(batch.status, 'completed', batch.error_message ?? '');
    assert.ok(replacement.jobs.some((j) => j.key === interrupted && j.event === 'completed'), 'the other worker finished the handed-back job');
    const findings = await db().selectFrom('findings').select('fingerprint').where('unit_id', '=', unit.id).execute();
    assert.equal(findings.length, PLANTED.length * SOURCES_PER_APPLICATION);
    assert.equal(new Set(findings.map((f) => f.fingerprint)).size, findings.length);
  });
});
