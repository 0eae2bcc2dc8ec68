import type { Severity } from '../core/severity.ts';
import type { ScanReport } from './report.ts';

const SEMGREP_SEVERITY: Record<Severity, 'ERROR' | 'WARNING' | 'INFO'> = {
  critical: 'ERROR',
  high: 'ERROR',
  medium: 'WARNING',
  low: 'INFO',
};

/** The subset of Semgrep's `--json` output that tools reading Semgrep results rely on, and nothing more. */
export function renderSemgrepJson(report: ScanReport): string {
  const results = report.findings.map((f) => ({
    check_id: f.checkId,
    path: f.filePath,
    start: { line: f.startLine },
    end: { line: f.endLine },
    extra: { message: f.message, severity: SEMGREP_SEVERITY[f.severity], metadata: { cwe: f.cwe } },
  }));
  return JSON.stringify({ results, errors: [] }, null, 2) + '\n';
}
