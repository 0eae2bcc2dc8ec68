import type { Kysely } from 'kysely';
import { startPeriodicTask, type PeriodicTask } from '../jobs/periodic-task.ts';
import type { Database } from '../store/schema.ts';
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

/** `tick()` runs a refresh now if one is due and no other process runs one. */
export type OsvRefresher = PeriodicTask;

/**
 * The worker's scheduled OSV sync, one process of all sharing the database at a time (periodic-task.ts), so
 * several workers never download at once. A failure is logged and recorded with the lease, and tried again
 * at the next interval.
 */
export function startOsvRefresh(db: Kysely<Database>, options: OsvRefreshOptions): OsvRefresher {
  return startPeriodicTask(db, {
    name: OSV_REFRESH_TASK,
    intervalMs: options.intervalMs,
    leaseMs: LEASE_MS,
    checkEveryMs: options.checkEveryMs,
    firstCheckMs: options.firstCheckMs,
    async run(signal) {
      options.log('osv sync started', { url: options.baseUrl });
      const started = Date.now();
      try {
        const report = await syncOsv(db, { baseUrl: options.baseUrl, signal, fetch: options.fetch });
        options.log(report.failed.length ? 'osv sync failed' : 'osv sync finished', { seconds: (Date.now() - started) / 1000, ...summary(report) });
        return report.failed.length ? report.failed.map((f) => `${f.ecosystem}: ${f.error}`).join('; ') : null;
      } catch (caught) {
        options.log('osv sync failed', { seconds: (Date.now() - started) / 1000, error: (caught as Error).message });
        return (caught as Error).message;
      }
    },
    announce: (on) =>
      on
        ? options.log('osv refresh on', { url: options.baseUrl, every_hours: options.intervalMs / 3_600_000 })
        : options.log('osv refresh off', { reason: 'BULWARK_OSV_SYNC_HOURS is 0' }),
    failed: (error) => options.log('osv sync failed', { error: error.message }),
  });
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
