import type { FixFinding } from '../../src/fixing/types.ts';
import type { Unit } from '../../src/core/units.ts';
import { newId, nowIso } from '../../src/ids.ts';
import type { FindingRow } from '../../src/store/schema.ts';

let findingsMade = 0;

/**
 * An open secrets finding of the unit's first source, as a scan would store it; overrides change any field.
 * A status given alone is a person's decision on a finding the scans still see.
 */
export function findingRow(unit: Unit, overrides: Partial<FindingRow> = {}): FindingRow {
  const now = nowIso();
  // Each finding on a line of its own (3, 13, 23, …): two fixes of one line of a repository are refused.
  const line = 3 + 10 * findingsMade++;
  const status = overrides.status ?? 'open';
  return {
    id: newId(),
    org_id: unit.org_id,
    unit_id: unit.id,
    source_repo_id: unit.sources[0]?.id ?? null,
    scan_type: 'secrets_scan',
    scan_batch_id: null,
    scan_id: null,
    fingerprint: `fp-${newId()}`,
    match_hash: null,
    anchor: null,
    snippet: null,
    check_id: 'aws-access-key',
    severity: 'high',
    scan_verdict: 'present',
    triage: status,
    status,
    category: 'secrets',
    title: 'AWS access key',
    message: 'An AWS access key is committed',
    file_path: 'src/config.js',
    start_line: line,
    end_line: line,
    cwe: '["CWE-798"]',
    owasp: '["A07:2021"]',
    references: '[]',
    source_url: null,
    cvss_base_score: null,
    cvss_severity: null,
    cvss_vector: null,
    commit_sha: null,
    metadata: '{}',
    first_detected_at: now,
    last_detected_at: now,
    resolved_at: null,
    created_at: now,
    updated_at: now,
    ...overrides,
    detected_by: overrides.detected_by ?? JSON.stringify([overrides.scan_type ?? 'secrets_scan']),
    seen_by: overrides.seen_by ?? JSON.stringify((overrides.scan_verdict ?? 'present') === 'present' ? { [overrides.scan_type ?? 'secrets_scan']: overrides.scan_id ?? '' } : {}),
  };
}

/** A finding as fixers and verification see it, with plain defaults for what a test does not care about. */
export function fixFinding(overrides: Partial<FixFinding> = {}): FixFinding {
  return {
    id: 'f1',
    scanType: 'secrets_scan',
    checkId: 'rule',
    severity: 'high',
    title: null,
    message: 'm',
    filePath: 'a.py',
    startLine: 1,
    endLine: 1,
    cwe: [],
    metadata: {},
    ...overrides,
  };
}
