import { summarize, type ScanReport } from './report.ts';

/** The engine's findings as they are (secrets appear only masked and as keyed hashes), with a summary. */
export function renderJson(report: ScanReport): string {
  return JSON.stringify({ findings: report.findings, summary: summarize(report) }, null, 2) + '\n';
}
