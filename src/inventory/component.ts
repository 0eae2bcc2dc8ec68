import { PackageURL } from 'packageurl-js';

/** Ecosystems by their OSV names, so a component's ecosystem can be looked up in OSV data as it is. */
export const ECOSYSTEMS = [
  'npm', 'PyPI', 'Go', 'crates.io', 'Maven', 'RubyGems', 'Packagist', 'NuGet', 'Pub',
  'GitHub Actions', 'Hex', 'SwiftURL', 'ConanCenter', 'CRAN',
  // No OSV data under these names (yet): listed in the SBOM, matched against nothing.
  'CocoaPods', 'JSR', 'conda', 'vcpkg',
] as const;
export type Ecosystem = (typeof ECOSYSTEMS)[number];

/** Ecosystems OSV publishes no records for: their components are listed, and nothing can match them. */
export const WITHOUT_OSV_RECORDS: readonly Ecosystem[] = ['CocoaPods', 'JSR', 'conda', 'vcpkg'];

/** One dependency as a manifest or lockfile states it. */
export interface Component {
  /**
   * The ecosystem's own name: `@scope/pkg` for npm, `group:artifact` for Maven, the module path for Go,
   * `vendor/package` for Packagist, the distribution name as written for PyPI.
   */
  name: string;
  version: string;
  ecosystem: Ecosystem;
  purl: string;
  /** True for a dependency the project declares itself, false for one pulled in by another; null where the format does not say. */
  direct: boolean | null;
  /** True when the format marks it as needed for development or tests only. */
  development?: boolean;
  /** Repository-relative POSIX path of the file it came from. */
  sourceFile: string;
  /**
   * A package of the project itself (a module of the same Maven reactor, a workspace member): listed,
   * never matched against vulnerability records.
   */
  firstParty?: boolean;
  /** Why the component is listed as it is, e.g. why it has no version (one the repository cannot tell). */
  note?: string;
  /** The purls of the components of the same file this one depends on, where the file records the graph. */
  dependsOn?: string[];
  /** Digests of the package's artifact the file records (lockfile integrity fields), as lowercase hex. */
  hashes?: ComponentHash[];
  /** Licenses the file declares for the package: SPDX ids or expressions, else the names as written. */
  licenses?: string[];
}

/** CycloneDX's hash algorithm names. */
export type HashAlgorithm = 'MD5' | 'SHA-1' | 'SHA-256' | 'SHA-384' | 'SHA-512' | 'BLAKE2b-256' | 'BLAKE2b-512' | 'BLAKE3';

export interface ComponentHash {
  algorithm: HashAlgorithm;
  /** Lowercase hex. */
  content: string;
}

const PURL_TYPES: Record<Ecosystem, string> = {
  npm: 'npm',
  PyPI: 'pypi',
  Go: 'golang',
  'crates.io': 'cargo',
  Maven: 'maven',
  RubyGems: 'gem',
  Packagist: 'composer',
  NuGet: 'nuget',
  Pub: 'pub',
  'GitHub Actions': 'githubactions',
  Hex: 'hex',
  SwiftURL: 'swift',
  CocoaPods: 'cocoapods',
  ConanCenter: 'conan',
  CRAN: 'cran',
  JSR: 'jsr',
  conda: 'conda',
  vcpkg: 'vcpkg',
};

/** Splits a name into namespace and name the way each purl type defines it (CycloneDX groups follow it too). */
export function splitNamespace(ecosystem: Ecosystem, name: string): [string | undefined, string] {
  switch (ecosystem) {
    case 'npm':
    case 'JSR':
      if (name.startsWith('@') && name.includes('/')) return [name.slice(0, name.indexOf('/')), name.slice(name.indexOf('/') + 1)];
      return [undefined, name];
    case 'Maven': {
      const [group, artifact] = name.split(':');
      return artifact ? [group, artifact] : [undefined, name];
    }
    case 'Go':
    case 'Packagist':
    case 'SwiftURL':
    case 'GitHub Actions': {
      const cut = name.lastIndexOf('/');
      return cut > 0 ? [name.slice(0, cut), name.slice(cut + 1)] : [undefined, name];
    }
    default:
      return [undefined, name];
  }
}

/** The package URL (https://github.com/package-url/purl-spec) of a component. */
export function packageUrl(ecosystem: Ecosystem, name: string, version: string): string {
  const [namespace, shortName] = splitNamespace(ecosystem, name);
  return new PackageURL(PURL_TYPES[ecosystem], namespace, shortName, version || undefined, undefined, undefined).toString();
}

export function component(fields: Omit<Component, 'purl'>): Component {
  return { ...fields, purl: packageUrl(fields.ecosystem, fields.name, fields.version) };
}
