import pep440 from '@renovatebot/pep440';
import rubyGems from '@renovatebot/ruby-semver';
import phpVersionCompare from 'locutus/php/info/version_compare.js';
import semver from 'semver';
import type { Ecosystem } from '../inventory/component.ts';
import { compareMavenVersions } from './maven-version.ts';

// How each ecosystem orders its versions, so OSV ranges can be evaluated offline.
//
// compare() never throws: a version its scheme cannot parse sorts before every valid one, and two such
// versions sort by their text. That order is only there to keep sorting total; callers check isValid()
// and treat an invalid version as not comparable.

export interface VersionScheme {
  isValid(version: string): boolean;
  /** Negative, zero or positive as a sorts before, with or after b. */
  compare(a: string, b: string): number;
}

function scheme(isValid: (v: string) => boolean, compareValid: (a: string, b: string) => number): VersionScheme {
  return {
    isValid,
    compare(a, b) {
      const aValid = isValid(a);
      const bValid = isValid(b);
      if (aValid && bValid) return Math.sign(compareValid(a, b));
      if (aValid !== bValid) return aValid ? 1 : -1;
      return a < b ? -1 : a > b ? 1 : 0;
    },
  };
}

const isSemver = (v: string) => semver.valid(v) !== null;

/**
 * SemVer 2.0 precedence; build metadata is ignored. Accepts an optional leading `v`, which also makes it
 * the Go scheme: `+incompatible` is build metadata, and pseudo-versions are pre-releases.
 */
export const SEMVER_SCHEME: VersionScheme = scheme(isSemver, (a, b) => semver.compare(a, b));

/** Dart's pub_semver: SemVer, except that build metadata orders too (1.0.0 < 1.0.0+1 < 1.0.0+2). */
const PUB_SCHEME: VersionScheme = scheme(isSemver, (a, b) => semver.compareBuild(a, b));

/** PEP 440: 1.0.dev1 < 1.0a1 < 1.0rc1 < 1.0 < 1.0.post1, epochs and local versions included. */
const PYPI_SCHEME: VersionScheme = scheme((v) => pep440.valid(v) !== null, (a, b) => pep440.compare(a, b));

/** Gem::Version: a letter starts a pre-release, so 1.0.0.pre < 1.0.0. */
const RUBYGEMS_SCHEME: VersionScheme = scheme(
  (v) => v.trim() !== '' && rubyGems.valid(v) !== null,
  (a, b) => (rubyGems.eq(a, b) ? 0 : rubyGems.gt(a, b) ? 1 : -1),
);

// Maven accepts almost any string as a version; this rejects what cannot be one, such as an unresolved
// `${property}` or a version range, so those read as not comparable instead of sorting somewhere odd.
const MAVEN_VERSION = /^[0-9A-Za-z][0-9A-Za-z._+-]*$/;

/** Maven's ComparableVersion: 1.0-alpha < 1.0-SNAPSHOT < 1.0 = 1.0.0 = 1.0.Final < 1.0-sp < 1.0-1 < 1.0.1. */
const MAVEN_SCHEME: VersionScheme = scheme((v) => MAVEN_VERSION.test(v), compareMavenVersions);

const COMPOSER_STABILITY = '[._-]?(?:(stable|beta|b|RC|alpha|a|patch|pl|p)((?:[.-]?\\d+)*)?)?([.-]?dev)?';
const COMPOSER_CLASSIC = new RegExp(`^v?(\\d{1,5})(\\.\\d+)?(\\.\\d+)?(\\.\\d+)?${COMPOSER_STABILITY}$`, 'i');
const COMPOSER_DATE = new RegExp(`^v?(\\d{4}(?:[.:-]?\\d{2}){1,6}(?:[.:-]?\\d{1,3}){0,2})${COMPOSER_STABILITY}$`, 'i');

// PHP's version_compare knows dev < alpha = a < beta = b < RC < (release) < p = pl, matching `patch` by
// its first letter; locutus matches whole words only, so Composer's `patch` is written as `p`.
const PHP_STABILITY: Record<string, string> = { a: 'alpha', alpha: 'alpha', b: 'beta', beta: 'beta', rc: 'RC', p: 'p', pl: 'p', patch: 'p' };

/**
 * The simple part of Composer's VersionParser::normalize (composer/semver): strip build metadata and a
 * leading `v`, pad to four numbers, spell the stability suffix out. Branches (`dev-main`, `1.x-dev`) and
 * aliases are not versions that can be ordered, so they give null.
 */
