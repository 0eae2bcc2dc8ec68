import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { RequestCancelledError } from '../core/cancellation.ts';

/** Resolves once `chunk` has been handed to the operating system (or the response is gone). */
function written(res: ServerResponse, chunk: Buffer | string): Promise<void> {
  return new Promise((resolve) => res.write(chunk, () => resolve()));
}

/**
 * Answers 200 with a body written piece by piece as `pieces` yields them, reading one piece ahead while the
 * last one is written. Each piece has left for the socket before the one after next is asked for, so a
 * producer may reuse a buffer every other piece (see ScanResults.pages), and reading keeps the socket's
 * pace. A Fastify stream reply cannot promise that: its pipe buffers chunks it does not report as written.
 * Stops reading when the client leaves; an error from `pieces` once the head is out cuts the connection.
 */
export async function sendPiecewise(reply: FastifyReply, contentType: string, pieces: AsyncIterable<Buffer | string>): Promise<void> {
  const res = reply.raw;
  const iterator = pieces[Symbol.asyncIterator]();
  let pending = iterator.next();
  const first = await pending;
  reply.hijack();
  res.writeHead(200, { ...(reply.getHeaders() as OutgoingHttpHeaders), 'content-type': contentType });
  let writing: Promise<void> = Promise.resolve();
  try {
    for (let piece = first; !piece.done; piece = await pending) {
      await writing;
      if (res.destroyed) break;
      pending = iterator.next();
      writing = written(res, piece.value);
    }
    await writing;
    res.end();
  } catch (error) {
    if (error instanceof RequestCancelledError) reply.log.debug('response cut short: the client left');
    else reply.log.error({ err: error }, 'response cut short: reading its body failed');
    res.destroy(error as Error);
  } finally {
    if (res.destroyed) {
      // A read still under way when the client left fails or ends unheard.
      pending.catch(() => {});
      await iterator.return?.().catch(() => {});
    }
  }
}
