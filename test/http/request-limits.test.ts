import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { loadSettings } from '../../src/config.ts';
import type { Unit } from '../../src/core/units.ts';
import { buildApp } from '../../src/http/app.ts';
import { KeyLimiter, type RequestLimits } from '../../src/http/request-limits.ts';
import { createHarness, type Harness, type TestOrg } from '../support/api.ts';

// Timeouts and per-key limits, against a real listening server: a slow body is dropped, an answer given
// before the body was read closes the connection, and one key past its limits gets 429 with Retry-After
// while other keys go on.

const LIMITS: RequestLimits = {
  headersTimeoutSeconds: 1,
  requestTimeoutSeconds: 2,
  keepAliveTimeoutSeconds: 5,
  socketTimeoutSeconds: 30,
  rateLimitPerMinute: 0,
  maxConcurrentRequestsPerKey: 0,
};

async function listen(h: Harness, limits: RequestLimits): Promise<{ app: FastifyInstance; port: number }> {
  const app = await buildApp({ store: h.database.store, limits });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  assert.ok(address && typeof address === 'object');
  return { app, port: address.port };
}

interface SlowRequest {
  socket: net.Socket;
  /** What the server has sent so far. */
  received(): string;
  /** Everything the server sent, once it closed the connection (or the test's own deadline passed). */
  closed: Promise<{ response: string; closedByServer: boolean; bytesSent: number }>;
}

/**
 * A POST that declares a 1,000-byte body and sends it one byte every 100 ms (100 s in all): the server
 * must answer and close long before. Gives up after 20 s so the test always ends.
 */
function slowPost(port: number, path: string, key: string | null): SlowRequest {
  const socket = net.connect(port, '127.0.0.1');
  let response = '';
  let bytesSent = 0;
  let closedByServer = false;
  const closed = new Promise<{ response: string; closedByServer: boolean; bytesSent: number }>((resolve) => {
    const trickle = setInterval(() => {
      if (!socket.writable) return;
      socket.write('x');
      bytesSent++;
    }, 100);
    const deadline = setTimeout(() => socket.destroy(), 20_000);
    socket.on('data', (chunk) => (response += chunk.toString()));
    socket.on('end', () => (closedByServer = true));
    socket.on('error', () => (closedByServer = true));
    socket.on('close', () => {
      clearInterval(trickle);
      clearTimeout(deadline);
      resolve({ response, closedByServer, bytesSent });
    });
  });
  const auth = key ? `Authorization: Bearer ${key}\r\n` : '';
  socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n${auth}\r\n{`);
  return { socket, closed, received: () => response };
}

async function get(port: number, path: string, key: string) {
  return fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${key}` } });
}