export function normalizeComposerVersion(version: string): string | null {
  const withoutBuild = version.trim().replace(/^([^,\s+]+)\+\S+$/, '$1');
  let numbers: string;
  let modifier: (string | undefined)[];
  const classic = COMPOSER_CLASSIC.exec(withoutBuild);
  const date = classic ? null : COMPOSER_DATE.exec(withoutBuild);
  if (classic) {
    numbers = classic[1] + (classic[2] || '.0') + (classic[3] || '.0') + (classic[4] || '.0');
    modifier = classic.slice(5);
  } else if (date) {
    numbers = date[1].replace(/\D/g, '.');
    modifier = date.slice(2);
  } else {
    return null;
  }
  const [stability, stabilityNumber, dev] = modifier;
  let normalized = numbers;
  if (stability && stability.toLowerCase() !== 'stable') {
    normalized += `-${PHP_STABILITY[stability.toLowerCase()]}${(stabilityNumber ?? '').replace(/^[.-]+/, '')}`;
  }
  if (dev) normalized += '-dev';
  return normalized;
}

/** Composer: its normalization, then PHP's version_compare, as composer/semver's Constraint does. */
const PACKAGIST_SCHEME: VersionScheme = scheme(
  (v) => normalizeComposerVersion(v) !== null,
  (a, b) => phpVersionCompare(normalizeComposerVersion(a)!, normalizeComposerVersion(b)!),
);

// NuGet versions are SemVer 2.0 plus the legacy forms NuGet.Versioning still accepts: one to four
// numbers (1, 1.2, 1.2.3.4, missing ones count as 0) and pre-release labels compared case-insensitively.
// No maintained JavaScript library implements that, and `semver` rejects a fourth number and compares
// labels case-sensitively, so the numbers are compared here and the labels with semver's identifier rule.
const NUGET_VERSION = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

interface NugetVersion {
  numbers: bigint[];
  labels: string[];
}

function parseNugetVersion(version: string): NugetVersion | null {
  const match = NUGET_VERSION.exec(version.trim());
  if (!match) return null;
  return {
    numbers: match.slice(1, 5).map((n) => BigInt(n ?? 0)),
    labels: match[5] ? match[5].toLowerCase().split('.') : [],
  };
}

function compareNugetVersions(a: NugetVersion, b: NugetVersion): number {
  for (let i = 0; i < 4; i++) {
    if (a.numbers[i] !== b.numbers[i]) return a.numbers[i] < b.numbers[i] ? -1 : 1;
  }
  if (!a.labels.length || !b.labels.length) return b.labels.length - a.labels.length;
  for (let i = 0; i < Math.min(a.labels.length, b.labels.length); i++) {
    const order = semver.compareIdentifiers(a.labels[i], b.labels[i]);
    if (order !== 0) return order;
  }
  return a.labels.length - b.labels.length;
}

const NUGET_SCHEME: VersionScheme = scheme(
  (v) => parseNugetVersion(v) !== null,
  (a, b) => compareNugetVersions(parseNugetVersion(a)!, parseNugetVersion(b)!),
);

const SCHEMES: Record<Ecosystem, VersionScheme> = {
  npm: SEMVER_SCHEME,
  'crates.io': SEMVER_SCHEME,
  Go: SEMVER_SCHEME,
  Pub: PUB_SCHEME,
  PyPI: PYPI_SCHEME,
  RubyGems: RUBYGEMS_SCHEME,
  Maven: MAVEN_SCHEME,
  Packagist: PACKAGIST_SCHEME,
  NuGet: NUGET_SCHEME,
  // Action tags (v4.1.1), Hex, SwiftPM, CocoaPods and JSR versions are SemVer; a ref SemVer cannot read
  // (`v4`, a branch, a commit SHA) is not comparable, so only an exact listed version matches it.
  'GitHub Actions': SEMVER_SCHEME,
  Hex: SEMVER_SCHEME,
  SwiftURL: SEMVER_SCHEME,
  CocoaPods: SEMVER_SCHEME,
  JSR: SEMVER_SCHEME,
  // ConanCenter and CRAN versions are mostly dotted numbers; RubyGems' ordering reads those and
  // ConanCenter's `cci.20230101` snapshots alike.
  ConanCenter: RUBYGEMS_SCHEME,
  CRAN: RUBYGEMS_SCHEME,
  conda: PYPI_SCHEME,
  vcpkg: RUBYGEMS_SCHEME,
};

export function versionScheme(ecosystem: Ecosystem): VersionScheme {
  return SCHEMES[ecosystem];
}
