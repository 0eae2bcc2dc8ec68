import { renderJson } from './json.ts';
import type { ScanReport } from './report.ts';
import { renderSarif } from './sarif.ts';
import { renderSemgrepJson } from './semgrep-json.ts';
import { renderTable } from './table.ts';

export const REPORT_FORMATS = ['table', 'json', 'sarif', 'semgrep-json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

const RENDERERS: Record<ReportFormat, (report: ScanReport) => string> = {
  table: renderTable,
  json: renderJson,
  sarif: renderSarif,
  'semgrep-json': renderSemgrepJson,
};

export function renderReport(format: ReportFormat, report: ScanReport): string {
  return RENDERERS[format](report);
}
