import { AsyncLocalStorage } from 'node:async_hooks';

// The organization a request acts for, known once its key or session is: the store shares database reads
// fairly between organizations by it (store/read-lanes.ts). The HTTP layer runs each authenticated
// request inside `withRequestOrg`.

const requestOrg = new AsyncLocalStorage<string>();

/** Runs `fn` (and all it awaits) as work for organization `orgId`. */
export function withRequestOrg<T>(orgId: string, fn: () => T): T {
  return requestOrg.run(orgId, fn);
}

/** The organization the code running now works for, if it runs for a request. */
export function currentRequestOrg(): string | undefined {
  return requestOrg.getStore();
}
