import type { RawFinding } from '../scanning/engine.ts';
import { summarize, type ScanReport } from './report.ts';

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * A finding under the API's field names (check_id, file_path, start_line, cvss_base_score, …), so that
 * scripts written against the server read local reports too. Secrets appear only masked and as keyed hashes.
 */
export function findingJson(finding: RawFinding): Record<string, unknown> {
  const { cvss, ...fields } = finding;
  return {
    ...Object.fromEntries(Object.entries(fields).map(([name, value]) => [snakeCase(name), value])),
    source_url: finding.sourceUrl ?? null,
    cvss_base_score: cvss?.baseScore ?? null,
    cvss_severity: cvss?.severity ?? null,
    cvss_vector: cvss?.vector ?? null,
    // A secrets finding's live check with its provider (bulwark scan --verify), as the API's field.
    validity: typeof finding.metadata.validity === 'string' ? finding.metadata.validity : null,
  };
}

/** The findings and a summary, every field name in snake_case as the API writes them. */
export function renderJson(report: ScanReport): string {
  const summary = summarize(report);
  return (
    JSON.stringify(
      {
        findings: report.findings.map(findingJson),
        summary: {
          total: summary.total,
          by_severity: summary.bySeverity,
          scan_type: summary.scanType,
          target: summary.target,
          commit: summary.commit,
          history_depth: summary.historyDepth,
        },
      },
      null,
      2,
    ) + '\n'
  );
}
