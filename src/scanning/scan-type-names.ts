// The scan types this service knows, by wire name, in the order the contract lists them. Engines, the
// store's schema and everything below the scan-type descriptors (scan-types/) name a type through this
// list; scan-types/index.ts checks at compile time that its descriptors cover exactly these names.
export const SCAN_TYPE_NAMES = ['secrets_scan', 'semgrep_scan', 'deep_ai_scan', 'sbom_scan'] as const;

export type ScanType = (typeof SCAN_TYPE_NAMES)[number];
