import { posix } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { component, type Component } from '../../component.ts';
import { ExtractError, type ExtractContext, type Extractor, type ManifestFile } from '../extractor.ts';
import { parseXmlManifest } from '../xml.ts';

// A pom.xml read the way Maven builds its effective model, from files of the repository only (nothing is
// fetched): versions come from the pom, its <properties> and those of its parents, its parents'
// <dependencyManagement> and the BOMs it imports; the <dependencies> its parents declare are its own too,
// as Maven inherits them (the pom's own declaration of the same dependency winning). A parent is the pom
// at <parent>'s relativePath (default ../pom.xml) when that pom is the one <parent> names, else the
// reactor's pom of those coordinates; a BOM is the reactor's pom of its coordinates. The reactor is every pom reached through
// <modules> from the poms of the folders above the file and from its parents. A dependency whose version
// only a pom outside the repository would give (a remote parent, a BOM from Maven Central), or which
// names a range, is listed without a version and with a note saying why; a dependency on one of the
// reactor's own modules is first-party.

interface Coordinates {
  groupId?: string;
  artifactId?: string;
  version?: string;
}

interface Dependency extends Coordinates {
  scope?: string;
  type?: string;
  classifier?: string;
}

interface ParentRef extends Coordinates {
  /** Undefined when the element is absent (Maven then looks in ../pom.xml); '' turns the lookup off. */
  relativePath?: string;
}

interface Pom extends Coordinates {
  parent?: ParentRef;
  properties: Map<string, string>;
  dependencies: Dependency[];
  managed: Dependency[];
  /** <modules> (and Maven 4's <subprojects>), also those of profiles: paths relative to the pom's folder. */
  modules: string[];
}

/** A managed version as the pom that declared it resolves it. */
interface Managed {
  /** Resolved; undefined when a property it uses is defined nowhere in the repository. */
  version?: string;
  /** As written, for notes. */
  written?: string;
  scope?: string;
}

/** A pom's effective model, as far as the repository holds it. */
interface Model {
  resolve: (value: string | undefined) => string | undefined;
  /** The parents the repository holds, nearest first. */
  parents: { pom: Pom; path: string }[];
  /** By management key (groupId:artifactId:type:classifier). */
  managed: Map<string, Managed>;
  /** Parents and imported BOMs the model would need but the repository does not hold, as `the BOM g:a:v`. */
  outside: string[];
}

/** A pom of the reactor: a file reached through <modules>. */
interface ReactorPom {
  path: string;
  groupId?: string;
  artifactId?: string;
  /** Resolved with the properties of the poms that led to it; undefined when that was not enough. */
  version?: string;
}

/** Enough for any real hierarchy; stops loops of relativePaths and imports. */
const MAX_DEPTH = 10;
/** Poms read when walking a reactor's modules. */
const MAX_REACTOR_POMS = 5000;

const xmlParser = new XMLParser({ ignoreAttributes: true, parseTagValue: false, trimValues: true });

export const mavenPomExtractor: Extractor = {
  id: 'maven-pom',
  ecosystem: 'Maven',
  docs: '`pom.xml` (properties, parent poms, `dependencyManagement` and BOM imports found in the repository: see below)',
  fileNames: ['pom.xml'],
  lockfile: false,
  async extract(file, context) {
    const pom = readPom(file);
    const tree = pomTree(context);
    const model = await tree.model(pom, file.path, 0, new Set([file.path]));
    const reactor = await tree.reactorFor(file.path, model.parentPaths);
    return collectComponents(pom, model, reactor, file.path);
  },
};

/** A dependency of the effective model: the pom's own, or one a parent declares (`inheritedFrom`, the parent's path). */
interface EffectiveDependency {
  dependency: Dependency;
  inheritedFrom?: string;
}

/**
 * The pom's dependencies and those its parents declare, as Maven merges them before interpolating: a
 * parent's dependency is inherited unless a nearer pom declares the same one (same groupId, artifactId,
 * type and classifier), and is then read as part of the child, through the child's properties and
 * dependencyManagement, its scope included. A parent outside the repository contributes nothing.
 */
