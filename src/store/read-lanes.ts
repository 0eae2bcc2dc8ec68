import { AsyncLocalStorage } from 'node:async_hooks';
import os from 'node:os';
import pLimit from 'p-limit';

// Long reads (a results stream pulls hundreds of pages) must not make short ones wait behind them. Bulk
// reads take turns: at most half the cores' worth run at once in a process, in arrival order, so the
// database and its threads keep room for every other request. Their queries are also marked, so a pool
// can keep connections for everyone else: on SQLite, bulk reads never take the first reader thread.
//
// A bulk read may also bring its own shared buffer for the values of one column. A SQLite thread then
// writes them there as UTF-8 rather than posting a copy: hundreds of pages copied into fresh buffers are
// memory outside the heaps (the event loop's and the thread's) that only full collections give back, and
// at tens of MB/s those collections pause every other request about once a second. A driver that decodes
// text into strings (PostgreSQL's) has its page copied there with placeText(), for the same reason.

export interface BulkRead {
  /** Where the values of `column` are written, as UTF-8, as far as they fit; they are then Buffer views of it. */
  into?: { buffer: SharedArrayBuffer; column: string };
}

const bulk = new AsyncLocalStorage<BulkRead>();
const turns = pLimit(Math.max(1, Math.floor(os.availableParallelism() / 2)));

/** Runs `read` (and every query it sends) as a bulk read, waiting for its turn first. */
export function bulkRead<T>(read: () => Promise<T>, options: BulkRead = {}): Promise<T> {
  return turns(() => bulk.run(options, read));
}

/** The bulk read the code running now is part of, if any. */
export const currentBulkRead = (): BulkRead | undefined => bulk.getStore();

/**
 * `text` as UTF-8 bytes at the start of the current bulk read's buffer, when it brings one and they fit;
 * else `text` itself. A page string is held until the page after it has been read, which outlives a
 * young-generation collection or two: at tens of MB/s, such strings fill the old generation and its
 * collections pause every request about once a second. Copied out at once, the string dies young.
 */
export function placeText(text: string): Buffer | string {
  const into = currentBulkRead()?.into?.buffer;
  if (!into || text.length > into.byteLength) return text;
  const length = Buffer.byteLength(text);
  if (length > into.byteLength) return text;
  const view = Buffer.from(into, 0, length);
  view.write(text);
  return view;
}
