import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { RequestCancelledError } from '../../src/core/cancellation.ts';
import { cancellationPlugin } from '../../src/http/cancellation.ts';
import { createTestDatabase, type TestDatabase } from '../support/store.ts';

// A request whose client hangs up is abandoned: the store refuses the queries it would still send. A request
// answered in full is not: work it does after its answer (a last-used time, a log) still reaches the store.

describe('a request whose client has gone', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let port: number;
  /** What the query each route sends after its wait did: 'ran', or the error's name. */
  const outcomes = new Map<string, Promise<string>>();

  const query = () => database.store.db.selectFrom('organizations').select('id').execute();
  const outcomeOf = (run: Promise<unknown>) => run.then(() => 'ran', (error: Error) => (error instanceof RequestCancelledError ? 'cancelled' : error.message));

  before(async () => {
    database = await createTestDatabase();
    app = Fastify();
    await app.register(cancellationPlugin);
    app.get('/waits-for-hang-up', async (request, reply) => {
      await query();
      const until = Date.now() + 10_000;
      while (!reply.raw.destroyed && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
      const outcome = outcomeOf(query());
      outcomes.set(request.url, outcome);
      await outcome;
      return {};
    });
    app.get('/answers-then-queries', async (request, reply) => {
      reply.raw.once('finish', () => setTimeout(() => outcomes.set(request.url, outcomeOf(query())), 50));
      return { ok: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as net.AddressInfo).port;
  });

  after(async () => {
    await app.close();
    await database.cleanup();
  });

  /** Sends a GET and hangs up at once, or after reading the answer when `readAnswer`. */
  const get = (path: string, readAnswer: boolean) =>
    new Promise<void>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
        if (!readAnswer) setTimeout(() => socket.destroy(), 50);
      });
      socket.on('data', () => readAnswer && socket.destroy());
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });

  const outcome = async (path: string) => {
    const until = Date.now() + 10_000;
    while (!outcomes.has(path) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(outcomes.has(path), `${path} sent no query`);
    return outcomes.get(path);
  };

  test('sends no further query to the store', async () => {
    await get('/waits-for-hang-up', false);
    assert.equal(await outcome('/waits-for-hang-up'), 'cancelled');
  });

  test('once answered in full, still reaches the store after its client left', async () => {
    await get('/answers-then-queries', true);
    assert.equal(await outcome('/answers-then-queries'), 'ran');
  });
});