function effectiveDependencies(pom: Pom, model: Model): EffectiveDependency[] {
  const { resolve } = model;
  const keyOf = (d: Dependency) =>
    managementKey(resolve(d.groupId) ?? d.groupId ?? '', resolve(d.artifactId) ?? d.artifactId ?? '', resolve(d.type) ?? d.type, resolve(d.classifier) ?? d.classifier);
  const self = mavenName(resolve(pom.groupId ?? pom.parent?.groupId), resolve(pom.artifactId));
  const effective: EffectiveDependency[] = pom.dependencies.map((dependency) => ({ dependency }));
  const declared = new Set(pom.dependencies.map(keyOf));
  for (const parent of model.parents) {
    const added = new Set<string>();
    for (const dependency of parent.pom.dependencies) {
      const key = keyOf(dependency);
      // A parent's dependency on this very module would be a cycle Maven refuses; it is not copied into it.
      if (declared.has(key) || mavenName(resolve(dependency.groupId), resolve(dependency.artifactId)) === self) continue;
      added.add(key);
      effective.push({ dependency, inheritedFrom: parent.path });
    }
    for (const key of added) declared.add(key);
  }
  return effective;
}

function collectComponents(pom: Pom, model: Model, reactor: Reactor, sourceFile: string): Component[] {
  const { resolve } = model;
  const byKey = new Map<string, Component>();
  for (const { dependency, inheritedFrom } of effectiveDependencies(pom, model)) {
    const groupId = resolve(dependency.groupId);
    const artifactId = resolve(dependency.artifactId);
    const name = mavenName(groupId, artifactId);
    if (!name) continue;
    const management = model.managed.get(managementKey(groupId!, artifactId!, resolve(dependency.type), resolve(dependency.classifier)));
    const scope = dependency.scope === undefined ? management?.scope : resolve(dependency.scope);
    if (scope === 'import') continue;

    let version: string | undefined;
    let note: string | undefined;
    if (dependency.version !== undefined) {
      version = resolve(dependency.version);
      if (version === undefined) note = `version ${dependency.version} uses a property defined nowhere in the repository${outsideHint(model)}`;
    } else if (management) {
      version = management.version;
      if (version === undefined) note = `managed version ${management.written ?? ''} uses a property defined nowhere in the repository${outsideHint(model)}`;
    } else {
      note = model.outside.length
        ? `no version in the repository: it would come from ${model.outside.join(' or ')}, which the repository does not hold`
        : 'no version: neither declared nor managed by a pom in the repository';
    }
    if (version !== undefined) {
      const single = singleVersion(version);
      if (single === undefined) note = `version range ${version} names no single version`;
      version = single;
    }

    const module = reactor.module(name);
    const firstParty = module !== undefined;
    if (firstParty && version === undefined && module.version !== undefined) {
      version = module.version; // the reactor builds its own module
      note = undefined;
    }
    const development = scope === 'test';
    const key = `${name}@${version ?? ''}`;
    const seen = byKey.get(key);
    if (seen) {
      seen.development = seen.development && development;
      continue;
    }
    const found = component({ name, version: version ?? '', ecosystem: 'Maven', direct: true, development, sourceFile });
    if (firstParty) found.firstParty = true;
    const notes = [
      ...(inheritedFrom === undefined ? [] : [`inherited from the parent pom ${inheritedFrom}`]),
      ...(version === undefined && note ? [note] : []),
    ];
    if (notes.length) found.note = notes.join('; ');
    byKey.set(key, found);
  }
  return [...byKey.values()];
}

function outsideHint(model: Model): string {
  return model.outside.length ? ` (it may come from ${model.outside.join(', ')}, outside the repository)` : '';
}

function mavenName(groupId: string | undefined, artifactId: string | undefined): string | undefined {
  return groupId && artifactId ? `${groupId}:${artifactId}` : undefined;
}

/** Maven's dependency management key: a managed entry applies only to the same type and classifier. */
function managementKey(groupId: string, artifactId: string, type: string | undefined, classifier: string | undefined): string {
  return `${groupId}:${artifactId}:${type || 'jar'}:${classifier ?? ''}`;
}

function gav(c: Coordinates): string {
  return `${c.groupId ?? '?'}:${c.artifactId ?? '?'}:${c.version ?? '?'}`;
}

