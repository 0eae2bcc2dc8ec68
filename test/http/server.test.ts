import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { loadSettings } from '../../src/config.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createTestDatabase, type TestDatabase } from '../support/store.ts';

describe('starting the server', () => {
  let database: TestDatabase;
  let server: RunningServer | undefined;
  const lines: string[] = [];
  const logs: string[] = [];
  before(async () => {
    database = await createTestDatabase();
    await database.store.close();
  });
  after(async () => {
    await server?.close();
    await database.cleanup().catch(() => {});
  });

  const start = async (on: TestDatabase = database) => {
    const logStream = new PassThrough();
    logStream.on('data', (chunk) => logs.push(String(chunk)));
    const settings = loadSettings({ ...on.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'debug' });
    return startServer(settings, { print: (line) => lines.push(line), logStream });
  };

  test('first start on an empty database prints its URL and a one-time admin key that works', async () => {
    server = await start();
    assert.match(lines[0], /^Bulwark listening on http:\/\/127\.0\.0\.1:\d+/);
    const key = lines.join('\n').match(/bwk_[A-Za-z0-9_-]{40}/)?.[0];
    assert.ok(key, 'an admin key is printed');

    const me = await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(me.status, 200);
    const body = (await me.json()) as { organization_slug: string; api_key: { scopes: string[] } };
    assert.equal(body.organization_slug, 'default');
    assert.deepEqual(body.api_key.scopes, ['read', 'scan:write', 'finding:write', 'fix:write', 'pr:write']);

    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal(((await ready.json()) as { status: string }).status, 'ready');
    const docs = await fetch(`${server.url}/docs/`);
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /swagger/i);
    const openapi = (await (await fetch(`${server.url}/openapi.json`)).json()) as { openapi: string; paths: object };
    assert.equal(openapi.openapi, '3.1.0');
    assert.ok('/api/v1/repositories/{repository_id}/scans' in openapi.paths);

    await new Promise((resolve) => setTimeout(resolve, 50));
    const logText = logs.join('');
    assert.ok(logText.includes('/api/v1/me'), 'requests are logged');
    assert.ok(!logText.includes(key), 'the API key never reaches the logs');
    await server.close();
    server = undefined;
  });

  test('a later start keeps the data and prints no new key', async () => {
    // A database of its own, started twice here, so it does not rely on the test above having run first.
    const own = await createTestDatabase();
    await own.store.close();
    let running: RunningServer | undefined;
    try {
      lines.length = 0;
      running = await start(own);
      const key = lines.join('\n').match(/bwk_[A-Za-z0-9_-]{40}/)?.[0];
      assert.ok(key, 'the first start prints a key');
      await running.close();
      running = undefined;

      lines.length = 0;
      running = await start(own);
      assert.match(lines[0], /^Bulwark listening on /);
      assert.ok(!/bwk_/.test(lines.join('\n')), 'no new key');
      const me = await fetch(`${running.url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(me.status, 200, 'the key of the first start still works');
    } finally {
      await running?.close();
      await own.cleanup().catch(() => {});
    }
  });
});
