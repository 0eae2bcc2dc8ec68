import { statusMachine } from './machine.ts';

export type FindingStatus = 'open' | 'resolved' | 'ignored' | 'false_positive' | 'needs_manual_review';

/**
 * Triage moves a finding between any two statuses. A rescan resolves an open or needs-manual-review
 * finding it no longer sees, and reopens a resolved one it sees again; ignored and false-positive
 * findings keep their status across rescans.
 */
export const FINDING_STATUS = statusMachine<FindingStatus>('finding', {
  open: ['resolved', 'ignored', 'false_positive', 'needs_manual_review'],
  resolved: ['open', 'ignored', 'false_positive', 'needs_manual_review'],
  ignored: ['open', 'resolved', 'false_positive', 'needs_manual_review'],
  false_positive: ['open', 'resolved', 'ignored', 'needs_manual_review'],
  needs_manual_review: ['open', 'resolved', 'ignored', 'false_positive'],
});
