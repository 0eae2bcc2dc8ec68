import type { JobHandlers, JobKind } from '../jobs/queue.ts';
import type { Metrics } from './metrics.ts';

export type LogFn = (message: string, fields?: Record<string, unknown>) => void;

const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;

/**
 * The same handlers, with each job's life logged (started, completed or failed with its reason and
 * duration, given up) and its duration recorded. Reasons are the handlers' own messages, which are
 * written token-free where they come from (git and code-host errors are scrubbed there).
 */
export function observeJobs(kind: JobKind, handlers: JobHandlers, log: LogFn, metrics?: Metrics): JobHandlers {
  return {
    async run(key, context) {
      const started = process.hrtime.bigint();
      log('job started', { kind, key, attempt: context.attempt });
      try {
        await handlers.run(key, context);
      } catch (error) {
        const duration = seconds(started);
        metrics?.jobFinished(kind, 'failed', duration);
        log('job failed', { kind, key, attempt: context.attempt, reason: (error as Error).message, duration_ms: Math.round(duration * 1000) });
        throw error;
      }
      const duration = seconds(started);
      metrics?.jobFinished(kind, 'completed', duration);
      log('job completed', { kind, key, attempt: context.attempt, duration_ms: Math.round(duration * 1000) });
    },
    async giveUp(key, reason) {
      metrics?.jobsGivenUp.inc({ kind });
      log('job given up', { kind, key, reason });
      await handlers.giveUp(key, reason);
    },
  };
}
