import { posix } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { component, type Component } from '../../component.ts';
import { ExtractError, type ExtractContext, type Extractor, type ManifestFile } from '../extractor.ts';

// A pom.xml read on its own, without a repository: versions come from the pom, its <properties>, its
// <dependencyManagement> and those of parent poms found in the same tree. What only a remote parent
// or an imported BOM would supply stays unknown, and such dependencies are left out.

interface Coordinates {
  groupId?: string;
  artifactId?: string;
  version?: string;
}

interface Dependency extends Coordinates {
  scope?: string;
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
}

/** What a pom takes over from its parents: their properties and managed dependencies. */
interface Inheritance {
  properties: Map<string, string>;
  managed: Dependency[];
}

/** Enough for any real hierarchy; stops a loop of relativePaths. */
const MAX_PARENT_DEPTH = 10;

const xmlParser = new XMLParser({ ignoreAttributes: true, parseTagValue: false, trimValues: true });

export const mavenPomExtractor: Extractor = {
  id: 'maven-pom',
  ecosystem: 'Maven',
  fileNames: ['pom.xml'],
  lockfile: false,
  async extract(file, context) {
    const pom = readPom(file);
    const inherited = await inheritFromParents(pom, file.path, context, 0);
    const properties = new Map([...inherited.properties, ...pom.properties]);
    const managed = [...pom.managed, ...inherited.managed];
    const resolve = resolverFor(pom, properties);
    return collectComponents(pom.dependencies, managed, resolve, file.path);
  },
};

function collectComponents(
  dependencies: Dependency[],
  managed: Dependency[],
  resolve: (value: string | undefined) => string | undefined,
  sourceFile: string,
): Component[] {
  const managedByName = new Map<string, Dependency>();
  for (const entry of managed) {
    const name = mavenName(resolve(entry.groupId), resolve(entry.artifactId));
    if (name && !managedByName.has(name)) managedByName.set(name, entry);
  }

  const byKey = new Map<string, Component>();
  for (const dependency of dependencies) {
    const name = mavenName(resolve(dependency.groupId), resolve(dependency.artifactId));
    if (!name) continue;
    const management = managedByName.get(name);
    const scope = resolve(dependency.scope ?? management?.scope);
    if (scope === 'import') continue;
    const version = singleVersion(resolve(dependency.version ?? management?.version));
    if (!version) continue;
    const development = scope === 'test';
    const key = `${name}@${version}`;
    const seen = byKey.get(key);
    if (seen) {
      seen.development = seen.development && development;
    } else {
      byKey.set(key, component({ name, version, ecosystem: 'Maven', direct: true, development, sourceFile }));
    }
  }
  return [...byKey.values()];
}

function mavenName(groupId: string | undefined, artifactId: string | undefined): string | undefined {
  return groupId && artifactId ? `${groupId}:${artifactId}` : undefined;
}

/** A version range names no single version, except the pinned form `[1.2.3]`. */
function singleVersion(version: string | undefined): string | undefined {
  if (!version) return undefined;
  if (!/[[\](),]/.test(version)) return version;
  return /^\[([^[\](),]+)\]$/.exec(version)?.[1].trim() || undefined;
}

/** Interpolates `${…}` references; undefined when any of them (or what they refer to) is unknown. */
function resolverFor(pom: Pom, properties: Map<string, string>): (value: string | undefined) => string | undefined {
  const builtIn = new Map<string, string | undefined>([
    ['project.groupId', pom.groupId ?? pom.parent?.groupId],
    ['project.artifactId', pom.artifactId],
    ['project.version', pom.version ?? pom.parent?.version],
    ['project.parent.groupId', pom.parent?.groupId],
    ['project.parent.artifactId', pom.parent?.artifactId],
    ['project.parent.version', pom.parent?.version],
  ]);
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

async function inheritFromParents(pom: Pom, pomPath: string, context: ExtractContext, depth: number): Promise<Inheritance> {
  const none: Inheritance = { properties: new Map(), managed: [] };
  const parentPath = parentPomPath(pom, pomPath);
  if (!parentPath || depth >= MAX_PARENT_DEPTH) return none;
  const text = await context.readFile(parentPath);
  if (text === null) return none;
  let parent: Pom;
  try {
    parent = readPom({ path: parentPath, text });
  } catch {
    return none; // the parent is reported on when it is scanned itself
  }
  // Maven only takes the file at relativePath when it is the parent the <parent> element names.
  const isNamedParent =
    parent.artifactId !== undefined &&
    (parent.groupId ?? parent.parent?.groupId) === pom.parent?.groupId && parent.artifactId === pom.parent?.artifactId;
  if (!isNamedParent) return none;
  const above = await inheritFromParents(parent, parentPath, context, depth + 1);
  return {
    properties: new Map([...above.properties, ...parent.properties]),
    managed: [...parent.managed, ...above.managed],
  };
}

function parentPomPath(pom: Pom, pomPath: string): string | undefined {
  if (!pom.parent) return undefined;
  const relativePath = (pom.parent.relativePath ?? '../pom.xml').replaceAll('\\', '/');
  if (relativePath === '') return undefined;
  const target = posix.join(posix.dirname(pomPath), relativePath);
  return target.endsWith('.xml') ? target : posix.join(target, 'pom.xml');
}

function readPom(file: ManifestFile): Pom {
  const validation = XMLValidator.validate(file.text);
  if (validation !== true) {
    throw new ExtractError(file.path, `not well-formed XML (line ${validation.err.line}): ${validation.err.msg}`);
  }
  const project = element(xmlParser.parse(file.text)?.project);
  if (!project) throw new ExtractError(file.path, 'no <project> root element');
  const parent = element(project.parent);
  return {
    ...coordinates(project),
    parent: parent && { ...coordinates(parent), relativePath: text(parent.relativePath) },
    properties: propertiesOf(element(project.properties)),
    dependencies: dependencyList(element(project.dependencies)),
    managed: dependencyList(element(element(project.dependencyManagement)?.dependencies)),
  };
}

type XmlElement = Record<string, unknown>;

function element(value: unknown): XmlElement | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as XmlElement) : undefined;
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
  const entries = node?.dependency;
  return (Array.isArray(entries) ? entries : [entries])
    .map(element)
    .filter((entry) => entry !== undefined)
    .map((entry) => ({ ...coordinates(entry), scope: value(entry.scope) }));
}
