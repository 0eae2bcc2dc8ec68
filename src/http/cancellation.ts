import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { withCancelSignal, type CancelSignal } from '../core/cancellation.ts';

/** A request is abandoned when its client hangs up before the whole answer was sent. */
class ClientGone implements CancelSignal {
  private readonly response: ServerResponse;

  constructor(response: ServerResponse) {
    this.response = response;
  }

  get aborted(): boolean {
    return this.response.destroyed && !this.response.writableFinished;
  }
}

/**
 * A request whose client hangs up before its answer is cancelled: the store sends none of its further
 * queries. The response is asked when a query is about to go, so a request pays nothing until then (an
 * AbortController and a 'close' listener were a tenth of a small request's time).
 */
export const cancellationPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', (_request, reply, done) => withCancelSignal(new ClientGone(reply.raw), done));
});
