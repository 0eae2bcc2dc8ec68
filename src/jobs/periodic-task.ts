import crypto from 'node:crypto';
import os from 'node:os';
import type { Kysely } from 'kysely';
import { nowIso } from '../ids.ts';
import type { Database } from '../store/schema.ts';
import { releaseTaskLease, renewTaskLease, takeTaskLease } from '../store/task-leases.ts';

// A task every worker process schedules and exactly one runs at a time (the OSV refresh, the poll of fix
// pull requests): each process looks now and then, and the one that takes the task's lease, when a run is
// due, runs it. A run renews its lease while it lasts; a failure is logged, recorded with the lease and
// tried again at the next interval, never thrown out of the timer.

export interface PeriodicTaskOptions {
  /** The lease row's name. */
  name: string;
  /** Between the starts of two runs; 0 or less turns the task off. */
  intervalMs: number;
  /** How long a lease holds without renewal; a run renews it every third of this. */
  leaseMs: number;
  /** How often this process looks whether a run is due; default the interval, at most ten minutes. */
  checkEveryMs?: number;
  /** The first look, after the process started. */
  firstCheckMs?: number;
  /** One run; its error (a string) is recorded with the lease. */
  run(signal: AbortSignal): Promise<string | null>;
  /** Said once when the timer starts (or is off). */
  announce(on: boolean): void;
  /** A run that threw. */
  failed(error: Error): void;
}

export interface PeriodicTask {
  /** Runs now if a run is due and no other process runs one: `ran` (whatever its outcome), `not due`, or `off`. */
  tick(): Promise<'ran' | 'not due' | 'off'>;
  stop(): Promise<void>;
}

export function startPeriodicTask(db: Kysely<Database>, options: PeriodicTaskOptions): PeriodicTask {
  if (options.intervalMs <= 0) {
    options.announce(false);
    return { tick: async () => 'off', stop: async () => {} };
  }
  const holder = `${os.hostname()}:${process.pid}:${crypto.randomUUID()}`;
  const stopping = new AbortController();
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  const runIfDue = async (): Promise<'ran' | 'not due'> => {
    const now = Date.now();
    const taken = await takeTaskLease(
      db,
      options.name,
      holder,
      new Date(now).toISOString(),
      new Date(now + options.leaseMs).toISOString(),
      new Date(now - options.intervalMs).toISOString(),
    );
    if (!taken) return 'not due';
    const renew = setInterval(() => {
      renewTaskLease(db, options.name, holder, new Date(Date.now() + options.leaseMs).toISOString()).catch(() => {});
    }, options.leaseMs / 3);
    renew.unref();
    let error: string | null = null;
    try {
      error = await options.run(stopping.signal);
    } catch (caught) {
      error = (caught as Error).message;
      options.failed(caught as Error);
    } finally {
      clearInterval(renew);
      await releaseTaskLease(db, options.name, holder, nowIso(), error?.slice(0, 2000) ?? null).catch(() => {});
    }
    return 'ran';
  };

  const tick = async (): Promise<'ran' | 'not due' | 'off'> => {
    if (stopping.signal.aborted) return 'off';
    const run = running.then(runIfDue).catch((error: Error) => {
      options.failed(error);
      return 'ran' as const;
    });
    running = run;
    return run;
  };

  const every = options.checkEveryMs ?? Math.min(options.intervalMs, 10 * 60_000);
  const schedule = (delay: number) => {
    timer = setTimeout(() => {
      void tick().finally(() => {
        if (!stopping.signal.aborted) schedule(every);
      });
    }, delay);
    timer.unref();
  };
  schedule(options.firstCheckMs ?? 1000);
  options.announce(true);

  return {
    tick,
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await running.catch(() => {});
    },
  };
}
