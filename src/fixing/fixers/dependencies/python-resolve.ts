import pep440 from '@renovatebot/pep440';
import { normalizePythonName } from '../../../inventory/extractors/python/python-names.ts';
import type { PackageRegistry } from './package-registry.ts';

// Which versions a Python manifest's exact pins must take so that one package reaches a fixed version and
// pip can still install the whole file: the smallest release of the package at or above the fix (and
// clear of every other advisory of it) for which the other pins can be kept, or raised to the smallest
// releases that satisfy what the new versions require. A pinned package that requires a raised one is
// raised too when its pinned release excludes the new version, or when it was written for an earlier
// major version of it (its later releases ask for the new major, as Flask 3 does of Werkzeug 3).

export interface Pin {
  /** The name as the manifest writes it. */
  name: string;
  version: string;
}

export interface Move {
  name: string;
  from: string;
  to: string;
  /** The package whose new release required this one to move; absent for the package being fixed. */
  requiredBy?: string;
}

export type Resolution = { moves: Move[] } | { refused: string };

export interface ResolveInput {
  /** The manifest's `==` pins by normalized name, the package being fixed among them. */
  pins: Map<string, Pin>;
  name: string;
  /** The lowest version that fixes the finding's advisory. */
  fixed: string;
  /** Whether a version of the package is clear of every advisory known for it. */
  isClear(version: string): Promise<boolean>;
  registry: PackageRegistry;
  signal?: AbortSignal;
}

/** Candidate releases of the fixed package tried before giving up. */
const CANDIDATES = 25;
/** Releases of a co-pinned package tried when looking for one that accepts the new versions. */
const DEPENDENT_RELEASES = 40;
const MAX_ROUNDS = 50;
/** Registry requests made at once. */
const PREFETCH = 8;

interface Requirement {
  name: string;
  specifier: string;
}

/** `name [extras] specifier ; marker`, or the older `name (specifier)`; requirements of extras are left out. */
export function parseRequirement(line: string): Requirement | null {
  const [body, marker = ''] = line.split(';', 2);
  if (/\bextra\s*==/.test(marker) || body.includes('@')) return null;
  const match = /^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*\(?([^()]*)\)?\s*$/.exec(body);
  return match ? { name: normalizePythonName(match[1]), specifier: match[2].trim() } : null;
}

function satisfies(version: string, specifier: string): boolean {
  if (!specifier) return true;
  try {
    return pep440.satisfies(version, specifier);
  } catch {
    return true;
  }
}

const majorOf = (version: string) => pep440.major(version);

/** The highest version a specifier's lower bounds name (`>=2.2.2,<3` → 2.2.2), or null without any. */
function floorOf(specifier: string): string | null {
  let floor: string | null = null;
  for (const clause of specifier.split(',')) {
    const match = /^\s*(>=|>|==|~=|===)\s*([^\s*]+)\s*$/.exec(clause);
    if (match && pep440.valid(match[2]) !== null && (floor === null || pep440.gt(match[2], floor))) floor = match[2];
  }
  return floor;
}

class Resolver {
  readonly #input: ResolveInput;
  constructor(input: ResolveInput) {
    this.#input = input;
  }

  async releases(name: string, from: string): Promise<string[]> {
    const all = await this.#input.registry.pythonReleases(name, this.#input.signal);
    const allowPre = pep440.explain(from)?.is_prerelease ?? false;
    return all
      .filter((r) => !r.yanked && pep440.gte(r.version, from) && (allowPre || !pep440.explain(r.version)!.is_prerelease))
      .map((r) => r.version);
  }

