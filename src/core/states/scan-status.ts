import { statusMachine } from './machine.ts';

export type ScanStatus = 'pending' | 'cloning' | 'scanning' | 'completed' | 'failed';

/**
 * pending → cloning → scanning → completed | failed, per source repository. A scan whose worker died
 * while cloning or scanning is cloned again from the start; any unfinished scan can fail.
 */
export const SCAN_STATUS = statusMachine<ScanStatus>('scan', {
  pending: ['cloning', 'failed'],
  cloning: ['cloning', 'scanning', 'failed'],
  scanning: ['cloning', 'completed', 'failed'],
  completed: [],
  failed: [],
});
