import type { ScanType } from '../scanning/scan-type-names.ts';
import { decodeJson } from '../store/json-columns.ts';
import type { FindingRow } from '../store/schema.ts';
import type { FixFinding } from './types.ts';

/** A stored finding as fixers, the agent and verification see it. */
export function toFixFinding(row: FindingRow): FixFinding {
  return {
    id: row.id,
    scanType: row.scan_type as ScanType,
    checkId: row.check_id,
    category: row.category,
    severity: row.severity,
    title: row.title,
    message: row.message,
    filePath: row.file_path,
    startLine: row.start_line,
    endLine: row.end_line,
    cwe: decodeJson<string[]>(row.cwe, []),
    metadata: decodeJson<Record<string, unknown>>(row.metadata, {}),
  };
}
