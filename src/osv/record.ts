// The parts of the OSV schema (https://ossf.github.io/osv-schema/) this service reads.

export interface OsvEvent {
  introduced?: string;
  fixed?: string;
  last_affected?: string;
  limit?: string;
}

export interface OsvRange {
  type: 'ECOSYSTEM' | 'SEMVER' | 'GIT' | string;
  repo?: string;
  events: OsvEvent[];
}

export interface OsvAffected {
  package?: { ecosystem: string; name: string; purl?: string };
  ranges?: OsvRange[];
  versions?: string[];
  ecosystem_specific?: Record<string, unknown>;
  database_specific?: Record<string, unknown>;
}

export interface OsvSeverity {
  type: 'CVSS_V2' | 'CVSS_V3' | 'CVSS_V4' | string;
  score: string;
}

export interface OsvReference {
  type: string;
  url: string;
}

export interface OsvRecord {
  id: string;
  modified: string;
  published?: string;
  withdrawn?: string;
  aliases?: string[];
  related?: string[];
  summary?: string;
  details?: string;
  severity?: OsvSeverity[];
  affected?: OsvAffected[];
  references?: OsvReference[];
  database_specific?: Record<string, unknown> & { cwe_ids?: string[]; severity?: string };
}