/** A version range names no single version, except the pinned form `[1.2.3]`. */
function singleVersion(version: string): string | undefined {
  if (!/[[\](),]/.test(version)) return version || undefined;
  return /^\[([^[\](),]+)\]$/.exec(version)?.[1].trim() || undefined;
}

/** Interpolates `${…}` references; undefined when any of them (or what they refer to) is unknown. */
function resolverFor(pom: Pom, properties: ReadonlyMap<string, string>): (value: string | undefined) => string | undefined {
  const groupId = pom.groupId ?? pom.parent?.groupId;
  const version = pom.version ?? pom.parent?.version;
  const builtIn = new Map<string, string | undefined>();
  for (const prefix of ['project.', 'pom.', '']) {
    builtIn.set(`${prefix}groupId`, groupId);
    builtIn.set(`${prefix}artifactId`, pom.artifactId);
    builtIn.set(`${prefix}version`, version);
  }
  builtIn.set('project.parent.groupId', pom.parent?.groupId);
  builtIn.set('project.parent.artifactId', pom.parent?.artifactId);
  builtIn.set('project.parent.version', pom.parent?.version);
  const lookup = (key: string): string | undefined => (builtIn.has(key) ? builtIn.get(key) : properties.get(key));

  const interpolate = (value: string, resolving: ReadonlySet<string>): string | undefined => {
    let complete = true;
    const result = value.replace(/\$\{([^}]*)\}/g, (_, key: string) => {
      const raw = resolving.has(key) ? undefined : lookup(key);
      const resolved = raw === undefined ? undefined : interpolate(raw, new Set([...resolving, key]));
      if (resolved === undefined) complete = false;
      return resolved ?? '';
    });
    return complete ? result : undefined;
  };
  return (value) => (value === undefined ? undefined : interpolate(value, new Set()));
}

interface Reactor {
  /** The reactor's pom of these coordinates (any version when `version` is undefined or unresolved). */
  find(groupId: string, artifactId: string, version: string | undefined): ReactorPom | undefined;
  /** The reactor's module of this `groupId:artifactId`. */
  module(name: string): ReactorPom | undefined;
}

/** The poms of one tree, read and parsed once however many files refer to them. */
class PomTree {
  readonly #context: ExtractContext;
  readonly #poms = new Map<string, Promise<Pom | null>>();
  readonly #walks = new Map<string, Promise<ReactorPom[]>>();

  constructor(context: ExtractContext) {
    this.#context = context;
  }

