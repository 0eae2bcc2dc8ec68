import { scanTypeLabel } from '../api/vocabulary.ts';

/**
 * The scan types that have detected a finding, the one that found it first leading (a problem two scan
 * types find is one finding). A server that does not send `detected_by` has only its `scan_type`.
 */
export function DetectedBy({ finding }: { finding: { scan_type: string; detected_by?: string[] } }) {
  const types = finding.detected_by?.length ? finding.detected_by : [finding.scan_type];
  return (
    <ul className="scan-types">
      {types.map((type) => (
        <li key={type}>{scanTypeLabel(type)}</li>
      ))}
    </ul>
  );
}
