import { statusMachine } from './machine.ts';

// A finding's state is two things kept apart: what the scans say (the verdict) and what a person decided
// (the triage). A rescan moves the verdict and never a decision, except the one move below. The wire
// `status` is read from both by findingStatus() alone.

export type ScanVerdict = 'present' | 'gone';

/** Only scans move it: seen by a scan → present; not seen by a complete scan → gone. */
export const SCAN_VERDICT = statusMachine<ScanVerdict>('scan verdict', {
  present: ['gone'],
  gone: ['present'],
});

export type Triage = 'open' | 'ignored' | 'false_positive' | 'needs_manual_review' | 'resolved';

/** A person's decision; `open` is undecided and `resolved` is resolved by hand. A person may make any move. */
export const TRIAGE = statusMachine<Triage>('triage', {
  open: ['ignored', 'false_positive', 'needs_manual_review', 'resolved'],
  ignored: ['open', 'false_positive', 'needs_manual_review', 'resolved'],
  false_positive: ['open', 'ignored', 'needs_manual_review', 'resolved'],
  needs_manual_review: ['open', 'ignored', 'false_positive', 'resolved'],
  resolved: ['open', 'ignored', 'false_positive', 'needs_manual_review'],
});

export interface FindingState {
  verdict: ScanVerdict;
  triage: Triage;
}

export const stateOf = (row: { scan_verdict: ScanVerdict; triage: Triage }): FindingState => ({ verdict: row.scan_verdict, triage: row.triage });

/**
 * What a scan makes of a finding's state. The one move it makes on triage: a finding resolved by hand that
 * a scan sees again reopens. Every other decision stands.
 */
export function afterScan(state: FindingState, seen: boolean): FindingState {
  if (!seen) return { verdict: 'gone', triage: state.triage };
  return { verdict: 'present', triage: state.triage === 'resolved' ? 'open' : state.triage };
}

/** The wire status (the contract's enum), in the order the API lists it. */
export const FINDING_STATUSES = ['open', 'resolved', 'ignored', 'false_positive', 'needs_manual_review'] as const;
export type FindingStatus = (typeof FINDING_STATUSES)[number];

/** The one derivation of the wire status: a decision to ignore stands over any verdict; gone is resolved. */
export function findingStatus(state: FindingState): FindingStatus {
  if (state.triage === 'ignored' || state.triage === 'false_positive') return state.triage;
  if (state.verdict === 'gone' || state.triage === 'resolved') return 'resolved';
  return state.triage;
}
