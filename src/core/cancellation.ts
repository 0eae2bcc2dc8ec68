import { AsyncLocalStorage } from 'node:async_hooks';

// A request whose client has gone should stop costing the database: its remaining queries are not run.
// The HTTP layer runs each request inside `withCancelSignal`; the store checks the signal before each
// query it sends.

/** Whether the request is abandoned: an AbortSignal, or anything else that can tell. */
export type CancelSignal = Pick<AbortSignal, 'aborted'>;

const requestSignal = new AsyncLocalStorage<CancelSignal>();

export class RequestCancelledError extends Error {
  constructor() {
    super('The client closed the connection; the request was abandoned');
    this.name = 'RequestCancelledError';
  }
}

/** Runs `fn` (and all it awaits) with `signal` as its cancellation signal. */
export function withCancelSignal<T>(signal: CancelSignal, fn: () => T): T {
  return requestSignal.run(signal, fn);
}

/** The signal of the request this code runs for, if any. */
export function currentCancelSignal(): CancelSignal | undefined {
  return requestSignal.getStore();
}
