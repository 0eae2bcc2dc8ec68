import pep440 from '@renovatebot/pep440';
import semver from 'semver';
import { DEFAULT_PACKAGE_REGISTRIES, type PackageRegistrySettings } from '../../../config.ts';
import { normalizePythonName } from '../../../inventory/extractors/python/python-names.ts';

// Release metadata from the package registries a dependency fix resolves against: PyPI's JSON API
// (`/pypi/<name>/json` for the releases, `/pypi/<name>/<version>/json` for one release's requirements)
// and npm packuments (`<registry>/<name>`).
// Answers are kept per process, a bounded number of them, so the fixes of one run (and of the runs after
// it) ask the registry once per package and release.

/** The registry could not be asked (down, unreachable, or answering with something that is not metadata). */
export class RegistryUnreachable extends Error {}

export interface PythonRelease {
  version: string;
  yanked: boolean;
}

export interface PackageRegistry {
  readonly settings: PackageRegistrySettings;
  /** Every release of a PyPI project with files, in PEP 440 order; empty when the project does not exist. */
  pythonReleases(name: string, signal?: AbortSignal): Promise<PythonRelease[]>;
  /** A release's `Requires-Dist` lines, as its metadata gives them. */
  pythonRequirements(name: string, version: string, signal?: AbortSignal): Promise<string[]>;
  /** The published versions of an npm package not deprecated, in SemVer order; empty when it does not exist. */
  npmVersions(name: string, signal?: AbortSignal): Promise<string[]>;
}

const CACHE_ENTRIES = 2000;
const TIMEOUT_MS = 20_000;

/** A map that forgets its least recently used entries past a size. */
class BoundedCache<T> {
  readonly #entries = new Map<string, T>();
  readonly #limit: number;
  constructor(limit: number) {
    this.#limit = limit;
  }
  get(key: string): T | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }
  set(key: string, value: T): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#limit) this.#entries.delete(this.#entries.keys().next().value!);
  }
  delete(key: string): void {
    this.#entries.delete(key);
  }
}

export function createPackageRegistry(settings: PackageRegistrySettings): PackageRegistry {
  const cache = new BoundedCache<Promise<unknown>>(CACHE_ENTRIES);

  /** The JSON at a URL, null on 404; a failed request is not remembered, so the next fix asks again. */
  function getJson(url: string, signal?: AbortSignal): Promise<unknown> {
    let pending = cache.get(url);
    if (!pending) {
      pending = fetchJson(url, signal);
      cache.set(url, pending);
      pending.catch(() => cache.delete(url));
    }
    return pending;
  }

  const pypi = (path: string) => `${settings.pypiUrl}/pypi/${path}/json`;
  return {
    settings,
    async pythonReleases(name, signal) {
      const body = await getJson(pypi(encodeURIComponent(normalizePythonName(name))), signal);
      const releases = isObject(body) && isObject(body.releases) ? body.releases : {};
      const found: PythonRelease[] = [];
      for (const [version, files] of Object.entries(releases)) {
        if (pep440.valid(version) === null || !Array.isArray(files) || !files.length) continue;
        found.push({ version, yanked: files.every((file) => isObject(file) && file.yanked === true) });
      }
      return found.sort((a, b) => pep440.compare(a.version, b.version));
    },
    async pythonRequirements(name, version, signal) {
      const body = await getJson(pypi(`${encodeURIComponent(normalizePythonName(name))}/${encodeURIComponent(version)}`), signal);
      const requires = isObject(body) && isObject(body.info) ? body.info.requires_dist : null;
      return Array.isArray(requires) ? requires.filter((r): r is string => typeof r === 'string') : [];
    },
    async npmVersions(name, signal) {
      // Scoped names keep their `@` and encode the slash, as npm asks for them.
      const body = await getJson(`${settings.npmUrl}/${name.startsWith('@') ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name)}`, signal);
      const versions = isObject(body) && isObject(body.versions) ? body.versions : {};
      return Object.entries(versions)
        .filter(([version, manifest]) => semver.valid(version) !== null && !(isObject(manifest) && typeof manifest.deprecated === 'string'))
        .map(([version]) => version)
        .sort(semver.compare);
    },
  };
}

async function fetchJson(url: string, signal?: AbortSignal): Promise<unknown> {
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' }, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
  } catch (error) {
    signal?.throwIfAborted();
    throw new RegistryUnreachable(`${new URL(url).origin} could not be reached (${(error as Error).message})`);
  }
  if (response.status === 404) {
    await response.body?.cancel();
    return null;
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new RegistryUnreachable(`${new URL(url).origin} answered ${response.status}`);
  }
  try {
    return await response.json();
  } catch {
    throw new RegistryUnreachable(`${new URL(url).origin} answered with something that is not JSON`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

let defaultRegistry: PackageRegistry | undefined;

/** The public registries, for a fixer built without settings. */
export function defaultPackageRegistry(): PackageRegistry {
  defaultRegistry ??= createPackageRegistry(DEFAULT_PACKAGE_REGISTRIES);
  return defaultRegistry;
}
