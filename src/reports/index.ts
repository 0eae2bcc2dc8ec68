import { renderJson } from './json.ts';
import type { ScanReport } from './report.ts';
import { renderSarif } from './sarif.ts';
import { renderSemgrepJson } from './semgrep-json.ts';
import { renderTable } from './table.ts';

export const REPORT_FORMATS = ['table', 'json', 'sarif', 'semgrep-json', 'cyclonedx'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

const RENDERERS: Record<ReportFormat, (report: ScanReport) => string> = {
  table: renderTable,
  json: renderJson,
  sarif: renderSarif,
  'semgrep-json': renderSemgrepJson,
  cyclonedx: renderCycloneDx,
};

/** The SBOM itself; only an sbom scan makes one. */
function renderCycloneDx(report: ScanReport): string {
  const sbom = report.artifacts.find((a) => a.kind === 'cyclonedx');
  if (!sbom) throw new Error(`a ${report.scanType} scan produces no CycloneDX document`);
  return sbom.content.endsWith('\n') ? sbom.content : sbom.content + '\n';
}

export function renderReport(format: ReportFormat, report: ScanReport): string {
  return RENDERERS[format](report);
}
