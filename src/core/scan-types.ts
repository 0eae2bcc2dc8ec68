export const SCAN_TYPES = ['secrets_scan', 'semgrep_scan', 'deep_ai_scan', 'sbom_scan'] as const;
export type ScanType = (typeof SCAN_TYPES)[number];

/** Applications group several repositories; an SBOM is a per-repository inventory, so that family refuses it. */
export const APPLICATION_SCAN_TYPES = ['secrets_scan', 'semgrep_scan', 'deep_ai_scan'] as const;

export const BATCH_STATUSES = [
  'queued',
  'creating_scans',
  'scanning',
  'assessing',
  'completed',
  'partial_failure',
  'failed',
] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];
export const TERMINAL_BATCH_STATUSES: readonly string[] = ['completed', 'partial_failure', 'failed'];

/** Per-source-repo scan states. */
export const SCAN_STATUSES = ['pending', 'cloning', 'scanning', 'completed', 'failed'] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];
export const FINISHED_SCAN_STATUSES: readonly string[] = ['completed', 'failed'];
