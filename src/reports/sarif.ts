import { pathToFileURL } from 'node:url';
import type { RawFinding } from '../scanning/engine.ts';
import type { Severity } from '../core/severity.ts';
import type { ScanReport } from './report.ts';

const SARIF_SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { critical: 'error', high: 'error', medium: 'warning', low: 'note' };

/** GitHub code scanning ranks security alerts by this CVSS-like score (a string property of the rule). */
const SECURITY_SEVERITY: Record<Severity, string> = { critical: '9.5', high: '8.0', medium: '5.5', low: '3.0' };

const SRCROOT = '%SRCROOT%';

/** `CWE-798: Use of …` → `798`. */
function cweNumber(cwe: string): string | undefined {
  return /^CWE-(\d+)/i.exec(cwe)?.[1];
}

function ruleFor(finding: RawFinding) {
  const cwes = finding.cwe.map(cweNumber).filter((n): n is string => n !== undefined);
  return {
    id: finding.checkId,
    shortDescription: { text: finding.title },
    ...(finding.references[0] ? { helpUri: finding.references[0] } : {}),
    defaultConfiguration: { level: LEVEL[finding.severity] },
    properties: {
      // CWE-n for people and tools reading tags as-is; external/cwe/cwe-n is GitHub code scanning's convention.
      tags: ['security', finding.category, ...cwes.map((n) => `CWE-${n}`), ...cwes.map((n) => `external/cwe/cwe-${n}`)],
      'security-severity': SECURITY_SEVERITY[finding.severity],
      cwe: finding.cwe,
      owasp: finding.owasp,
    },
  };
}

/** A relative path as a URI reference: each segment percent-encoded, slashes kept. */
function uriOf(filePath: string): string {
  return filePath.split('/').map(encodeURIComponent).join('/');
}

/** SARIF 2.1.0, one run, rules for the checks that fired; paths relative to %SRCROOT% (the scanned folder). */
export function renderSarif(report: ScanReport): string {
  const rules: ReturnType<typeof ruleFor>[] = [];
  const ruleIndex = new Map<string, number>();
  for (const finding of report.findings) {
    if (ruleIndex.has(finding.checkId)) continue;
    ruleIndex.set(finding.checkId, rules.length);
    rules.push(ruleFor(finding));
  }
  const results = report.findings.map((f) => ({
    ruleId: f.checkId,
    ruleIndex: ruleIndex.get(f.checkId)!,
    level: LEVEL[f.severity],
    message: { text: f.message },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: uriOf(f.filePath), uriBaseId: SRCROOT },
          region: { startLine: f.startLine, endLine: f.endLine },
        },
      },
    ],
    partialFingerprints: { 'bulwark/v1': f.fingerprint },
    properties: {
      severity: f.severity,
      category: f.category,
      ...(f.commitSha ? { commitSha: f.commitSha } : {}),
      ...(typeof f.metadata.validity === 'string' ? { validity: f.metadata.validity } : {}),
    },
  }));
  const sarif = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'Bulwark',
            version: report.toolVersion,
            semanticVersion: report.toolVersion,
            rules,
          },
        },
        originalUriBaseIds: { [SRCROOT]: { uri: pathToFileURL(report.target).href.replace(/\/?$/, '/') } },
        results,
        properties: { scanType: report.scanType, commit: report.commit, historyDepth: report.historyDepth },
      },
    ],
  };
  return JSON.stringify(sarif, null, 2) + '\n';
}
