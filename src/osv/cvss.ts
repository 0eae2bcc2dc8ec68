import cvssCalculator from 'ae-cvss-calculator';
import type { OsvSeverity } from './record.ts';
import type { Severity } from '../core/severity.ts';

const { Cvss2, Cvss3P0, Cvss3P1, Cvss4P0 } = cvssCalculator;

export type CvssVersion = '2.0' | '3.0' | '3.1' | '4.0';
export type CvssSeverity = Severity | 'none';

export interface CvssScore {
  /** The vector as the record gives it, trimmed. */
  vector: string;
  baseScore: number;
  severity: CvssSeverity;
  version: CvssVersion;
}

/** Most preferred first. */
const VERSION_PREFERENCE: CvssVersion[] = ['4.0', '3.1', '3.0', '2.0'];

/**
 * The base score of the newest CVSS version among an OSV record's severities (v4, then v3.1, v3.0, v2);
 * the first valid vector of that version wins. Vectors that are malformed or leave a base metric out are
 * skipped. Null when none is usable.
 */
export function scoreCvss(severities: readonly OsvSeverity[] | undefined): CvssScore | null {
  const scores = (severities ?? []).map(scoreOne).filter((s) => s !== null);
  for (const version of VERSION_PREFERENCE) {
    const score = scores.find((s) => s.version === version);
    if (score) return score;
  }
  return null;
}

function scoreOne(severity: OsvSeverity): CvssScore | null {
  if (typeof severity?.score !== 'string' || !/^CVSS_V[234]$/.test(severity.type)) return null;
  const vector = severity.score.trim();
  const version = vectorVersion(vector);
  if (!version || repeatsAMetric(vector)) return null;
  const baseScore = baseScoreOf(version, vector);
  return baseScore === null ? null : { vector, baseScore, severity: severityOf(version, baseScore), version };
}

/** The version a vector declares; CVSS v2 vectors in OSV often come bare (`AV:N/AC:L/…`) or in parentheses. */
function vectorVersion(vector: string): CvssVersion | null {
  const prefix = /^CVSS:(\d\.\d)\//.exec(vector)?.[1];
  if (prefix) return (VERSION_PREFERENCE as string[]).includes(prefix) ? (prefix as CvssVersion) : null;
  return /^\(?AV:[LAN]\/AC:[HML]\/Au:[MSN]\//.test(vector) ? '2.0' : null;
}

// The specification forbids naming a metric twice; the calculator would quietly keep the last value.
function repeatsAMetric(vector: string): boolean {
  const metrics = vector.replace(/^\(|\)$/g, '').split('/').map((part) => part.split(':')[0]);
  return new Set(metrics).size !== metrics.length;
}

function baseScoreOf(version: CvssVersion, vector: string): number | null {
  try {
    switch (version) {
      case '4.0': {
        const cvss = new Cvss4P0(vector);
        // A v4 vector's overall score folds in threat and environmental metrics; the base score does not.
        return cvss.isBaseFullyDefined() ? (cvss.calculateScores().baseMetricsOnly ?? null) : null;
      }
      case '3.1':
      case '3.0': {
        const cvss = version === '3.1' ? new Cvss3P1(vector) : new Cvss3P0(vector);
        return cvss.isBaseFullyDefined() ? (cvss.calculateScores().base ?? null) : null;
      }
      case '2.0': {
        const cvss = new Cvss2(vector.replace(/^CVSS:2\.0\//, '').replace(/^\((.*)\)$/, '$1'));
        return cvss.isBaseFullyDefined() ? (cvss.calculateScores().base ?? null) : null;
      }
    }
  } catch {
    // The calculator throws on metrics or values it does not know: not a usable vector.
    return null;
  }
}

/** Qualitative ratings: CVSS v3.x and v4.0 share theirs; v2 (as NVD rates it) stops at high. */
function severityOf(version: CvssVersion, score: number): CvssSeverity {
  if (version === '2.0') return score >= 7 ? 'high' : score >= 4 ? 'medium' : 'low';
  if (score === 0) return 'none';
  return score >= 9 ? 'critical' : score >= 7 ? 'high' : score >= 4 ? 'medium' : 'low';
}

const DATABASE_SEVERITIES: Record<string, Exclude<CvssSeverity, 'none'>> = {
  CRITICAL: 'critical',
  HIGH: 'high',
  MODERATE: 'medium',
  MEDIUM: 'medium',
  LOW: 'low',
};

/** GHSA-style `database_specific.severity` (CRITICAL, HIGH, MODERATE, LOW) as a severity; null otherwise. */
export function severityFromDatabase(label?: string | null): Exclude<CvssSeverity, 'none'> | null {
  return typeof label === 'string' ? (DATABASE_SEVERITIES[label.trim().toUpperCase()] ?? null) : null;
}
