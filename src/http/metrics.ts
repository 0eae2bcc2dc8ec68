import crypto from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { errors } from '../core/errors.ts';
import { installErrorHandling } from './errors.ts';
import type { Metrics } from '../observability/metrics.ts';

const digest = (text: string) => crypto.createHash('sha256').update(text).digest();

/**
 * Request latency per route template for every request answered after this call, and `GET /metrics`
 * in Prometheus' text format. With a token set, a scrape must send it as a Bearer token.
 */
export function installMetrics(app: FastifyInstance, metrics: Metrics, token: string | null): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (token) {
      const presented = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
      if (!crypto.timingSafeEqual(digest(presented), digest(token))) throw errors.unauthorized('A valid metrics token is required');
    }
    const { contentType, body } = await metrics.text();
    return reply.type(contentType).send(body);
  });
}

/**
 * `GET /metrics` alone, for a `bulwark worker` process: its job durations and outcomes live in its own
 * memory, so a Prometheus server scrapes each worker as well as each API server.
 */
export async function listenForMetrics(metrics: Metrics, token: string | null, host: string, port: number): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false });
  installErrorHandling(app);
  installMetrics(app, metrics, token);
  await app.listen({ host, port });
  const address = app.server.address();
  const bound = address && typeof address === 'object' ? address.port : port;
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics`, close: () => app.close() };
}
