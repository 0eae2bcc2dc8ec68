// The scan types are declared one module each under src/scan-types/; this re-exports their names.
export { SCAN_TYPES, scanTypesOf, type ScanType } from '../scan-types/index.ts';
