import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ChangeEpoch } from '../store/change-epoch.ts';
import { VersionedCache } from '../store/versioned-cache.ts';

export const DEFAULT_PAGE_CACHE_BYTES = 64 * 1024 * 1024;

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's answer to a GET is a function of the caller's organization, the URL and what the
     * database holds, nothing else (no clock, no per-key detail): a 200 is kept and served again until
     * the database changes.
     */
    cachedPerOrganization?: boolean;
  }
  interface FastifyRequest {
    /** Keeps `body` as this request's answer, to be served again until the data changes; null when the answer is not to be kept. */
    keepAnswer: ((body: Buffer) => void) | null;
  }
}

/**
 * Answers a list read asked again before anything changed from the bytes it was answered with: polling
 * clients (agents following the event feed, dashboards, CLIs) ask the same pages over and over. An
 * answer is kept under the change epoch read before its data was, and served while the epoch stays the
 * same: any commit, by this process or another sharing the database, moves it (change-epoch.ts).
 * Authentication, scopes and request limits still run for every request; only the reads and the
 * serialization are saved.
 */
export const pageCachePlugin = fp(async (app: FastifyInstance, options: { changes: ChangeEpoch; maxBytes: number }) => {
  const { changes } = options;
  if (options.maxBytes <= 0) return;
  const pages = new VersionedCache<Buffer>(options.maxBytes, (body) => body.byteLength);
  app.decorateRequest('keepAnswer', null);

  app.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'GET' || !request.routeOptions.config?.cachedPerOrganization || !request.principal) return done();
    const epoch = changes.current();
    if (epoch === null) return done();
    const key = `${request.principal.orgId} ${request.url}`;
    const body = pages.get(key, epoch);
    // Answered here, the request goes no further: done() is not called.
    if (body) return void reply.type('application/json; charset=utf-8').send(body);
    request.keepAnswer = (body) => pages.set(key, epoch, body);
    done();
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.keepAnswer || reply.statusCode !== 200 || typeof payload !== 'string') return done(null, payload);
    const body = Buffer.from(payload);
    request.keepAnswer(body);
    done(null, body);
  });
});

/**
 * Passes a streamed answer's pieces through, and keeps the whole answer for the request when it ends
 * within `maxBytes` (a large one is only ever streamed). Pieces are copied, as their buffers may be reused.
 */
export async function* keptWhenSmall(request: FastifyRequest, pieces: AsyncIterable<Buffer | string>, maxBytes: number): AsyncGenerator<Buffer | string> {
  const keep = request.keepAnswer;
  if (!keep) return yield* pieces;
  let copies: Buffer[] | null = [];
  let size = 0;
  for await (const piece of pieces) {
    if (copies) {
      const copy = Buffer.from(piece);
      size += copy.byteLength;
      if (size <= maxBytes) copies.push(copy);
      else copies = null;
    }
    yield piece;
  }
  if (copies) keep(Buffer.concat(copies, size));
}