describe('request limits', () => {
  let h: Harness;
  let org: TestOrg;
  let unit: Unit;

  before(async () => {
    h = await createHarness();
    org = await h.org('limits');
    unit = await h.unit(org, ['github:acme/limits@main']);
  });
  after(async () => h.close());

  describe('timeouts', () => {
    let server: { app: FastifyInstance; port: number };
    before(async () => (server = await listen(h, LIMITS)));
    after(async () => server.app.close());

    test('a body sent too slowly is dropped with 408, and nothing is stored', async () => {
      const { closed } = slowPost(server.port, `/api/v1/repositories/${unit.id}/scans`, org.key);
      const { response, closedByServer, bytesSent } = await closed;
      assert.ok(closedByServer, 'the server closed the connection');
      assert.ok(bytesSent < 999, `the body was never completed (${bytesSent} bytes sent)`);
      assert.match(response, /^HTTP\/1\.1 408/);
      const list = (await (await get(server.port, `/api/v1/repositories/${unit.id}/scans`, org.key)).json()) as { total: number };
      assert.equal(list.total, 0);
    });

    test('a 401 is answered before the body is read, and the connection is closed', async () => {
      const { closed } = slowPost(server.port, `/api/v1/repositories/${unit.id}/scans`, null);
      const { response, closedByServer, bytesSent } = await closed;
      assert.ok(closedByServer);
      assert.ok(bytesSent < 999);
      assert.match(response, /^HTTP\/1\.1 401/);
      assert.match(response, /\r\nconnection: close\r\n/i);
      assert.match(response, /"error_code":"UNAUTHORIZED"/);
    });

    test('so is a 403 for a key without the scope', async () => {
      const reader = await h.key(org, ['read']);
      const { response, closedByServer } = await slowPost(server.port, `/api/v1/repositories/${unit.id}/scans`, reader.key).closed;
      assert.ok(closedByServer);
      assert.match(response, /^HTTP\/1\.1 403/);
      assert.match(response, /\r\nconnection: close\r\n/i);
    });

    test('a request sent in time keeps its connection', async () => {
      const res = await get(server.port, `/api/v1/repositories/${unit.id}/scans`, org.key);
      assert.equal(res.status, 200);
      assert.notEqual(res.headers.get('connection'), 'close');
    });

    test('requests without a body keep their connection, answered from the page cache or not', async () => {
      // GETs one after the other on one connection, each sent once the last was answered: none is answered
      // with `connection: close`, not even one a hook answers before Node has seen the end of its message
      // (a page and a key both remembered).
      const socket = net.connect(server.port, '127.0.0.1');
      const paths = ['/api/v1/me', `/api/v1/repositories/${unit.id}/scans`, `/api/v1/repositories/${unit.id}/scans`, `/api/v1/repositories/${unit.id}/scans`];
      let text = '';
      let answered: () => void = () => {};
      socket.on('data', (chunk) => {
        text += chunk.toString();
        if (/\r\n\r\n[\s\S]*\}$/.test(text.slice(text.lastIndexOf('HTTP/1.1 ')))) answered();
      });
      const closed = new Promise((resolve) => socket.on('close', resolve));
      try {
        for (const [i, p] of paths.entries()) {
          const answer = new Promise<void>((resolve, reject) => {
            answered = () => ((text.match(/HTTP\/1\.1 \d{3} /g) ?? []).length > i ? resolve() : undefined);
            setTimeout(() => reject(new Error(`no answer to request ${i + 1} on the connection: ${text.slice(-300)}`)), 5_000);
            closed.then(() => reject(new Error(`the server closed the connection after ${i} answers: ${text.slice(-300)}`)));
          });
          socket.write(`GET ${p} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${org.key}\r\n\r\n`);
          await answer;
        }
      } finally {
        socket.destroy();
      }
      assert.equal((text.match(/HTTP\/1\.1 200 /g) ?? []).length, paths.length);
      assert.doesNotMatch(text, /\r\nconnection: close\r\n/i);
    });
  });

  describe('per-key limits', () => {
    test('past the per-minute allowance: 429 RATE_LIMITED with Retry-After; another key goes on', async () => {
      const server = await listen(h, { ...LIMITS, rateLimitPerMinute: 3 });
      try {
        const other = await h.key(org, ['read'], 'other');
        for (let i = 0; i < 3; i++) assert.equal((await get(server.port, '/api/v1/me', org.key)).status, 200);
        const refused = await get(server.port, '/api/v1/me', org.key);
        assert.equal(refused.status, 429);
        const retryAfter = Number(refused.headers.get('retry-after'));
        assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${refused.headers.get('retry-after')}`);
        const body = (await refused.json()) as { detail: { error_code: string; retry_after_seconds: number } };
        assert.equal(body.detail.error_code, 'RATE_LIMITED');
        assert.equal(body.detail.retry_after_seconds, retryAfter);
        assert.equal((await get(server.port, '/api/v1/me', other.key)).status, 200);
        // Requests outside the API are not counted.
        assert.equal((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status, 200);
      } finally {
        await server.app.close();
      }
    });

    test('past the requests-at-once cap: 429 until one ends; another key goes on', async () => {
      // Generous timeouts: the held requests must stay open however slowly a loaded machine serves them.
      const server = await listen(h, { ...LIMITS, headersTimeoutSeconds: 20, requestTimeoutSeconds: 30, maxConcurrentRequestsPerKey: 2 });
      try {
        const other = await h.key(org, ['read'], 'other');
        // Two requests of the key, authenticated and still sending their bodies: both hold a slot. A probe
        // that the server takes in between can leave one of them refused instead; it is replaced, so in
        // the end both hold their slots whatever the order the server took things in.
        const held: SlowRequest[] = [];
        const holdTwo = () => {
          for (const request of held.filter((r) => r.received() !== '')) {
            request.socket.destroy();
            held.splice(held.indexOf(request), 1);
          }
          while (held.length < 2) held.push(slowPost(server.port, `/api/v1/repositories/${unit.id}/scans`, org.key));
        };
        let refused: Response | undefined;
        const until = Date.now() + 15_000;
        while (refused?.status !== 429 && Date.now() < until) {
          holdTwo();
          await new Promise((resolve) => setTimeout(resolve, 50));
          refused = await get(server.port, '/api/v1/me', org.key);
        }
        assert.equal(refused?.status, 429, `the held requests were answered: ${JSON.stringify(held.map((r) => r.received()))}`);
        assert.ok(Number(refused!.headers.get('retry-after')) >= 1);
        assert.equal(((await refused!.json()) as { detail: { error_code: string } }).detail.error_code, 'RATE_LIMITED');
        assert.equal((await get(server.port, '/api/v1/me', other.key)).status, 200);

        for (const request of held) request.socket.destroy();
        await Promise.all(held.map((request) => request.closed));
        let status = 0;
        const settled = Date.now() + 15_000;
        while (status !== 200 && Date.now() < settled) {
          status = (await get(server.port, '/api/v1/me', org.key)).status;
          if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.equal(status, 200, 'the slots came back when their connections closed');
      } finally {
        await server.app.close();
      }
    });

    test('the bucket refills with time, and slots are given back once', () => {
      let now = 0;
      const limiter = new KeyLimiter(60, 1, () => now);
      const first = limiter.acquire('k');
      assert.ok('release' in first);
      assert.ok('why' in limiter.acquire('k'), 'a second request at once is refused');
      first.release();
      first.release();
      const slots = [];
      for (let i = 0; i < 59; i++) {
        const slot = limiter.acquire('k');
        assert.ok('release' in slot, `request ${i + 2}`);
        slot.release();
        slots.push(slot);
      }
      const refused = limiter.acquire('k');
      assert.ok('why' in refused);
      assert.equal(refused.retryAfterSeconds, 1);
      now += 1000;
      assert.ok('release' in limiter.acquire('k'), 'a second later one more is allowed');
    });
  });

  test('the settings come from the environment, with defaults', () => {
    const defaults = loadSettings({});
    assert.equal(defaults.rateLimitPerMinute, 600);
    assert.equal(defaults.maxConcurrentRequestsPerKey, 16);
    assert.equal(defaults.socketTimeoutSeconds, 360);
    const set = loadSettings({ BULWARK_RATE_LIMIT_PER_MINUTE: '0', BULWARK_MAX_CONCURRENT_REQUESTS_PER_KEY: '4', BULWARK_REQUEST_TIMEOUT_SECONDS: '10', BULWARK_HEADERS_TIMEOUT_SECONDS: '5' });
    assert.deepEqual([set.rateLimitPerMinute, set.maxConcurrentRequestsPerKey, set.requestTimeoutSeconds, set.headersTimeoutSeconds], [0, 4, 10, 5]);
    assert.throws(() => loadSettings({ BULWARK_REQUEST_TIMEOUT_SECONDS: '5', BULWARK_HEADERS_TIMEOUT_SECONDS: '10' }), /must not exceed/);
  });
});
