import { component, packageUrl, type Component, type ComponentHash, type HashAlgorithm } from '../../component.ts';

/** A package as one place in a JavaScript lockfile resolves it, before copies at other places are merged. */
export interface LockedPackage {
  name: string;
  version: string;
  direct: boolean | null;
  /** Left out where the lockfile does not tell. */
  development?: boolean;
  /** The packages this copy resolves its dependencies to, where the lockfile records them. */
  dependsOn?: { name: string; version: string }[];
  /** The lockfile's Subresource Integrity string (`sha512-<base64>`, several separated by spaces). */
  integrity?: string;
  /** The license the lockfile declares for the package. */
  license?: string;
}

/**
 * One component per name@version, sorted: a package installed at several places is direct if any copy
 * is, and development-only only if every copy is; its dependencies are those of every copy.
 */
export function lockedPackagesToComponents(packages: Iterable<LockedPackage>, sourceFile: string): Component[] {
  const merged = new Map<string, LockedPackage>();
  for (const pkg of packages) {
    const key = `${pkg.name}@${pkg.version}`;
    const seen = merged.get(key);
    merged.set(key, seen ? mergeCopies(seen, pkg) : pkg);
  }
  return [...merged.values()]
    .sort((a, b) => compareText(a.name, b.name) || compareText(a.version, b.version))
    .map(({ name, version, direct, development, dependsOn, integrity, license }) => {
      const found = component({ name, version, ecosystem: 'npm', direct, ...(development === undefined ? {} : { development }), sourceFile });
      if (dependsOn?.length) {
        found.dependsOn = [...new Set(dependsOn.map((d) => packageUrl('npm', d.name, d.version)))].sort();
      }
      const hashes = integrity === undefined ? [] : integrityHashes(integrity);
      if (hashes.length) found.hashes = hashes;
      if (license) found.licenses = [license];
      return found;
    });
}

function mergeCopies(a: LockedPackage, b: LockedPackage): LockedPackage {
  const direct = a.direct === true || b.direct === true ? true : a.direct === false && b.direct === false ? false : null;
  const development =
    a.development === false || b.development === false ? false : a.development && b.development ? true : undefined;
  const dependsOn = a.dependsOn || b.dependsOn ? [...(a.dependsOn ?? []), ...(b.dependsOn ?? [])] : undefined;
  return {
    name: a.name,
    version: a.version,
    direct,
    development,
    ...(dependsOn ? { dependsOn } : {}),
    ...((a.integrity ?? b.integrity) ? { integrity: a.integrity ?? b.integrity } : {}),
    ...((a.license ?? b.license) ? { license: a.license ?? b.license } : {}),
  };
}

const SRI_ALGORITHMS: Record<string, HashAlgorithm> = { sha1: 'SHA-1', sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' };

/** The digests of a Subresource Integrity string (`sha512-<base64>` …), as hex; what is not one is skipped. */
export function integrityHashes(integrity: string): ComponentHash[] {
  const hashes: ComponentHash[] = [];
  for (const part of integrity.trim().split(/\s+/)) {
    const match = /^(sha1|sha256|sha384|sha512)-([A-Za-z0-9+/]+={0,2})(?:\?.*)?$/.exec(part);
    if (!match) continue;
    const algorithm = SRI_ALGORITHMS[match[1]!]!;
    const content = Buffer.from(match[2]!, 'base64').toString('hex');
    if (content.length * 4 === digestBits(algorithm) && !hashes.some((h) => h.algorithm === algorithm)) hashes.push({ algorithm, content });
  }
  return hashes;
}

function digestBits(algorithm: HashAlgorithm): number {
  return { 'SHA-1': 160, 'SHA-256': 256, 'SHA-384': 384, 'SHA-512': 512 }[algorithm as string] ?? 0;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
