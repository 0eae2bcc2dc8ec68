import { AsyncLocalStorage } from 'node:async_hooks';
import os from 'node:os';
import pLimit from 'p-limit';
import { currentRequestOrg } from '../core/request-org.ts';

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

/**
 * Reads shared fairly between lanes (organizations): at most `slots` run at once, and at most `perLane` of
 * one lane, so while one organization's reads fill their share another's start at once. When a read ends,
 * the next to start is taken from the lanes in turn (round robin), not in arrival order: a cheap read of
 * one organization waits behind at most one read of each other, never behind another's whole queue.
 */
export class FairTurns {
  readonly slots: number;
  readonly perLane: number;
  private running = 0;
  private readonly lanes = new Map<string, { running: number; waiting: (() => void)[] }>();
  /** Lanes with reads waiting, in the order they get their next turn. */
  private readonly ready: string[] = [];

  /** `perLane` defaults to all slots but one, so one is always left to the other lanes. */
  constructor(slots: number, perLane = Math.max(1, slots - 1)) {
    this.slots = Math.max(1, slots);
    this.perLane = Math.max(1, Math.min(this.slots, perLane));
  }

  /** Runs `read` in `lane` once it has its turn. */
  async run<T>(lane: string, read: () => Promise<T>): Promise<T> {
    await this.turn(lane);
    try {
      return await read();
    } finally {
      this.done(lane);
    }
  }

  private laneOf(name: string) {
    let lane = this.lanes.get(name);
    if (!lane) this.lanes.set(name, (lane = { running: 0, waiting: [] }));
    return lane;
  }

  private turn(name: string): Promise<void> {
    const lane = this.laneOf(name);
    if (this.running < this.slots && lane.running < this.perLane && !lane.waiting.length) {
      this.running++;
      lane.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      lane.waiting.push(resolve);
      if (!this.ready.includes(name)) this.ready.push(name);
    });
  }

  private done(name: string) {
    const lane = this.lanes.get(name)!;
    this.running--;
    lane.running--;
    // The lane that just had a turn waits for every other lane's next one.
    const own = this.ready.indexOf(name);
    if (own >= 0) this.ready.push(...this.ready.splice(own, 1));
    for (let i = 0; i < this.ready.length && this.running < this.slots; ) {
      const next = this.ready[i];
      const waiting = this.lanes.get(next)!;
      if (waiting.running >= this.perLane) {
        i++;
        continue;
      }
      this.ready.splice(i, 1);
      this.running++;
      waiting.running++;
      const start = waiting.waiting.shift()!;
      // Still more to read: to the back, after every other lane's turn.
      if (waiting.waiting.length) this.ready.push(next);
      start();
    }
    if (!lane.running && !lane.waiting.length) this.lanes.delete(name);
  }
}

/** The lane of the code running now: its request's organization; work of no request (jobs) shares one. */
export const currentReadLane = (): string => currentRequestOrg() ?? '';
