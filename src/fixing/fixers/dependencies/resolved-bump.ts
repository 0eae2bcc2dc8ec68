import { normalizePythonName } from '../../../inventory/extractors/python/python-names.ts';
import { alreadyFixed, crossesMajor, movesNote, needsBump, refused, type BumpContext, type BumpResult, type DependencyBump, type ReadFile } from './dependency-bump.ts';
import { RegistryUnreachable } from './package-registry.ts';
import { resolvePins, type Pin } from './python-resolve.ts';

/** A version numbered by its release date: a year first (2023.7.22, 2024.02). */
const datedVersion = (version: string) => /^(19|20)\d\d\.\d/.test(version);

/** One format's bump of one package, as requirements-bump.ts and python-lock-bump.ts write it. */
export type PlainBump = (bump: DependencyBump, text: string, read: ReadFile) => Promise<BumpResult>;

/**
 * Moves a Python package to the smallest release that fixes it and leaves the file installable: the
 * file's other exact pins move with it where the new release requires (see python-resolve.ts), each
 * through the format's own bump. Without the registry, a file that pins nothing else gets the plain
 * bump, and so does a move within the package's major version, saying the other pins went unchecked
 * (such releases rarely raise what they require); a move to a new major version next to other pins is
 * refused, as it is the kind that leaves a file uninstallable (Flask 2 next to Werkzeug 0.14). A package
 * numbered by release date (certifi, a package that requires nothing) has no major versions to cross.
 */
export async function bumpResolved(bump: DependencyBump, text: string, read: ReadFile, context: BumpContext, pins: Map<string, Pin>, plain: PlainBump): Promise<BumpResult> {
  const pin = pins.get(normalizePythonName(bump.name));
  if (!pin || !needsBump(bump, pin.version)) return plain(bump, text, read);
  let resolution;
  try {
    resolution = await resolvePins({ pins, name: bump.name, fixed: bump.fixed, isClear: context.isClear, registry: context.registry, signal: context.signal });
  } catch (error) {
    if (!(error instanceof RegistryUnreachable)) throw error;
    if (pins.size === 1) return plain(bump, text, read);
    // A release numbered by date (certifi's 2023.7.22) says nothing about breaking changes by its year.
    if (crossesMajor('PyPI', pin.version, bump.fixed) && !(datedVersion(pin.version) && datedVersion(bump.fixed))) {
      return refused(`the package registry is needed to check that ${bump.file}'s other pins still fit, and ${error.message}`);
    }
    const result = await plain(bump, text, read);
    if (result.kind !== 'bumped') return result;
    const unchecked = `the package registry could not be reached (${error.message}), so ${bump.file}'s other pins were not checked against what ${bump.name} ${bump.fixed} requires: a release within the same major version rarely asks for more, but run pip install before merging`;
    return { ...result, note: `${result.note}; ${unchecked}` };
  }
  if ('refused' in resolution) return refused(resolution.refused);

  const files = new Map<string, string>();
  const withChanges: ReadFile = async (file) => files.get(file) ?? read(file);
  const notes: string[] = [];
  for (const move of resolution.moves) {
    const result = await plain({ ...bump, name: move.name, installed: move.from, fixed: move.to }, files.get(bump.file) ?? text, withChanges);
    if (result.kind === 'refused') return result;
    if (result.kind !== 'bumped') continue;
    for (const [file, after] of result.files) files.set(file, after);
    notes.push(result.note);
  }
  if (!notes.length) return alreadyFixed(bump);
  return { kind: 'bumped', files, note: movesNote(notes[0], resolution.moves), moves: resolution.moves };
}
