import type { Ecosystem } from '../inventory/component.ts';
import type { OsvAffected, OsvEvent, OsvRange } from './record.ts';
import { SEMVER_SCHEME, versionScheme, type VersionScheme } from './versions.ts';

// Whether one version of a package falls in one OSV `affected` entry, following the schema's evaluation
// algorithm (https://ossf.github.io/osv-schema/#evaluation). The caller picks the entries of the package.

export interface AffectedMatch {
  affected: boolean;
  /**
   * Every `fixed` version of the entry's ranges above the installed version, nearest first; empty when
   * the version is not affected.
   */
  fixedVersions: string[];
}

type EventKind = 'introduced' | 'fixed' | 'last_affected';

interface RangeEvent {
  kind: EventKind;
  version: string;
}

interface EvaluableRange {
  events: RangeEvent[];
  scheme: VersionScheme;
}

/** `introduced: "0"` stands for a version before every other one, whatever the scheme. */
const BEFORE_EVERYTHING = '0';

export function affectedMatch(entry: OsvAffected, ecosystem: Ecosystem, version: string): AffectedMatch {
  const ecosystemScheme = versionScheme(ecosystem);
  const ranges = evaluableRanges(entry.ranges ?? [], ecosystemScheme, version);
  const affected = listedVersion(entry.versions ?? [], version, ecosystemScheme) || ranges.some((range) => inRange(range, version));
  return { affected, fixedVersions: affected ? fixedAbove(ranges, version, ecosystemScheme) : [] };
}

/** The lowest of some fixed versions in the ecosystem's order, e.g. across several entries of one advisory. */
export function nearestFixedVersion(ecosystem: Ecosystem, fixedVersions: readonly string[]): string | null {
  const scheme = versionScheme(ecosystem);
  const comparable = fixedVersions.filter((v) => scheme.isValid(v));
  return comparable.length ? comparable.reduce((lowest, v) => (scheme.compare(v, lowest) < 0 ? v : lowest)) : null;
}

/** The `versions` list: the exact string, or a version its scheme holds equal (`1.0` and `1.0.0` in PyPI). */
function listedVersion(listed: readonly string[], version: string, scheme: VersionScheme): boolean {
  if (listed.includes(version)) return true;
  return scheme.isValid(version) && listed.some((v) => scheme.isValid(v) && scheme.compare(v, version) === 0);
}

/**
 * The ECOSYSTEM and SEMVER ranges that can be evaluated for this version. GIT ranges need a commit graph
 * and are skipped, as are ranges whose versions (or the installed one) the scheme cannot order: guessing
 * there would invent or hide vulnerabilities. `limit` events only matter for GIT ranges.
 */
function evaluableRanges(ranges: readonly OsvRange[], ecosystemScheme: VersionScheme, version: string): EvaluableRange[] {
  const evaluable: EvaluableRange[] = [];
  for (const range of ranges) {
    const scheme = range.type === 'ECOSYSTEM' ? ecosystemScheme : range.type === 'SEMVER' ? SEMVER_SCHEME : null;
    if (!scheme || !scheme.isValid(version)) continue;
    const events = (range.events ?? []).map(rangeEvent).filter((e) => e !== null);
    const orderable = events.every((e) => scheme.isValid(e.version) || (e.kind === 'introduced' && e.version === BEFORE_EVERYTHING));
    if (orderable) evaluable.push({ events: sortEvents(events, scheme), scheme });
  }
  return evaluable;
}

function rangeEvent(event: OsvEvent): RangeEvent | null {
  if (typeof event.introduced === 'string') return { kind: 'introduced', version: event.introduced };
  if (typeof event.fixed === 'string') return { kind: 'fixed', version: event.fixed };
  if (typeof event.last_affected === 'string') return { kind: 'last_affected', version: event.last_affected };
  return null;
}

const isBeforeEverything = (e: RangeEvent) => e.kind === 'introduced' && e.version === BEFORE_EVERYTHING;

// The sort is stable, so events at equal versions keep the record's order: `fixed: 2.0` then
// `introduced: 2.0` reads as a range that ends and another that starts there.
function sortEvents(events: RangeEvent[], scheme: VersionScheme): RangeEvent[] {
  return [...events].sort((a, b) => {
    if (isBeforeEverything(a) || isBeforeEverything(b)) return Number(isBeforeEverything(b)) - Number(isBeforeEverything(a));
    return scheme.compare(a.version, b.version);
  });
}

function inRange({ events, scheme }: EvaluableRange, version: string): boolean {
  let affected = false;
  for (const event of events) {
    if (event.kind === 'introduced') {
      if (isBeforeEverything(event) || scheme.compare(version, event.version) >= 0) affected = true;
    } else if (event.kind === 'fixed') {
      if (scheme.compare(version, event.version) >= 0) affected = false;
    } else if (scheme.compare(version, event.version) > 0) {
      affected = false;
    }
  }
  return affected;
}

function fixedAbove(ranges: readonly EvaluableRange[], version: string, ecosystemScheme: VersionScheme): string[] {
  const fixed = new Set<string>();
  for (const { events, scheme } of ranges) {
    for (const event of events) if (event.kind === 'fixed' && scheme.compare(event.version, version) > 0) fixed.add(event.version);
  }
  return [...fixed].sort((a, b) => ecosystemScheme.compare(a, b));
}
