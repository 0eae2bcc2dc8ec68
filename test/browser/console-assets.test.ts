// The console's static files (src/http/console-assets.ts) on a bare Fastify app beside stand-in API routes:
// index.html for the console's paths, cached assets, the API's own 404s untouched, 503 without a build.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import Fastify from 'fastify';
import { consoleAssetsPlugin } from '../../src/http/console-assets.ts';

async function appServing(dist: string) {
  const app = Fastify();
  app.setNotFoundHandler((request, reply) => reply.status(404).send({ detail: { detail: `Route ${request.method} ${request.url} not found`, error_code: 'NOT_FOUND' } }));
  app.get('/api/v1/me', async () => ({ ok: true }));
  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.register(consoleAssetsPlugin, { dist });
  return app;
}

describe('console assets', () => {
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-console-dist-'));
  after(() => fs.rmSync(dist, { recursive: true, force: true }));

  test('without a build, console paths answer 503 naming the build command and API paths are untouched', async () => {
    const app = await appServing(path.join(dist, 'missing'));
    const page = await app.inject({ method: 'GET', url: '/orgs/o1/findings' });
    assert.equal(page.statusCode, 503);
    assert.match(page.body, /npm run build:console/);
    assert.equal((await app.inject({ method: 'GET', url: '/api/v1/me' })).statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/api/v1/nope' })).statusCode, 404);
    await app.close();
  });

  test('with a build: index.html for console paths, long-cached assets, 404 for paths the API owns', async () => {
    fs.mkdirSync(path.join(dist, 'assets'), { recursive: true });
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Bulwark</title><div id="root"></div>');
    fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
    fs.writeFileSync(path.join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    const app = await appServing(dist);

    for (const url of ['/', '/login', '/device?user_code=ABCD-EFGH', '/orgs/o1/settings/api-keys']) {
      const res = await app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.match(res.body, /<div id="root">/, url);
      assert.equal(res.headers['cache-control'], 'no-cache', url);
      assert.match(String(res.headers['content-type']), /text\/html/, url);
      assert.match(String(res.headers['content-security-policy']), /script-src 'self';/, url);
    }
    const asset = await app.inject({ method: 'GET', url: '/assets/index-abc123.js' });
    assert.equal(asset.statusCode, 200);
    assert.match(String(asset.headers['cache-control']), /max-age=31536000.*immutable/);
    assert.equal((await app.inject({ method: 'GET', url: '/assets/missing.js' })).statusCode, 404);
    assert.equal((await app.inject({ method: 'GET', url: '/favicon.svg' })).statusCode, 200);

    for (const url of ['/api/v1/nope', '/docs/nope', '/oauth/nope', '/device-authorizations/ABCD', '/console/api/nope', '/metrics', '/healthzz']) {
      const res = await app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.json().detail.error_code, 'NOT_FOUND', url);
    }
    assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    assert.equal((await app.inject({ method: 'POST', url: '/orgs/o1' })).statusCode, 404, 'only GET serves the console');
    await app.close();
  });
});