  /** A pom of the tree; null when it is missing or not a pom (it is reported on when scanned itself). */
  pom(path: string): Promise<Pom | null> {
    let pom = this.#poms.get(path);
    if (!pom) {
      pom = this.#context.readFile(path).then((text) => {
        if (text === null) return null;
        try {
          return readPom({ path, text });
        } catch {
          return null;
        }
      });
      this.#poms.set(path, pom);
    }
    return pom;
  }

  /**
   * The effective model of `pom` (at `path`): properties and managed dependencies inherited from the
   * parents found in the tree, and imported from the BOMs found in it.
   */
  async model(pom: Pom, path: string, depth: number, visiting: ReadonlySet<string>): Promise<Model & { parentPaths: string[] }> {
    const ancestors = await this.reactorFor(path, []);
    const chain: { pom: Pom; path: string }[] = [{ pom, path }];
    const outside: string[] = [];
    for (let child = chain[0]!; child.pom.parent && chain.length <= MAX_DEPTH; ) {
      const parent = await this.#parentOf(child.pom, child.path, ancestors);
      if (!parent || chain.some((link) => link.path === parent.path)) {
        if (!parent) outside.push(`the parent pom ${gav(child.pom.parent)}`);
        break;
      }
      chain.push(parent);
      child = parent;
    }
    const parentPaths = chain.slice(1).map((link) => link.path);
    const reactor = parentPaths.length ? await this.reactorFor(path, parentPaths) : ancestors;

    const properties = new Map<string, string>();
    for (const link of [...chain].reverse()) for (const [key, value] of link.pom.properties) properties.set(key, value);
    const resolve = resolverFor(pom, properties);

    // Declared entries win over imported ones, the child's over its parents'; among imports the first wins.
    const managed = new Map<string, Managed>();
    const imports: Coordinates[] = [];
    for (const { pom: declaring } of chain) {
      for (const entry of declaring.managed) {
        const groupId = resolve(entry.groupId);
        const artifactId = resolve(entry.artifactId);
        if (!groupId || !artifactId) continue;
        const type = resolve(entry.type);
        const scope = resolve(entry.scope);
        if (scope === 'import' && type === 'pom') {
          imports.push({ groupId, artifactId, version: resolve(entry.version) ?? entry.version });
          continue;
        }
        const key = managementKey(groupId, artifactId, type, resolve(entry.classifier));
        if (!managed.has(key)) managed.set(key, { version: resolve(entry.version), written: entry.version, scope });
      }
    }
    for (const bom of imports) {
      const found = depth < MAX_DEPTH ? reactor.find(bom.groupId!, bom.artifactId!, bom.version) : undefined;
      const bomPom = found && !visiting.has(found.path) ? await this.pom(found.path) : null;
      if (!found || !bomPom) {
        outside.push(`the BOM ${gav(bom)}`);
        continue;
      }
      const imported = await this.model(bomPom, found.path, depth + 1, new Set([...visiting, found.path]));
      for (const [key, entry] of imported.managed) if (!managed.has(key)) managed.set(key, entry);
      outside.push(...imported.outside.filter((name) => !outside.includes(name)));
    }
    return { resolve, parents: chain.slice(1), managed, outside, parentPaths };
  }

  /** The parent <parent> names: at its relativePath when that pom has its coordinates, else in the reactor. */
  async #parentOf(pom: Pom, path: string, reactor: Reactor): Promise<{ pom: Pom; path: string } | null> {
    const ref = pom.parent!;
    const relativePath = (ref.relativePath ?? '../pom.xml').replaceAll('\\', '/');
    if (relativePath !== '') {
      const target = posix.join(posix.dirname(path), relativePath);
      const candidatePath = target.endsWith('.xml') ? target : posix.join(target, 'pom.xml');
      const candidate = await this.pom(candidatePath);
      if (candidate && isNamedParent(ref, candidate)) return { pom: candidate, path: candidatePath };
    }
    if (!ref.groupId || !ref.artifactId) return null;
    const found = reactor.find(ref.groupId, ref.artifactId, ref.version);
    const foundPom = found && found.path !== path ? await this.pom(found.path) : null;
    return foundPom ? { pom: foundPom, path: found!.path } : null;
  }

  /** The reactor seen from a pom: modules reached from the poms of the folders above it and from its parents. */
  async reactorFor(path: string, parentPaths: readonly string[]): Promise<Reactor> {
    const roots = new Set<string>();
    for (let dir = posix.dirname(path); ; dir = posix.dirname(dir)) {
      roots.add(posix.join(dir, 'pom.xml'));
      if (dir === '.' || dir === '/' || dir === '') break;
    }
    for (const parentPath of parentPaths) roots.add(parentPath);
    const poms = new Map<string, ReactorPom>();
    for (const root of roots) for (const found of await this.#walk(root)) poms.set(found.path, found);
    const byName = new Map<string, ReactorPom[]>();
    for (const found of poms.values()) {
      const name = mavenName(found.groupId, found.artifactId);
      if (name) byName.set(name, [...(byName.get(name) ?? []), found]);
    }
    return {
      find(groupId, artifactId, version) {
        const candidates = byName.get(`${groupId}:${artifactId}`) ?? [];
        if (version === undefined || version.includes('${')) return candidates[0];
        return candidates.find((c) => c.version === undefined || c.version === version);
      },
      module: (name) => byName.get(name)?.[0],
    };
  }

  /** A pom and every pom reached from it through <modules>, with coordinates resolved as far as they lead. */
  #walk(root: string): Promise<ReactorPom[]> {
    let walk = this.#walks.get(root);
    if (!walk) {
      walk = (async () => {
        const found: ReactorPom[] = [];
        const seen = new Set<string>();
        const queue: { path: string; properties: Map<string, string> }[] = [{ path: root, properties: new Map() }];
        while (queue.length && seen.size < MAX_REACTOR_POMS) {
          const { path, properties: above } = queue.shift()!;
          if (seen.has(path)) continue;
          seen.add(path);
          const pom = await this.pom(path);
          if (!pom) continue;
          const properties = new Map([...above, ...pom.properties]);
          const resolve = resolverFor(pom, properties);
          found.push({
            path,
            groupId: resolve(pom.groupId ?? pom.parent?.groupId),
            artifactId: resolve(pom.artifactId),
            version: resolve(pom.version ?? pom.parent?.version),
          });
          for (const module of pom.modules) {
            const target = posix.join(posix.dirname(path), module.replaceAll('\\', '/'));
            queue.push({ path: target.endsWith('.xml') ? target : posix.join(target, 'pom.xml'), properties });
          }
        }
        return found;
      })();
      this.#walks.set(root, walk);
    }
    return walk;
  }
}

