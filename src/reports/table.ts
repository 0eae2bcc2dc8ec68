import { SEVERITIES, severityRank } from '../core/severity.ts';
import { summarize, type ScanReport } from './report.ts';

/** For people: one row per finding, most severe first, then a count line. */
export function renderTable(report: ScanReport): string {
  const rows = [...report.findings]
    .sort((a, b) => severityRank(a.severity) - severityRank(b.severity) || a.filePath.localeCompare(b.filePath) || a.startLine - b.startLine)
    .map((f) => [f.severity, f.checkId, `${f.filePath}:${f.startLine}`, typeof f.metadata.validity === 'string' ? `[${f.metadata.validity}] ${f.message}` : f.message]);
  const lines: string[] = [];
  if (rows.length) {
    const table = [['SEVERITY', 'CHECK', 'LOCATION', 'MESSAGE'], ...rows];
    const widths = [0, 1, 2].map((column) => Math.max(...table.map((row) => row[column].length)));
    for (const row of table) lines.push(row.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]) : cell)).join('  '));
    lines.push('');
  }
  const summary = summarize(report);
  const scope = report.commit
    ? `${report.target} at ${report.commit.slice(0, 12)}, reading up to ${report.historyDepth} commit${report.historyDepth === 1 ? '' : 's'} of history`
    : report.target;
  const counts = SEVERITIES.map((s) => `${summary.bySeverity[s]} ${s}`).join(', ');
  lines.push(`${summary.total} finding${summary.total === 1 ? '' : 's'} (${counts}) in ${scope}`);
  return lines.join('\n') + '\n';
}
