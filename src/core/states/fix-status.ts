import { statusMachine } from './machine.ts';

export type FixStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled' | 'pr_creation_failed';

/**
 * pending → running → completed | failed; pending and running fixes can be cancelled. A completed fix
 * goes back to pending when it is refined, and to pr_creation_failed (and back) while its pull request
 * is opened. Failed and cancelled fixes are final.
 */
export const FIX_STATUS = statusMachine<FixStatus>('fix', {
  pending: ['running', 'cancelled', 'failed'],
  running: ['completed', 'failed', 'cancelled'],
  completed: ['pending', 'pr_creation_failed', 'completed'],
  pr_creation_failed: ['completed', 'pr_creation_failed'],
  failed: [],
  cancelled: [],
});

export const FIX_STATUSES = FIX_STATUS.statuses;
