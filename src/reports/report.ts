import type { ScanType } from '../scanning/scan-type-names.ts';
import { SEVERITIES, type Severity } from '../core/severity.ts';
import type { RawFinding, ScanArtifact } from '../scanning/engine.ts';

/** What one local scan found, and what it looked at; every format renders from this. */
export interface ScanReport {
  findings: RawFinding[];
  /** Documents the engine produced besides findings (the SBOM of an sbom scan). */
  artifacts: ScanArtifact[];
  scanType: ScanType;
  /** The scanned folder, absolute. */
  target: string;
  /** The commit whose history was read, or null when only the folder was scanned. */
  commit: string | null;
  /** Most commits of history read from `commit` down (fewer when the history is shorter); 0 when none. */
  historyDepth: number;
  toolVersion: string;
}

export interface ReportSummary {
  total: number;
  bySeverity: Record<Severity, number>;
  scanType: ScanType;
  target: string;
  commit: string | null;
  historyDepth: number;
}

export function summarize(report: ScanReport): ReportSummary {
  const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const finding of report.findings) bySeverity[finding.severity]++;
  return {
    total: report.findings.length,
    bySeverity,
    scanType: report.scanType,
    target: report.target,
    commit: report.commit,
    historyDepth: report.historyDepth,
  };
}
