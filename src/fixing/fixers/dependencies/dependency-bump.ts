import pep440 from '@renovatebot/pep440';
import semver from 'semver';
import { versionScheme } from '../../../osv/versions.ts';
import type { Ecosystem } from '../../../inventory/component.ts';
import type { PackageRegistry } from './package-registry.ts';
import type { Move } from './python-resolve.ts';

/** One vulnerable dependency to raise, as an sbom finding records it. */
export interface DependencyBump {
  name: string;
  ecosystem: Ecosystem;
  installed: string;
  fixed: string;
  /** Repository path of the lockfile or manifest the scan found it in. */
  file: string;
}

/**
 * A range an npm lock bump set to an exact version so that npm, regenerating the lock, installs exactly
 * the chosen one; once npm is done, `range` is written back in `file` at `path`.
 */
export interface LockPin {
  file: string;
  path: string[];
  range: string;
}

/** What a bump can consult beyond the work tree: the registries, and the package's other advisories. */
export interface BumpContext {
  registry: PackageRegistry;
  /** Whether a version of the bumped package is clear of every advisory known for it. */
  isClear(version: string): Promise<boolean>;
  signal?: AbortSignal;
}

/**
 * What a format's bump produces: new texts for the files it changed, a sentence saying what it did, and,
 * when it resolved versions, every package it moved (the fixed one first).
 */
export type BumpResult =
  | { kind: 'bumped'; files: Map<string, string>; note: string; moves?: Move[]; pins?: LockPin[] }
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

/** The fixed package's note, then the pins that moved with it. */
export function movesNote(note: string, moves: Move[]): string {
  const along = moves.filter((move) => move.requiredBy);
  if (!along.length) return note;
  return `${note}; to keep the file installable with ${moves[0].name} ${moves[0].to}, also moved ${along.map((m) => `${m.name} ${m.from} → ${m.to}`).join(', ')}`;
}

/** Whether a move crosses a major version (Django 1.9 → 3.2, lodash 3 → 4). */
export function crossesMajor(ecosystem: Ecosystem, from: string, to: string): boolean {
  if (ecosystem === 'PyPI') return pep440.valid(from) !== null && pep440.valid(to) !== null && pep440.major(to) > pep440.major(from);
  const a = semver.coerce(from);
  const b = semver.coerce(to);
  return a !== null && b !== null && b.major > a.major;
}

/** The note a move to a new major version gets; pull request titles look for its wording (see pullRequestTitle). */
export function majorVersionNote(move: { name: string; from: string; to: string }): string {
  return `${move.name} moves from ${move.from} to ${move.to}, a new major version: read its changelog for breaking changes and run the tests before merging`;
}
