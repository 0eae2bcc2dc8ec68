import { versionScheme } from '../../osv/versions.ts';
import type { Ecosystem } from '../../sbom/component.ts';

/** One vulnerable dependency to raise, as an sbom finding records it. */
export interface DependencyBump {
  name: string;
  ecosystem: Ecosystem;
  installed: string;
  fixed: string;
  /** Repository path of the lockfile or manifest the scan found it in. */
  file: string;
}

/** What a format's bump produces: new texts for the files it changed and a sentence saying what it did. */
export type BumpResult =
  | { kind: 'bumped'; files: Map<string, string>; note: string }
  | { kind: 'already'; note: string }
  | { kind: 'refused'; reason: string };

/** Reads a repository file by path; null when it does not exist. */
export type ReadFile = (path: string) => Promise<string | null>;

export function refused(reason: string): BumpResult {
  return { kind: 'refused', reason };
}

/**
 * Whether a copy at `version` is one the bump must raise: the vulnerable version or a later one still
 * below the fix (an earlier fix in the same run may have raised it part of the way, for another advisory).
 */
export function needsBump(bump: DependencyBump, version: string): boolean {
  if (version === bump.installed) return true;
  const scheme = versionScheme(bump.ecosystem);
  if (!scheme.isValid(version) || !scheme.isValid(bump.installed) || !scheme.isValid(bump.fixed)) return false;
  return scheme.compare(version, bump.installed) >= 0 && scheme.compare(version, bump.fixed) < 0;
}

/** Nothing left below the fixed version: an earlier fix already raised it, or it is gone. */
export function alreadyFixed(bump: DependencyBump): BumpResult {
  return { kind: 'already', note: `${bump.file} has no ${bump.name} older than ${bump.fixed} any more; nothing to change` };
}
