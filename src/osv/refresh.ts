import crypto from 'node:crypto';
import os from 'node:os';
import type { Kysely } from 'kysely';
import { nowIso } from '../ids.ts';
import type { Database } from '../store/schema.ts';
import { releaseTaskLease, renewTaskLease, takeTaskLease } from '../store/task-leases.ts';
import { syncOsv, type SyncReport } from './sync.ts';

/** The lease row the refresh runs under: one process of all sharing the database runs it at a time. */
export const OSV_REFRESH_TASK = 'osv-sync';
/** How long a lease holds without renewal; a refresh renews it every third of this while it runs. */
const LEASE_MS = 10 * 60_000;

export interface OsvRefreshOptions {
  baseUrl: string;
  /** Between the starts of two refreshes; 0 turns the refresh off. */
  intervalMs: number;
  log: (message: string, fields?: Record<string, unknown>) => void;
  /** How often this process looks whether a refresh is due; default the interval, at most ten minutes. */
  checkEveryMs?: number;
  /** The first look, after the process started. */
  firstCheckMs?: number;
  fetch?: typeof fetch;
}

export interface OsvRefresher {
  /** Runs a refresh now if one is due and no other process runs one: `ran` (whatever its outcome), `not due`, or `off`. */
  tick(): Promise<'ran' | 'not due' | 'off'>;
  stop(): Promise<void>;
}

/**
 * The worker's scheduled OSV sync. Every process looks now and then; the one that takes the lease runs
 * the sync, so several workers never download at once. A failure is logged and recorded with the lease,
 * and tried again at the next interval; it never throws out of the timer.
 */
export function startOsvRefresh(db: Kysely<Database>, options: OsvRefreshOptions): OsvRefresher {
  if (options.intervalMs <= 0) {
    options.log('osv refresh off', { reason: 'BULWARK_OSV_SYNC_HOURS is 0' });
    return { tick: async () => 'off', stop: async () => {} };
  }
  const holder = `${os.hostname()}:${process.pid}:${crypto.randomUUID()}`;
  const stopping = new AbortController();
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  const refresh = async (): Promise<'ran' | 'not due'> => {
    const now = Date.now();
    const taken = await takeTaskLease(
      db,
      OSV_REFRESH_TASK,
      holder,
      new Date(now).toISOString(),
      new Date(now + LEASE_MS).toISOString(),
      new Date(now - options.intervalMs).toISOString(),
    );
    if (!taken) return 'not due';
    const renew = setInterval(() => {
      renewTaskLease(db, OSV_REFRESH_TASK, holder, new Date(Date.now() + LEASE_MS).toISOString()).catch(() => {});
    }, LEASE_MS / 3);
    renew.unref();
    options.log('osv sync started', { url: options.baseUrl });
    const started = Date.now();
    let error: string | null = null;
    try {
      const report = await syncOsv(db, { baseUrl: options.baseUrl, signal: stopping.signal, fetch: options.fetch });
      if (report.failed.length) error = report.failed.map((f) => `${f.ecosystem}: ${f.error}`).join('; ');
      options.log(report.failed.length ? 'osv sync failed' : 'osv sync finished', { seconds: (Date.now() - started) / 1000, ...summary(report) });
    } catch (caught) {
      error = (caught as Error).message;
      options.log('osv sync failed', { seconds: (Date.now() - started) / 1000, error });
    } finally {
      clearInterval(renew);
      await releaseTaskLease(db, OSV_REFRESH_TASK, holder, nowIso(), error?.slice(0, 2000) ?? null).catch(() => {});
    }
    return 'ran';
  };

  const tick = async (): Promise<'ran' | 'not due' | 'off'> => {
    if (stopping.signal.aborted) return 'off';
    const run = running.then(refresh).catch((error: Error) => {
      options.log('osv sync failed', { error: error.message });
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
  options.log('osv refresh on', { url: options.baseUrl, every_hours: options.intervalMs / 3_600_000 });

  return {
    tick,
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await running.catch(() => {});
    },
  };
}

function summary(report: SyncReport): Record<string, unknown> {
  return {
    ecosystems: Object.fromEntries(
      report.ecosystems.map((e) => [e.ecosystem, { mode: e.mode, bytes: e.bytes, added: e.import?.added ?? 0, updated: e.import?.updated ?? 0 }]),
    ),
    ...(report.unpublished.length ? { unpublished: report.unpublished } : {}),
    ...(report.failed.length ? { failed: report.failed } : {}),
  };
}
