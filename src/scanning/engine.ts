import type { Severity } from '../core/severity.ts';
import type { ScanType } from './scan-type-names.ts';

/** One problem an engine found, before it is stored as a finding. */
export interface RawFinding {
  checkId: string;
  severity: Severity;
  category: string;
  title: string;
  message: string;
  filePath: string;
  startLine: number;
  endLine: number;
  cwe: string[];
  owasp: string[];
  references: string[];
  /** Stable under line shifts and unrelated edits: rule, path and the matched content, not its position. */
  fingerprint: string;
  /**
   * How a later scan recognizes this finding (src/core/finding-identity.ts): a hash of the match that
   * leaves out the path and ignores formatting, and a coarser anchor that survives edits inside the match
   * (for SAST the call it sits in). Without them the fingerprint serves as the match hash.
   */
  matchHash?: string;
  anchor?: string | null;
  /** A few lines of the matched code, credentials masked; never a secret in clear. */
  snippet?: string | null;
  /** Set when the finding lives in history rather than in the scanned tree. */
  commitSha: string | null;
  metadata: Record<string, unknown>;
  /** Dependency findings: the advisory's page and its CVSS score. */
  sourceUrl?: string | null;
  cvss?: { baseScore: number; vector: string; severity: string } | null;
}

/** A document a scan produces besides findings, stored with the scan (a CycloneDX SBOM). */
export interface ScanArtifact {
  kind: 'cyclonedx';
  content: string;
}

/** How a warning that the results cover only part of the repository begins; such a scan resolves no finding. */
export const PARTIAL_RESULT = 'partial result:';

export interface EngineInput {
  /** The checked-out tree. */
  dir: string;
  /** The repository's git directory and the scanned commit, when history can be read. */
  gitDir?: string;
  commit?: string;
  signal?: AbortSignal;
  /** Key for hashes of sensitive matches, so stored fingerprints reveal nothing. */
  fingerprintKey: Buffer;
  /** Things worth telling the person running the scan that are not findings (a file that would not parse). */
  onNote?: (message: string) => void;
  /** What changes how the results must be read (vulnerability records missing or stale): kept with the scan's results. */
  onWarning?: (message: string) => void;
  /** What was scanned, for documents that name it (the repository's full name). */
  subject?: string;
  /**
   * Whose scan this is (the organization's id; the local CLI's own name): answers a model gave are kept on disk
   * apart per scope and only ever served again within it. Without one, no model answer is kept or reused.
   */
  cacheScope?: string;
  onArtifact?: (artifact: ScanArtifact) => void;
  /** Told as the scan advances, for a progress display; engines report what they know. */
  onProgress?: (progress: ScanProgress) => void;
}

/** Where a scan is: its current phase and, when the phase goes through a known list, how far along it is. */
export interface ScanProgress {
  phase: string;
  done?: number;
  total?: number;
  /** How far the whole scan is, 0–1, when the engine runs several phases; `done / total` otherwise. */
  overall?: number;
}

/** Pure: reads a checkout, returns findings; never touches the database or the network. */
export interface ScanEngine {
  readonly scanType: ScanType;
  scan(input: EngineInput): Promise<RawFinding[]>;
}
