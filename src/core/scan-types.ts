export const SCAN_TYPES = ['secrets_scan', 'semgrep_scan', 'deep_ai_scan', 'sbom_scan'] as const;
export type ScanType = (typeof SCAN_TYPES)[number];

/** Applications group several repositories; an SBOM is a per-repository inventory, so that family refuses it. */
export const APPLICATION_SCAN_TYPES = ['secrets_scan', 'semgrep_scan', 'deep_ai_scan'] as const;

/** A batch moves queued → creating_scans → scanning → assessing → one of these. */
export const TERMINAL_BATCH_STATUSES: readonly string[] = ['completed', 'partial_failure', 'failed'];

/** A per-source-repo scan moves pending → cloning → scanning → one of these. */
export const FINISHED_SCAN_STATUSES: readonly string[] = ['completed', 'failed'];
