import { component, type Component } from '../../component.ts';
import { ExtractError, type Extractor, type ManifestFile } from '../extractor.ts';
import { LOCKFILES } from '../../lockfiles.ts';

// Bundler's lockfile: unindented section headers; in the GEM, GIT and PATH sections a `specs:` list
// with each locked gem at four spaces (its own requirements at six); DEPENDENCIES lists the gems the
// Gemfile names, at two spaces.

/** Sections whose specs are locked gems. PLUGIN SOURCE holds Bundler plugins, not the app's gems. */
const SPEC_SECTIONS = new Set(['GEM', 'GIT', 'PATH']);

const KNOWN_SECTIONS = new Set([
  ...SPEC_SECTIONS,
  'PLUGIN SOURCE',
  'PLATFORMS',
  'DEPENDENCIES',
  'RUBY VERSION',
  'BUNDLED WITH',
  'CHECKSUMS',
]);

/** Bundler's own pattern (Bundler::LockfileParser::NAME_VERSION): the version ends at the first `-`, a platform follows. */
const LOCKED_GEM = /^ {4}(?! )(\S+?)(?: \(([^-]*)(?:-(.*))?\))?(!)?$/;
const DECLARED_GEM = /^ {2}(?! )([^\s!(]+)/;

interface LockedGem {
  name: string;
  version: string;
  /** The names of the gems its specs line requires (the lines at six spaces below it). */
  requires: string[];
}

/** A CHECKSUMS line (Bundler 2.5+): `  name (version[-platform]) sha256=<hex>`. */
const CHECKSUM = /^ {2}(\S+) \(([^-)]*)(-[^)]*)?\)(?: (.*))?$/;
const REQUIRED_GEM = /^ {6}(?! )(\S+)/;

export const gemfileLockExtractor: Extractor = {
  id: 'gemfile-lock',
  ecosystem: 'RubyGems',
  docs: '`Gemfile.lock`, `gems.locked`',
  fileNames: LOCKFILES['gemfile-lock'],
  lockfile: true,
  extract(file) {
    const { gems, declared, checksums } = parseLockfile(file);
    const byKey = new Map<string, Component>();
    for (const gem of gems) {
      const key = `${gem.name}@${gem.version}`;
      if (byKey.has(key)) continue; // the same gem locked for several platforms
      const direct = declared ? declared.has(gem.name) : null;
      byKey.set(key, component({ name: gem.name, version: gem.version, ecosystem: 'RubyGems', direct, sourceFile: file.path }));
    }
    // For the SBOM: the graph (a lock holds one version of each gem, so a name leads to it) and the
    // CHECKSUMS section's SHA-256 of the gem without a platform.
    const byName = new Map([...byKey.values()].map((c) => [c.name, c]));
    for (const gem of gems) {
      const found = byKey.get(`${gem.name}@${gem.version}`)!;
      const dependsOn = gem.requires.flatMap((name) => byName.get(name)?.purl ?? []);
      if (dependsOn.length) found.dependsOn = [...new Set([...(found.dependsOn ?? []), ...dependsOn])].sort();
      const sha256 = checksums.get(`${gem.name}@${gem.version}`);
      if (sha256) found.hashes = [{ algorithm: 'SHA-256', content: sha256 }];
    }
    return [...byKey.values()];
  },
};

function parseLockfile(file: ManifestFile): { gems: LockedGem[]; declared: Set<string> | null; checksums: Map<string, string> } {
  const gems: LockedGem[] = [];
  const checksums = new Map<string, string>();
  let declared: Set<string> | null = null;
  let section: string | null = null;
  let sawKnownSection = false;
  let inSpecs = false;

  const lines = file.text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    if (!line.startsWith(' ')) {
      section = line.trim();
      sawKnownSection ||= KNOWN_SECTIONS.has(section);
      inSpecs = false;
      if (section === 'DEPENDENCIES') declared = new Set();
      continue;
    }
    if (section === null) throw new ExtractError(file.path, `line ${index + 1}: indented line before any section`);
    if (section === 'DEPENDENCIES') {
      const match = DECLARED_GEM.exec(line);
      if (match) declared?.add(match[1]);
      continue;
    }
    if (section === 'CHECKSUMS') {
      const match = CHECKSUM.exec(line);
      const sha256 = match && !match[3] ? /(?:^|,)sha256=([0-9a-f]{64})(?:,|$)/.exec(match[4] ?? '')?.[1] : undefined;
      if (sha256) checksums.set(`${match![1]}@${match![2]}`, sha256);
      continue;
    }
    if (!SPEC_SECTIONS.has(section)) continue;
    if (/^ {2}\S/.test(line)) {
      inSpecs = line.trim() === 'specs:';
      continue;
    }
    if (inSpecs && REQUIRED_GEM.test(line)) {
      gems.at(-1)?.requires.push(REQUIRED_GEM.exec(line)![1]!);
      continue;
    }
    if (!inSpecs || !/^ {4}\S/.test(line)) continue;
    const match = LOCKED_GEM.exec(line);
    if (!match || match[2] === undefined) {
      throw new ExtractError(file.path, `line ${index + 1}: not a locked gem "name (version)"`);
    }
    gems.push({ name: match[1], version: match[2], requires: [] });
  }

  if (!sawKnownSection) throw new ExtractError(file.path, 'none of the sections of a Bundler lockfile');
  return { gems, declared, checksums };
}
