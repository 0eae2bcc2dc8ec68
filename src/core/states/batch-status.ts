import { statusMachine } from './machine.ts';

export type BatchStatus = 'queued' | 'creating_scans' | 'scanning' | 'assessing' | 'completed' | 'partial_failure' | 'failed';

/**
 * queued → creating_scans → scanning → assessing → completed | partial_failure | failed. A worker that
 * restarts re-enters the phase it died in, and any unfinished batch can fail (no engine, the worker gave
 * up). A finished batch never changes again.
 */
export const BATCH_STATUS = statusMachine<BatchStatus>('scan batch', {
  queued: ['creating_scans', 'failed'],
  creating_scans: ['scanning', 'failed'],
  scanning: ['assessing', 'failed'],
  assessing: ['completed', 'partial_failure', 'failed'],
  completed: [],
  partial_failure: [],
  failed: [],
});
