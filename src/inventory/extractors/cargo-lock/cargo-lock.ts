import { parse as parseToml } from 'smol-toml';
import { component, type Component } from '../../component.ts';
import { ExtractError, parserReason, type Extractor, type ManifestFile } from '../extractor.ts';
import { LOCKFILES } from '../../lockfiles.ts';

interface LockedPackage {
  name: string;
  version: string;
  /** Absent for the workspace's own crates and for path dependencies. */
  source?: string;
  dependencies: string[];
  /** The SHA-256 of the crate's archive, lowercase hex. */
  checksum?: string;
}

/** A `dependencies` entry: `name`, `name version` or, in version 1 lockfiles, `name version (source)`. */
interface DependencyRef {
  name: string;
  version?: string;
}

export const cargoLockExtractor: Extractor = {
  id: 'cargo-lock',
  ecosystem: 'crates.io',
  docs: '`Cargo.lock`',
  fileNames: LOCKFILES['cargo-lock'],
  lockfile: true,
  extract(file) {
    const packages = readPackages(file);
    const members = packages.filter((p) => p.source === undefined);
    const memberDependencies = members.flatMap((m) => m.dependencies.map(parseDependencyRef));
    const isDirect = (p: LockedPackage): boolean | null =>
      members.length === 0
        ? null
        : memberDependencies.some((d) => d.name === p.name && (d.version === undefined || d.version === p.version));
    // Crates without a source are the workspace's own members and path dependencies: listed as
    // first-party, so they are told apart from crates.io packages and never matched against advisories.
    const components = packages.map(
      (p): Component =>
        component({
          name: p.name,
          version: p.version,
          ecosystem: 'crates.io',
          direct: isDirect(p),
          ...(p.source === undefined ? { firstParty: true } : {}),
          sourceFile: file.path,
        }),
    );
    // The graph: a `dependencies` entry names a crate alone when the lock holds one version of it.
    packages.forEach((p, index) => {
      const dependsOn = p.dependencies.flatMap((entry) => {
        const ref = parseDependencyRef(entry);
        const target = packages.findIndex((q) => q.name === ref.name && (ref.version === undefined || q.version === ref.version));
        return target === -1 ? [] : [components[target]!.purl];
      });
      if (dependsOn.length) components[index]!.dependsOn = [...new Set(dependsOn)].sort();
      if (p.checksum) components[index]!.hashes = [{ algorithm: 'SHA-256', content: p.checksum }];
    });
    return components;
  },
};

function readPackages(file: ManifestFile): LockedPackage[] {
  let document: Record<string, unknown>;
  try {
    document = parseToml(file.text);
  } catch (error) {
    throw new ExtractError(file.path, `not valid TOML: ${parserReason(error)}`);
  }
  const packages = document.package ?? [];
  // Even a lone crate is listed itself, so a lockfile always has at least one package.
  if (document.package === undefined && document.root === undefined) throw new ExtractError(file.path, 'no [[package]] entries');
  if (!Array.isArray(packages)) throw new ExtractError(file.path, '`package` is not an array of tables');
  // Lockfiles from before Cargo 0.23 keep the root crate in a [root] table of its own.
  const entries: unknown[] = document.root === undefined ? packages : [document.root, ...packages];
  return entries.map((entry, index) => {
    const { name, version, source, dependencies = [], checksum } = (entry ?? {}) as Record<string, unknown>;
    if (typeof name !== 'string' || typeof version !== 'string') {
      throw new ExtractError(file.path, `package ${index + 1} lacks a name or version`);
    }
    if (source !== undefined && typeof source !== 'string') throw new ExtractError(file.path, `package ${name}: source is not a string`);
    if (!Array.isArray(dependencies) || !dependencies.every((d) => typeof d === 'string')) {
      throw new ExtractError(file.path, `package ${name}: dependencies is not a list of strings`);
    }
    // Lockfiles before version 2 keep checksums in a [metadata] table instead; those are not read.
    const sha256 = typeof checksum === 'string' && /^[0-9a-f]{64}$/.test(checksum) ? checksum : undefined;
    return { name, version, source, dependencies, checksum: sha256 };
  });
}

function parseDependencyRef(entry: string): DependencyRef {
  const [name, version] = entry.trim().split(/\s+/);
  return { name, version };
}
