import type { Ecosystem } from '../inventory/component.ts';

/**
 * The form of a package name under which OSV records and components meet: the ecosystem's own
 * equivalence (PEP 503 for PyPI; case-insensitive names for Packagist, NuGet, GitHub repositories and
 * Swift package URLs), exact elsewhere.
 */
export function packageKey(ecosystem: Ecosystem, name: string): string {
  switch (ecosystem) {
    case 'PyPI':
      return name.toLowerCase().replace(/[-_.]+/g, '-');
    case 'Packagist':
    case 'NuGet':
    case 'GitHub Actions':
    case 'SwiftURL':
      return name.toLowerCase();
    default:
      return name;
  }
}
