import type { Component, ComponentHash, HashAlgorithm } from '../../component.ts';
import { normalizePythonName } from './python-names.ts';
import { isTable, type Table } from './python-project-files.ts';

// What poetry.lock and uv.lock record beyond names and versions, for the SBOM: each package's
// dependencies (the graph) and the hashes of its release files. The choice of one artifact's hash
// (releaseHashes) is shared with pdm.lock and Pipfile.lock, the reading of a `files` list (listedFiles)
// with pdm.lock.

/** One file of a release as a lock records it: its name or URL and its `<algorithm>:<hex>` hash. */
export interface LockedArtifact {
  file: string;
  hash: unknown;
}

const ALGORITHMS: Record<string, HashAlgorithm> = { md5: 'MD5', sha1: 'SHA-1', sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' };

/**
 * Sets `dependsOn` and `hashes` of the components a poetry.lock or uv.lock lists, from their
 * `[[package]]` tables (matched by name and version). A dependency named without a version leads to
 * every locked version of it (several only under markers); uv names the version when there are several.
 */
export function attachLockDetails(components: Component[], packages: readonly Table[], format: 'poetry' | 'uv'): void {
  const entryOf = (c: Component) =>
    packages.find((entry) => typeof entry.name === 'string' && normalizePythonName(entry.name) === normalizePythonName(c.name) && (entry.version ?? '') === c.version);
  for (const found of components) {
    const entry = entryOf(found);
    if (!entry) continue;
    const references = format === 'poetry' ? poetryReferences(entry) : uvReferences(entry);
    const targets = references.flatMap(({ name, version }) =>
      components.filter((c) => c !== found && normalizePythonName(c.name) === name && (version === undefined || c.version === version)).map((c) => c.purl),
    );
    if (targets.length) found.dependsOn = [...new Set(targets)].sort();
    const hashes = releaseHashes(format === 'poetry' ? listedFiles(entry) : uvArtifacts(entry));
    if (hashes.length) found.hashes = hashes;
  }
}

interface Reference {
  name: string;
  version?: string;
}

function poetryReferences(entry: Table): Reference[] {
  return isTable(entry.dependencies) ? Object.keys(entry.dependencies).map((name) => ({ name: normalizePythonName(name) })) : [];
}

function uvReferences(entry: Table): Reference[] {
  const lists = [entry.dependencies, ...(isTable(entry['optional-dependencies']) ? Object.values(entry['optional-dependencies']) : [])];
  return lists.flatMap((list) =>
    (Array.isArray(list) ? list : []).filter(isTable).flatMap((reference) =>
      typeof reference.name === 'string'
        ? [{ name: normalizePythonName(reference.name), ...(typeof reference.version === 'string' ? { version: reference.version } : {}) }]
        : [],
    ),
  );
}

/**
 * A package's `files = [{ file, hash }]`, as poetry.lock and pdm.lock write them (pdm names a `url` instead
 * when the lock keeps static URLs); poetry.lock 1.1 keeps them in `[metadata.files]`, which poetry-lock.ts
 * moves onto the packages.
 */
export function listedFiles(entry: Table): LockedArtifact[] {
  return Array.isArray(entry.files) ? entry.files.filter(isTable).map((f) => ({ file: String(f.file ?? f.url ?? ''), hash: f.hash })) : [];
}

function uvArtifacts(entry: Table): LockedArtifact[] {
  const sdist = isTable(entry.sdist) ? [{ file: String(entry.sdist.url ?? entry.sdist.path ?? 'sdist'), hash: entry.sdist.hash }] : [];
  const wheels = Array.isArray(entry.wheels) ? entry.wheels.filter(isTable).map((w) => ({ file: String(w.url ?? w.path ?? ''), hash: w.hash })) : [];
  return [...sdist, ...wheels];
}

/**
 * The hash of the release as one artifact: its source distribution's, else that of its only file. A
 * release of platform wheels alone has no single artifact, so none is given.
 */
export function releaseHashes(artifacts: readonly LockedArtifact[]): ComponentHash[] {
  const sdists = artifacts.filter((a) => !/\.whl(?:[?#].*)?$/.test(a.file));
  const chosen = sdists.length === 1 ? sdists[0] : artifacts.length === 1 ? artifacts[0] : undefined;
  const hash = chosen && lockedHash(chosen.hash);
  return hash ? [hash] : [];
}

/** Hex digits of each algorithm's digest: a hash of another length is not one (and the CycloneDX schema refuses it). */
const HEX_LENGTHS: Partial<Record<HashAlgorithm, number>> = { MD5: 32, 'SHA-1': 40, 'SHA-256': 64, 'SHA-384': 96, 'SHA-512': 128 };

/** A lock's `<algorithm>:<hex>` hash (`sha256:…`), as CycloneDX names the algorithm; null for anything else. */
export function lockedHash(hash: unknown): ComponentHash | null {
  const match = typeof hash === 'string' ? /^(md5|sha1|sha256|sha384|sha512):([0-9a-fA-F]+)$/.exec(hash) : null;
  if (!match) return null;
  const algorithm = ALGORITHMS[match[1]!]!;
  return match[2]!.length === HEX_LENGTHS[algorithm] ? { algorithm, content: match[2]!.toLowerCase() } : null;
}