  /** The requirements of a release on other pinned packages. */
  async requirements(name: string, version: string): Promise<Requirement[]> {
    const lines = await this.#input.registry.pythonRequirements(name, version, this.#input.signal);
    return lines.map(parseRequirement).filter((r): r is Requirement => r !== null && r.name !== name && this.#input.pins.has(r.name));
  }

  /** Settles every other pin around one release of the package, or says which requirement cannot be met. */
  async settle(candidate: string): Promise<Map<string, string> | string> {
    const { pins } = this.#input;
    const target = normalizePythonName(this.#input.name);
    const chosen = new Map<string, string>([[target, candidate]]);
    /** Per package, what each chosen release requires of it. */
    const wanted = new Map<string, Map<string, string>>();
    const queue = [target];
    const versionOf = (name: string) => chosen.get(name) ?? pins.get(name)!.version;
    const move = async (name: string, requiredBy: string): Promise<string | null> => {
      const specifiers = [...(wanted.get(name)?.values() ?? [])];
      const current = versionOf(name);
      if (specifiers.every((s) => satisfies(current, s))) return null;
      const fit = (await this.releases(name, pins.get(name)!.version)).find((v) => specifiers.every((s) => satisfies(v, s)));
      if (!fit) return `no release of ${pins.get(name)!.name} from ${pins.get(name)!.version} on satisfies ${specifiers.join(' and ')} (required by ${requiredBy})`;
      chosen.set(name, fit);
      queue.push(name);
      return null;
    };

    for (let round = 0; round < MAX_ROUNDS && queue.length; round++) {
      // What the chosen releases require of the other pins.
      while (queue.length) {
        const name = queue.shift()!;
        for (const requirement of await this.requirements(name, versionOf(name))) {
          const byRequirer = wanted.get(requirement.name) ?? new Map<string, string>();
          byRequirer.set(name, requirement.specifier);
          wanted.set(requirement.name, byRequirer);
          const problem = await move(requirement.name, `${pins.get(name)!.name} ${versionOf(name)}`);
          if (problem) return problem;
        }
      }
      // The pins left alone that require a chosen package: raised when they exclude its new version.
      for (const [name, pin] of pins) {
        if (chosen.has(name)) continue;
        if (await this.accepts(name, pin.version, chosen)) continue;
        let found: string | undefined;
        for (const version of (await this.releases(name, pin.version)).slice(0, DEPENDENT_RELEASES)) {
          if (await this.accepts(name, version, chosen)) {
            found = version;
            break;
          }
        }
        if (!found) return `${pin.name} ${pin.version} requires ${this.#input.name} below ${candidate}, and none of its next releases accepts the new versions`;
        chosen.set(name, found);
        queue.push(name);
      }
    }
    if (queue.length) return `the pins of the file did not settle`;
    return chosen;
  }

  /** Whether a release of a pinned package works with the chosen versions of the packages it requires. */
  async accepts(name: string, version: string, chosen: Map<string, string>): Promise<boolean> {
    for (const requirement of await this.requirements(name, version)) {
      const to = chosen.get(requirement.name);
      if (to === undefined) continue;
      if (!satisfies(to, requirement.specifier)) return false;
      const from = this.#input.pins.get(requirement.name)!.version;
      if (majorOf(to) > majorOf(from) && !(await this.writtenFor(name, version, requirement, to))) return false;
    }
    return true;
  }

  /**
   * Whether a release that requires a package which moved to a new major version was written for that
   * major: its own lower bound is in it, or the package's latest release asks for no later major either.
   */
  async writtenFor(name: string, version: string, requirement: Requirement, to: string): Promise<boolean> {
    const floor = floorOf(requirement.specifier);
    if (floor !== null && majorOf(floor) >= majorOf(to)) return true;
    const releases = await this.releases(name, version);
    const latest = releases.at(-1);
    if (!latest || latest === version) return true;
    const latestRequirement = (await this.requirements(name, latest)).find((r) => r.name === requirement.name);
    const latestFloor = latestRequirement ? floorOf(latestRequirement.specifier) : null;
    return latestFloor === null || majorOf(latestFloor) < majorOf(to);
  }
}

export async function resolvePins(input: ResolveInput): Promise<Resolution> {
  const resolver = new Resolver(input);
  const target = normalizePythonName(input.name);
  // Every pin's own requirements are read to check it against the new versions: asked for a few at a time.
  const pins = [...input.pins];
  for (let i = 0; i < pins.length; i += PREFETCH) await Promise.all(pins.slice(i, i + PREFETCH).map(([name, pin]) => resolver.requirements(name, pin.version)));
  const candidates = await resolver.releases(input.name, input.fixed);
  if (!candidates.length) return { refused: `${input.registry.settings.pypiUrl} lists no release of ${input.name} from ${input.fixed} on` };
  let firstProblem: string | null = null;
  let tried = 0;
  for (const candidate of candidates) {
    if (!(await input.isClear(candidate))) continue;
    if (tried++ >= CANDIDATES) break;
    const settled = await resolver.settle(candidate);
    if (typeof settled === 'string') {
      firstProblem ??= `with ${input.name} ${candidate}, ${settled}`;
      continue;
    }
    // The fixed package first, then the others in the order the file lists them.
    const moves: Move[] = [{ name: input.pins.get(target)!.name, from: input.pins.get(target)!.version, to: settled.get(target)! }];
    for (const [name, pin] of input.pins) {
      const to = settled.get(name);
      if (name !== target && to !== undefined && to !== pin.version) moves.push({ name: pin.name, from: pin.version, to, requiredBy: input.name });
    }
    return { moves };
  }
  return { refused: firstProblem ?? `every release of ${input.name} from ${input.fixed} on is affected by another advisory` };
}
