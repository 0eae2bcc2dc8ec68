import type { IncomingMessage, ServerOptions } from 'node:http';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { Settings } from '../config.ts';
import { errors } from '../core/errors.ts';
import { withRequestOrg } from '../core/request-org.ts';

export type RequestLimits = Pick<
  Settings,
  'headersTimeoutSeconds' | 'requestTimeoutSeconds' | 'keepAliveTimeoutSeconds' | 'socketTimeoutSeconds' | 'rateLimitPerMinute' | 'maxConcurrentRequestsPerKey'
>;

/**
 * The server's timeouts as Fastify and Node take them. Node's `requestTimeout` bounds the whole request,
 * body included: a client that trickles its body is answered 408 and disconnected. Node looks for such
 * requests every `connectionsCheckingInterval` (30 s by default, which let a slow body hold a connection
 * for 330 s), so it looks as often as the shortest timeout allows.
 */
export function serverTimeouts(limits: RequestLimits): Partial<FastifyServerOptions> & { http: ServerOptions } {
  const headersTimeout = limits.headersTimeoutSeconds * 1000;
  const requestTimeout = limits.requestTimeoutSeconds * 1000;
  return {
    requestTimeout,
    keepAliveTimeout: limits.keepAliveTimeoutSeconds * 1000,
    connectionTimeout: limits.socketTimeoutSeconds * 1000,
    http: { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(5000, Math.max(250, headersTimeout / 4)) },
  };
}

type Slot = { release(): void };
type Refusal = { why: string; retryAfterSeconds: number };

/**
 * Per API key: at most `perMinute` requests a minute (a token bucket that refills continuously, so a
 * burst up to the minute's allowance is fine) and at most `concurrent` requests being worked on at once.
 *
 * In-process on purpose: @fastify/rate-limit is not a dependency, and it counts requests per window but
 * not requests in flight, which is what keeps one key's slow reads from taking the whole server. Each
 * server process counts its own requests; the state is one small entry per active key.
 */
export class KeyLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly inFlight = new Map<string, number>();

  private readonly perMinute: number;
  private readonly concurrent: number;
  private readonly now: () => number;

  constructor(perMinute: number, concurrent: number, now: () => number = Date.now) {
    this.perMinute = perMinute;
    this.concurrent = concurrent;
    this.now = now;
  }

  /** A slot for one request of `key`, to release when its response ends, or why not and when to retry. */
  acquire(key: string): Slot | Refusal {
    const running = this.inFlight.get(key) ?? 0;
    if (this.concurrent > 0 && running >= this.concurrent) {
      return { why: `at most ${this.concurrent} requests at once`, retryAfterSeconds: 1 };
    }
    if (this.perMinute > 0) {
      const now = this.now();
      const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, at: now };
      bucket.tokens = Math.min(this.perMinute, bucket.tokens + ((now - bucket.at) / 60_000) * this.perMinute);
      bucket.at = now;
      this.buckets.set(key, bucket);
      if (bucket.tokens < 1) {
        return { why: `at most ${this.perMinute} requests a minute`, retryAfterSeconds: Math.ceil(((1 - bucket.tokens) * 60) / this.perMinute) };
      }
      bucket.tokens -= 1;
      this.forgetFullBuckets(now);
    }
    this.inFlight.set(key, running + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const left = (this.inFlight.get(key) ?? 1) - 1;
        if (left > 0) this.inFlight.set(key, left);
        else this.inFlight.delete(key);
      },
    };
  }

  /** A bucket a minute old is full again: the same as no bucket. */
  private forgetFullBuckets(now: number) {
    if (this.buckets.size < 1000) return;
    for (const [key, bucket] of this.buckets) if (now - bucket.at >= 60_000) this.buckets.delete(key);
  }
}

/**
 * Whether a request's body is still to come. A request without one may not be marked complete yet either
 * when it is answered at once (from a hook, before Node has seen the end of its message).
 */
function bodyUnread(raw: IncomingMessage): boolean {
  if (raw.complete) return false;
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Limits each API key's requests (after authentication, before the body is read) and closes the
 * connection whenever an answer leaves before its request's body was read (a 401, 403 or 429 to a POST):
 * otherwise Node would keep reading, and waiting for, a body nobody wants.
 */
export const requestLimitsPlugin = fp(async (app: FastifyInstance, options: { limits?: RequestLimits }) => {
  // The rest of an authenticated request runs as its organization's: the store shares reads fairly by it.
  app.addHook('onRequest', (request, _reply, done) => (request.principal ? withRequestOrg(request.principal.orgId, done) : done()));
  app.addHook('onSend', (request, reply, payload, done) => {
    if (bodyUnread(request.raw)) reply.header('connection', 'close');
    done(null, payload);
  });
  const limits = options.limits;
  if (!limits || (limits.rateLimitPerMinute <= 0 && limits.maxConcurrentRequestsPerKey <= 0)) return;
  const limiter = new KeyLimiter(limits.rateLimitPerMinute, limits.maxConcurrentRequestsPerKey);
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.principal) return done();
    const slot = limiter.acquire(request.principal.keyId);
    if ('why' in slot) return done(errors.rateLimited(slot.why, slot.retryAfterSeconds));
    // 'close' comes once the response is sent or its connection is gone, whichever happens.
    reply.raw.once('close', slot.release);
    done();
  });
});
