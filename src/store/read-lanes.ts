import { AsyncLocalStorage } from 'node:async_hooks';
import os from 'node:os';
import pLimit from 'p-limit';

// Long reads (a results stream pulls hundreds of pages) must not make short ones wait behind them. Bulk
// reads take turns: at most half the cores' worth run at once in a process, in arrival order, so the
// database and its threads keep room for every other request. Their queries are also marked, so a pool
// can keep connections for everyone else: on SQLite, bulk reads never take the first reader thread.

const bulk = new AsyncLocalStorage<true>();
const turns = pLimit(Math.max(1, Math.floor(os.availableParallelism() / 2)));

/** Runs `read` (and every query it sends) as a bulk read, waiting for its turn first. */
export function bulkRead<T>(read: () => Promise<T>): Promise<T> {
  return turns(() => bulk.run(true, read));
}

/** Whether the code running now is inside `bulkRead`. */
export const inBulkRead = (): boolean => bulk.getStore() === true;