const trees = new WeakMap<ExtractContext, PomTree>();

function pomTree(context: ExtractContext): PomTree {
  let tree = trees.get(context);
  if (!tree) {
    tree = new PomTree(context);
    trees.set(context, tree);
  }
  return tree;
}

/** Maven takes the pom at relativePath only when it has the coordinates <parent> names. */
function isNamedParent(ref: ParentRef, candidate: Pom): boolean {
  if (candidate.artifactId === undefined || candidate.artifactId !== ref.artifactId) return false;
  if ((candidate.groupId ?? candidate.parent?.groupId) !== ref.groupId) return false;
  // A version written with properties (CI-friendly `${revision}`) is compared once resolved, when it can be.
  const own = resolverFor(candidate, candidate.properties)(candidate.version ?? candidate.parent?.version);
  if (own === undefined || ref.version === undefined || ref.version.includes('${')) return true;
  return own === ref.version;
}

function readPom(file: ManifestFile): Pom {
  const document = parseXmlManifest(file, xmlParser);
  const project = element(element(document)?.project);
  if (!project) throw new ExtractError(file.path, 'no <project> root element');
  const parent = element(project.parent);
  const profiles = list(element(project.profiles)?.profile)
    .map(element)
    .filter((profile) => profile !== undefined);
  return {
    ...coordinates(project),
    parent: parent && { ...coordinates(parent), relativePath: text(parent.relativePath) },
    properties: propertiesOf(element(project.properties)),
    dependencies: dependencyList(element(project.dependencies)),
    managed: dependencyList(element(element(project.dependencyManagement)?.dependencies)),
    modules: [project, ...profiles].flatMap((node) => [
      ...list(element(node.modules)?.module),
      ...list(element(node.subprojects)?.subproject),
    ]).filter((module): module is string => typeof module === 'string' && module !== ''),
  };
}

type XmlElement = Record<string, unknown>;

function element(value: unknown): XmlElement | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as XmlElement) : undefined;
}

/** A repeated element's values, as an array whatever their number. */
function list(value: unknown): unknown[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** An element's text; for a repeated element, the last one's, as Maven reads it. */
function text(value: unknown): string | undefined {
  const last = Array.isArray(value) ? value.at(-1) : value;
  return typeof last === 'string' ? last : undefined;
}

function coordinates(node: XmlElement): Coordinates {
  return { groupId: value(node.groupId), artifactId: value(node.artifactId), version: value(node.version) };
}

/** An element's text, with an empty element counted as absent. */
function value(node: unknown): string | undefined {
  return text(node) || undefined;
}

function propertiesOf(node: XmlElement | undefined): Map<string, string> {
  const properties = new Map<string, string>();
  for (const [key, value] of Object.entries(node ?? {})) {
    const valueText = text(value);
    if (valueText !== undefined) properties.set(key, valueText);
  }
  return properties;
}

function dependencyList(node: XmlElement | undefined): Dependency[] {
  return list(node?.dependency)
    .map(element)
    .filter((entry) => entry !== undefined)
    .map((entry) => ({
      ...coordinates(entry),
      scope: value(entry.scope),
      type: value(entry.type),
      classifier: value(entry.classifier),
    }));
}
