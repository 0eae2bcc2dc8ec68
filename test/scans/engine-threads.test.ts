import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SastEngine } from '../../src/scanning/sast/sast-engine.ts';
import { SecretsEngine } from '../../src/scanning/secrets/secrets-engine.ts';
import { SECRET_RULES } from '../../src/scanning/secrets/rules.ts';
import { EngineThreadError, WorkerPool } from '../../src/scanning/worker-pool.ts';
import { positiveSample } from '../support/secret-samples.ts';

// Engines do their CPU work in worker threads so that scans never hold the API's event loop. What the
// threads find must be exactly what the engine finds in the calling thread, and a thread that fails must
// fail the scan with its reason instead of leaving it waiting.

const TASKS = new URL('../support/thread-tasks.ts', import.meta.url);
const fingerprintKey = Buffer.alloc(32, 7);

const HANDLER = (n: number) => `from flask import request
import os

@app.route("/run${n}")
def run${n}():
    host = request.args.get("host")
    os.system("ping " + host)
    cur.execute("SELECT * FROM t WHERE id = '%s'" % request.args["id"])
`;

const ROUTE = (n: number) => `app.get('/orders${n}', async (req, res) => {
  const rows = await pool.query(\`SELECT * FROM orders WHERE customer = '\${req.query.customer}'\`);
  res.send('<p>' + req.query.name + '</p>');
});
`;

describe('engine worker threads', () => {
  let dir: string;
  let pool: WorkerPool;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-threads-'));
    const aws = SECRET_RULES.find((r) => r.id.includes('aws'))!;
    for (let n = 0; n < 12; n++) {
      fs.mkdirSync(path.join(dir, `pkg${n % 3}`), { recursive: true });
      fs.writeFileSync(path.join(dir, `pkg${n % 3}`, `views${n}.py`), HANDLER(n));
      fs.writeFileSync(path.join(dir, `pkg${n % 3}`, `routes${n}.ts`), ROUTE(n));
    }
    fs.writeFileSync(path.join(dir, 'settings.py'), `AWS_KEY = "${positiveSample(aws, 1)}"\n`);
    pool = new WorkerPool(2);
  });

  after(async () => {
    await pool.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('SAST finds in threads exactly what it finds in this thread, in the same order', async () => {
    const inThread = await new SastEngine({ pool: null }).scan({ dir, fingerprintKey });
    const inPool = await new SastEngine({ pool }).scan({ dir, fingerprintKey });
    assert.ok(inThread.length >= 36, `expected findings in every file, got ${inThread.length}`);
    assert.deepEqual(inPool, inThread);
  });

  test('secrets detection finds in threads exactly what it finds in this thread', async () => {
    const inThread = await new SecretsEngine({ historyDepth: 0, pool: null }).scan({ dir, fingerprintKey });
    const inPool = await new SecretsEngine({ historyDepth: 0, pool }).scan({ dir, fingerprintKey });
    assert.equal(inThread.length, 1);
    assert.deepEqual(inPool, inThread);
  });

  test('a thread that runs out of memory fails the scan with that reason', { timeout: 60_000 }, async () => {
    const starved = new WorkerPool(1, { resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1 } });
    try {
      await assert.rejects(new SastEngine({ pool: starved }).scan({ dir, fingerprintKey }), (error: Error) => {
        assert.ok(error instanceof EngineThreadError, String(error));
        assert.match(error.message, /^an analysis thread failed: .*memory/i);
        return true;
      });
    } finally {
      await starved.close();
    }
  });

  test('a thread that exits fails its task with the reason, and the pool goes on with a new thread', { timeout: 60_000 }, async () => {
    const small = new WorkerPool(1);
    try {
      await assert.rejects(small.run(TASKS, 'exitThread', []), /^EngineThreadError: an analysis thread failed: it exited with code 7$/);
      assert.equal(await small.run(TASKS, 'double', [21]), 42);
    } finally {
      await small.close();
    }
  });

  test("a task's own error reaches the caller as it was thrown", async () => {
    await assert.rejects(pool.run(TASKS, 'refuse', []), { name: 'TypeError', message: 'this input is not supported' });
    assert.equal(await pool.run(TASKS, 'double', [4]), 8);
  });

  test('an aborted scan stops the work its thread was doing', { timeout: 60_000 }, async () => {
    const small = new WorkerPool(1);
    try {
      const controller = new AbortController();
      const running = small.run(TASKS, 'spin', [], controller.signal);
      setTimeout(() => controller.abort(new Error('the scan was cancelled')), 100);
      await assert.rejects(running, /the scan was cancelled/);
      assert.equal(await small.run(TASKS, 'double', [1]), 2);
    } finally {
      await small.close();
    }
  });
});
