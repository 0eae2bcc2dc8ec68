import path from 'node:path';
import semver from 'semver';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { readTreeText, walkTree } from '../scm/work-tree.ts';

// What a repository declares about itself, read once per fix run so fixers write code that runs where
// the app runs: its interpreters and their versions, the frameworks it pins, how it reads its settings
// and how it is started. Everything is read from files, never by running the repository's code; reads
// go through the work-tree reader (no symbolic link is followed) and are bounded in count and size.

export type Runtime = 'python' | 'node';

/** A version the repository declares for an interpreter or a package. */
export interface Declared {
  /** As written: `2.7`, `>=3.7`, `==0.12.2`, `^4.17.1`; `''` for a package listed without a version. */
  spec: string;
  /** The lowest version the declaration allows, as dotted numbers (`2.7`, `0.12.2`); null when it names none. */
  lowest: string | null;
  /** Where it was read: a repository path (`setup.py`), or `Python 2 syntax in app.py` when only the code tells. */
  source: string;
}

export interface DockerfileFacts {
  path: string;
  /** The images of its `FROM` lines, in order. */
  from: string[];
  cmd: string | null;
  entrypoint: string | null;
  /** Variables its `ENV` lines set. */
  env: string[];
}

export interface ComposeService {
  name: string;
  /** The build context, when the service is built from the repository. */
  build: string | null;
  image: string | null;
  /** How its `environment:` is written (`- X=1` list or `X: 1` map), null without one. */
  environment: 'list' | 'map' | null;
  envFile: string[];
}

export interface RepoFacts {
  /** Languages the repository is written in, by its manifests and files. */
  languages: Runtime[];
  /** The interpreter versions it declares: the lowest of its declarations (Dockerfile, runtime.txt, `requires-python`…). */
  runtimes: Partial<Record<Runtime, Declared>>;
  /** Every package the repository declares, by lowercase name (`django`, `flask`, `express`): a lock's version before a manifest's range. */
  packages: Record<string, Declared>;
  config: {
    /** Django settings modules (repository paths). */
    djangoSettings: string[];
    /** Files that set a Flask app's configuration (`app.config[...]`, `config.from_object`…). */
    flaskConfig: string[];
    /** Files that load a `.env` file (`load_dotenv()`, `require('dotenv').config()`…). */
    dotenv: string[];
    /** Committed environment templates (`.env.example`, `.env.sample`…). */
    envTemplates: string[];
    /** Variables the code reads from the environment, each with the files that read it. */
    envReads: Record<string, string[]>;
  };
  start: {
    dockerfiles: DockerfileFacts[];
    compose: { path: string; services: ComposeService[] }[];
    /** Procfile processes by name, with their commands. */
    procfile: Record<string, string> | null;
  };
}

/** Facts of a work tree: `dir` at `commit` is read once, later calls share the answer. */
export function readRepoFacts(dir: string, options: { commit?: string } = {}): Promise<RepoFacts> {
  const key = `${path.resolve(dir)}@${options.commit ?? ''}`;
  let facts = CACHE.get(key);
  if (!facts) {
    facts = collectFacts(dir);
    CACHE.set(key, facts);
    facts.catch(() => CACHE.delete(key));
    while (CACHE.size > CACHE_ENTRIES) CACHE.delete(CACHE.keys().next().value!);
  }
  return facts;
}

/** The facts a fix step has: the run's own when it offers them, else read (and cached) for the work tree. */
export function factsOf(workspace: { dir: string; facts?: () => Promise<RepoFacts> }): Promise<RepoFacts> {
  return workspace.facts ? workspace.facts() : readRepoFacts(workspace.dir);
}

/**
 * Whether a declaration allows versions below `version`: true when its lowest is below, false when at or
 * above, null when it names no version (nothing is known).
 */
export function allowsBelow(declared: Declared | undefined, version: string): boolean | null {
  if (!declared?.lowest) return null;
  return compareVersions(declared.lowest, version) < 0;
}

/** Whether the repository may run on a Python older than `version` (`pythonBelow(facts, '3')` is true for 2.7 code); null when unknown. */
export const pythonBelow = (facts: RepoFacts, version: string) => allowsBelow(facts.runtimes.python, version);

/** Whether the declared version of a package (lowercase name) allows versions below `version`; null when unknown or not declared. */
export const packageBelow = (facts: RepoFacts, name: string, version: string) => allowsBelow(facts.packages[name.toLowerCase()], version);

/** Compares dotted versions numerically, missing parts as 0 (`3` = `3.0`, `2.7` < `3.10`). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((p) => Number.parseInt(p, 10) || 0);
  const pb = b.split('.').map((p) => Number.parseInt(p, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

const CACHE = new Map<string, Promise<RepoFacts>>();
const CACHE_ENTRIES = 16;

const MAX_FILES = 20_000;
const MAX_CODE_FILES = 3_000;
/** Manifests, start and CI files read at most: a real project has tens; a hostile one may have thousands. */
const MAX_MANIFESTS = 300;
const MAX_FILE_BYTES = 512 * 1024;
/** Folders that hold others' code, builds or environments, never the app's own. */
const SKIPPED_FOLDERS = new Set(['node_modules', 'vendor', 'venv', '.venv', 'virtualenv', 'site-packages', '__pycache__', 'dist', 'build', '.tox', '.git', 'bower_components', '.next', 'coverage']);
/** Manifests and start files are read this many folders deep at most. */
const MANIFEST_DEPTH = 3;

const CODE = /\.(?:py|[cm]?js|jsx|ts|tsx)$/i;

async function collectFacts(dir: string): Promise<RepoFacts> {
  const manifests: string[] = [];
  const code: string[] = [];
  for await (const entry of walkTree(dir, '', { enter: (_rel, name) => !SKIPPED_FOLDERS.has(name), maxEntries: MAX_FILES })) {
    if (entry.kind !== 'file') continue;
    const depth = entry.rel.split('/').length - 1;
    const manifest = (depth <= MANIFEST_DEPTH && isManifest(path.posix.basename(entry.rel))) || CI_FILE.test(entry.rel);
    // The root's own always count: those of subfolders cannot push them out.
    if (manifest && (depth === 0 || manifests.length < MAX_MANIFESTS)) manifests.push(entry.rel);
    if (CODE.test(entry.rel) && code.length < MAX_CODE_FILES) code.push(entry.rel);
  }
  const read = (rel: string) => readTreeText(dir, rel, MAX_FILE_BYTES);
  // Nearer the root first: the app's own files before those of its examples and subprojects.
  manifests.sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));

  const facts: RepoFacts = {
    languages: [],
    runtimes: {},
    packages: {},
    config: { djangoSettings: [], flaskConfig: [], dotenv: [], envTemplates: [], envReads: {} },
    start: { dockerfiles: [], compose: [], procfile: null },
  };
  const runtimeDeclarations: Record<Runtime, Declared[]> = { python: [], node: [] };
  const lockPackages: Record<string, Declared> = {};
  const manifestPackages: Record<string, Declared> = {};
  const addPackage = (into: Record<string, Declared>, name: string, declared: Declared) => {
    const key = normalizePackage(name);
    if (!(key in into)) into[key] = declared;
  };

  for (const rel of manifests) {
    const text = await read(rel);
    if (text === null) continue;
    const base = path.posix.basename(rel);
    try {
      readManifest(rel, base, text, {
        runtime: (runtime, spec) => runtimeDeclarations[runtime].push({ spec, lowest: lowestOf(runtime === 'node' ? 'npm' : 'python', spec), source: rel }),
        manifestPackage: (name, spec) => addPackage(manifestPackages, name, { spec, lowest: lowestOf(rel.endsWith('.json') ? 'npm' : 'python', spec), source: rel }),
        lockPackage: (name, version) => addPackage(lockPackages, name, { spec: `==${version}`, lowest: numericVersion(version), source: rel }),
        facts,
      });
    } catch {
      // A manifest that does not parse tells nothing; the others still do.
    }
  }

  const python2: string[] = [];
  for (const rel of code) {
    const text = await read(rel);
    if (text === null) continue;
    readCode(rel, text, facts);
    if (rel.endsWith('.py') && python2.length === 0 && PYTHON2_SYNTAX.test(text)) python2.push(rel);
  }

  if (code.some((f) => f.endsWith('.py')) || runtimeDeclarations.python.length || manifests.some((m) => PYTHON_MANIFEST.test(path.posix.basename(m)))) facts.languages.push('python');
  if (code.some((f) => /\.[cm]?[jt]sx?$/.test(f)) || manifests.some((m) => path.posix.basename(m) === 'package.json')) facts.languages.push('node');
  if (python2.length && !runtimeDeclarations.python.some((d) => d.lowest && compareVersions(d.lowest, '3') < 0)) {
    runtimeDeclarations.python.push({ spec: '2', lowest: '2', source: `Python 2 syntax in ${python2[0]}` });
  }
  for (const runtime of ['python', 'node'] as const) {
    const lowest = lowestDeclaration(runtimeDeclarations[runtime]);
    if (lowest) facts.runtimes[runtime] = lowest;
  }
  facts.packages = { ...manifestPackages, ...lockPackages };
  for (const names of Object.values(facts.config.envReads)) names.sort();
  return facts;
}

/** Python 2 only: a print statement, `except X, e:`, `raise X, "message"`. */
const PYTHON2_SYNTAX =
  /^[ \t]*print[ \t]+(?:["'][^\n]*["'][ \t]*(?:[%,][^\n]*)?|[A-Za-z_][\w.]*(?:\[[^\]\n]*\])?[ \t]*(?:[,%+][^\n]*)?)$|^[ \t]*except[ \t]+[\w.]+[ \t]*,[ \t]*\w+[ \t]*:|^[ \t]*raise[ \t]+\w+[ \t]*,[ \t]*["']/m;
const PYTHON_MANIFEST = /^(?:requirements.*\.txt|Pipfile(?:\.lock)?|pyproject\.toml|poetry\.lock|setup\.py|setup\.cfg|runtime\.txt|\.python-version)$/;

function isManifest(base: string): boolean {
  return (
    PYTHON_MANIFEST.test(base) ||
    /^(?:package\.json|package-lock\.json|\.nvmrc|\.node-version|Procfile)$/.test(base) ||
    /^(?:Dockerfile(?:\..+)?|.+\.Dockerfile|Containerfile)$/i.test(base) ||
    /^(?:docker-)?compose(?:\.[\w-]+)?\.ya?ml$/i.test(base) ||
    /^\.env\.(?:example|sample|template|dist)$/i.test(base)
  );
}

interface ManifestSink {
  runtime(runtime: Runtime, spec: string): void;
  manifestPackage(name: string, spec: string): void;
  lockPackage(name: string, version: string): void;
  facts: RepoFacts;
}

function readManifest(rel: string, base: string, text: string, sink: ManifestSink): void {
  if (CI_FILE.test(rel)) return readCi(rel, text, sink);
  if (/^requirements.*\.txt$/.test(base)) return readRequirements(text, sink);
  if (/^\.env\./i.test(base)) return void sink.facts.config.envTemplates.push(rel);
  if (/Dockerfile|Containerfile/i.test(base)) return readDockerfile(rel, text, sink);
  if (/compose/i.test(base) && /\.ya?ml$/i.test(base)) return readCompose(rel, text, sink.facts);
  switch (base) {
    case 'runtime.txt': {
      const m = /python-(\d+(?:\.\d+)*)/.exec(text);
      if (m) sink.runtime('python', m[1]);
      return;
    }
    case '.python-version': {
      const m = /^\s*(?:python-|cpython-)?(\d+(?:\.\d+)*)/m.exec(text);
      if (m) sink.runtime('python', m[1]);
      return;
    }
    case '.nvmrc':
    case '.node-version': {
      const m = /^\s*v?(\d+(?:\.\d+)*)/m.exec(text);
      if (m) sink.runtime('node', m[1]);
      return;
    }
    case 'Procfile': {
      const processes: Record<string, string> = {};
      for (const m of text.matchAll(/^([\w-]+):\s*(.+)$/gm)) processes[m[1]] = m[2].trim();
      sink.facts.start.procfile ??= processes;
      return;
    }
    case 'setup.py':
    case 'setup.cfg': {
      const requires = /python_requires\s*[=:]\s*["']?([^"'\n]+)/.exec(text);
      if (requires) sink.runtime('python', requires[1].trim());
      const classifiers = [...text.matchAll(/Programming Language :: Python :: (\d+(?:\.\d+)?)\b/g)].map((m) => m[1]);
      if (classifiers.length && !requires) sink.runtime('python', `>=${classifiers.sort(compareVersions)[0]}`);
      const installRequires = /install_requires\s*=\s*\[([\s\S]*?)\]/.exec(text);
      for (const m of installRequires?.[1].matchAll(/["']([^"']+)["']/g) ?? []) requirementLine(m[1], sink);
      return;
    }
    case 'pyproject.toml':
      return readPyproject(text, sink);
    case 'Pipfile': {
      const doc = parseToml(text) as Record<string, Record<string, unknown>>;
      const version = doc.requires?.python_full_version ?? doc.requires?.python_version;
      if (typeof version === 'string') sink.runtime('python', version);
      for (const section of ['packages', 'dev-packages']) {
        for (const [name, spec] of Object.entries(doc[section] ?? {})) {
          const written = typeof spec === 'string' ? spec : typeof (spec as { version?: unknown })?.version === 'string' ? (spec as { version: string }).version : '';
          sink.manifestPackage(name, written === '*' ? '' : written);
        }
      }
      return;
    }
    case 'Pipfile.lock': {
      const doc = JSON.parse(text) as Record<string, Record<string, { version?: string }>>;
      const python = (doc._meta as unknown as { requires?: { python_version?: string } })?.requires?.python_version;
      if (python) sink.runtime('python', python);
      for (const section of ['default', 'develop']) {
        for (const [name, entry] of Object.entries(doc[section] ?? {})) if (entry.version) sink.lockPackage(name, entry.version.replace(/^==/, ''));
      }
      return;
    }
    case 'poetry.lock': {
      const doc = parseToml(text) as { package?: { name: string; version: string }[] };
      for (const p of doc.package ?? []) sink.lockPackage(p.name, p.version);
      return;
    }
    case 'package.json': {
      const doc = JSON.parse(text) as Record<string, unknown>;
      const node = (doc.engines as Record<string, unknown> | undefined)?.node;
      if (typeof node === 'string') sink.runtime('node', node);
      for (const section of ['dependencies', 'devDependencies', 'peerDependencies']) {
        for (const [name, spec] of Object.entries((doc[section] as Record<string, unknown>) ?? {})) if (typeof spec === 'string') sink.manifestPackage(name, spec);
      }
      return;
    }
    case 'package-lock.json': {
      const doc = JSON.parse(text) as { packages?: Record<string, { version?: string }>; dependencies?: Record<string, { version?: string }> };
      for (const [key, entry] of Object.entries(doc.packages ?? {})) {
        const name = key.startsWith('node_modules/') && !key.slice('node_modules/'.length).includes('/node_modules/') ? key.slice('node_modules/'.length) : null;
        if (name && entry.version) sink.lockPackage(name, entry.version);
      }
      for (const [name, entry] of Object.entries(doc.dependencies ?? {})) if (entry.version) sink.lockPackage(name, entry.version);
      return;
    }
  }
}

function readRequirements(text: string, sink: ManifestSink): void {
  for (const raw of text.split(/\r?\n/)) requirementLine(raw, sink);
}

/** One PEP 508 requirement (`Flask[async]>=2.0,<3 ; python_version>"3"`), comments and options aside. */
function requirementLine(raw: string, sink: ManifestSink): void {
  const line = raw.replace(/(^|\s)#.*$/, '').split(';')[0].trim();
  if (!line || line.startsWith('-')) return;
  const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(\(?\s*(?:[<>=!~]=?=?)[^@]*)?$/.exec(line);
  if (m) sink.manifestPackage(m[1], (m[2] ?? '').replace(/[()\s]/g, ''));
}

function readPyproject(text: string, sink: ManifestSink): void {
  const doc = parseToml(text) as Record<string, Record<string, unknown>>;
  const project = doc.project ?? {};
  if (typeof project['requires-python'] === 'string') sink.runtime('python', project['requires-python']);
  for (const dep of (project.dependencies as unknown[]) ?? []) if (typeof dep === 'string') requirementLine(dep, sink);
  const poetry = (doc.tool as Record<string, Record<string, unknown>> | undefined)?.poetry;
  const poetryDeps = (poetry?.dependencies as Record<string, unknown>) ?? {};
  for (const [name, spec] of Object.entries(poetryDeps)) {
    const written = typeof spec === 'string' ? spec : typeof (spec as { version?: unknown })?.version === 'string' ? (spec as { version: string }).version : '';
    if (name.toLowerCase() === 'python') sink.runtime('python', written);
    else sink.manifestPackage(name, written === '*' ? '' : written);
  }
  const classifiers = ((project.classifiers as unknown[]) ?? []).filter((c): c is string => typeof c === 'string');
  const versions = classifiers.map((c) => /^Programming Language :: Python :: (\d+(?:\.\d+)?)$/.exec(c)?.[1]).filter((v): v is string => !!v);
  if (versions.length && typeof project['requires-python'] !== 'string') sink.runtime('python', `>=${versions.sort(compareVersions)[0]}`);
}

/**
 * Continuous-integration files at the root: the interpreter versions a project is tested on are versions it
 * runs on. Travis's `python:`/`node_js:`, GitHub Actions' `python-version:`/`node-version:` (in a setup step or
 * a matrix), tox's `envlist` (`py27`, `py310`), and `python:`/`node:` images of GitLab CI and Azure Pipelines.
 */
const CI_FILE = /^(?:\.travis\.ya?ml|tox\.ini|\.gitlab-ci\.ya?ml|azure-pipelines\.ya?ml|\.github\/workflows\/[^/]+\.ya?ml)$/;

function readCi(rel: string, text: string, sink: ManifestSink): void {
  const version = (runtime: Runtime, value: unknown) => {
    for (const v of Array.isArray(value) ? value : [value]) {
      // Versions only: `${{ matrix.python-version }}`, `nightly`, `lts/*` name none.
      const m = typeof v === 'string' ? /^\s*v?(\d+(?:\.\d+)*)(?:\.x)?\s*$/.exec(v) : null;
      if (m) sink.runtime(runtime, m[1]);
    }
  };
  if (rel === 'tox.ini') {
    const envlist = /^\s*envlist\s*=\s*((?:.*)(?:\n[ \t]+.*)*)/m.exec(text)?.[1] ?? '';
    for (const m of envlist.matchAll(/\bpy(\d)(\d+)?\b/g)) sink.runtime('python', m[2] ? `${m[1]}.${m[2]}` : m[1]);
    return;
  }
  // Every scalar as written (the failsafe schema): YAML would read `3.10` as the number 3.1.
  const doc = parseYaml(text, { schema: 'failsafe' }) as unknown;
  const visit = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (rel.startsWith('.travis') && key === 'python') version('python', value);
      else if (rel.startsWith('.travis') && key === 'node_js') version('node', value);
      else if (key === 'python-version') version('python', value);
      else if (key === 'node-version') version('node', value);
      else if (key === 'image') imageRuntime(typeof value === 'string' ? value : (value as { name?: unknown })?.name, sink);
      visit(value);
    }
  };
  visit(doc);
}

/** The interpreter a container image names by its tag (`python:3.8-slim`, `node:18`), if any. */
function imageRuntime(image: unknown, sink: ManifestSink): void {
  if (typeof image !== 'string') return;
  const tagged = /^(?:[\w.-]+\/)?(?:library\/)?(python|node|pypy)(?::([^@\s]+))?/.exec(image);
  const version = tagged?.[2] && /^v?(\d+(?:\.\d+)*)/.exec(tagged[2])?.[1];
  if (tagged && version) sink.runtime(tagged[1] === 'node' ? 'node' : 'python', version);
}

function readDockerfile(rel: string, text: string, sink: ManifestSink): void {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  const facts: DockerfileFacts = { path: rel, from: [], cmd: null, entrypoint: null, env: [] };
  /** `ARG NAME=default`: a FROM that names `${NAME}` (or `$NAME`) runs on the default unless the build says otherwise. */
  const args = new Map<string, string>();
  for (const line of lines) {
    const m = /^\s*(FROM|CMD|ENTRYPOINT|ENV|ARG)\s+(.+?)\s*$/i.exec(line);
    if (!m) continue;
    const [, instruction, rest] = m;
    switch (instruction.toUpperCase()) {
      case 'ARG': {
        const arg = /^([A-Za-z_][A-Za-z0-9_]*)=["']?([^"'\s]*)/.exec(rest);
        if (arg) args.set(arg[1], arg[2]);
        break;
      }
      case 'FROM': {
        const written = rest.split(/\s+/).find((w) => !w.startsWith('--'))!;
        const image = written.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}?/g, (whole, name: string) => args.get(name) ?? whole);
        facts.from.push(image);
        imageRuntime(image, sink);
        break;
      }
      case 'CMD':
        facts.cmd = rest;
        break;
      case 'ENTRYPOINT':
        facts.entrypoint = rest;
        break;
      case 'ENV':
        for (const e of rest.matchAll(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)(?:=|\s)/g)) {
          facts.env.push(e[1]);
          if (!rest.includes('=')) break; // `ENV NAME value` sets one variable
        }
        break;
    }
  }
  sink.facts.start.dockerfiles.push(facts);
}

function readCompose(rel: string, text: string, facts: RepoFacts): void {
  const doc = parseYaml(text) as { services?: Record<string, Record<string, unknown> | null> } | null;
  const services: ComposeService[] = [];
  for (const [name, service] of Object.entries(doc?.services ?? {})) {
    if (!service || typeof service !== 'object') continue;
    const build = typeof service.build === 'string' ? service.build : typeof (service.build as { context?: unknown })?.context === 'string' ? (service.build as { context: string }).context : service.build ? '.' : null;
    const environment = Array.isArray(service.environment) ? 'list' : service.environment && typeof service.environment === 'object' ? 'map' : null;
    const envFile = typeof service.env_file === 'string' ? [service.env_file] : Array.isArray(service.env_file) ? service.env_file.map((e) => (typeof e === 'string' ? e : String((e as { path?: unknown })?.path ?? ''))).filter(Boolean) : [];
    services.push({ name, build, image: typeof service.image === 'string' ? service.image : null, environment, envFile });
  }
  facts.start.compose.push({ path: rel, services });
}

/** Reads of the environment in code; `${X}` is left out, since in JavaScript it is any template interpolation. */
const ENV_READS = [
  /\bos\.environ(?:\.get|\.setdefault|\.pop)?\s*[[(]\s*["']([A-Za-z_][A-Za-z0-9_]*)["']/g,
  // A bare `environ` is `from os import environ`, or a WSGI request's environ, whose CGI keys are left out.
  /(?<![\w.])environ(?:\.get|\.setdefault|\.pop)?\s*[[(]\s*["'](?!(?:PATH_INFO|QUERY_STRING|REQUEST_METHOD|SCRIPT_NAME|SERVER_NAME|SERVER_PORT|SERVER_PROTOCOL|CONTENT_TYPE|CONTENT_LENGTH|REMOTE_ADDR|REMOTE_HOST|REMOTE_USER|HTTP_\w+)["'])([A-Za-z_][A-Za-z0-9_]*)["']/g,
  /\b(?:getenv|Getenv|ENV\.fetch|GetEnvironmentVariable)\s*\(\s*["'`]([A-Za-z_][A-Za-z0-9_]*)["'`]/g,
  // django-environ's env("X"), env.str("X"); python-decouple's config("X").
  /(?<![\w.])(?:env(?:\.\w+)?|config)\s*\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']/g,
  /process\.env\.([A-Za-z_][A-Za-z0-9_]*)/g,
  /process\.env\[\s*["'`]([A-Za-z_][A-Za-z0-9_]*)["'`]/g,
  /\b(?:const|let|var)\s*\{([^}]*)\}\s*=\s*process\.env\b/g,
];

function readCode(rel: string, text: string, facts: RepoFacts): void {
  const { config } = facts;
  for (const pattern of ENV_READS) {
    for (const m of text.matchAll(pattern)) {
      const names = pattern.source.includes('\\{') ? m[1].split(',').map((n) => n.split(/[:=]/)[0].trim()).filter((n) => /^[A-Za-z_]\w*$/.test(n)) : [m[1]];
      for (const name of names) {
        const files = (config.envReads[name] ??= []);
        if (!files.includes(rel)) files.push(rel);
      }
    }
  }
  if (rel.endsWith('.py')) {
    if (/^INSTALLED_APPS\s*=/m.test(text) || /^ROOT_URLCONF\s*=/m.test(text)) config.djangoSettings.push(rel);
    if (/\.config\s*\[|\.config\.(?:from_object|from_pyfile|from_envvar|from_mapping|update)\s*\(/.test(text)) config.flaskConfig.push(rel);
    if (/\b(?:load_dotenv|dotenv_values|find_dotenv)\s*\(|^\s*(?:from\s+dotenv\s+import|import\s+dotenv)/m.test(text)) config.dotenv.push(rel);
  } else if (/\brequire\(\s*["']dotenv(?:\/config)?["']\s*\)|\bfrom\s+["']dotenv(?:\/config)?["']|\bimport\s+["']dotenv\/config["']/.test(text)) {
    config.dotenv.push(rel);
  }
}

function normalizePackage(name: string): string {
  // PEP 503: runs of `-`, `_` and `.` are one `-`; npm names keep their own spelling.
  return name.startsWith('@') ? name.toLowerCase() : name.toLowerCase().replace(/[-_.]+/g, '-');
}

/** The lowest version a spec allows, in the spec's own language; null when it allows any or names none. */
function lowestOf(kind: 'python' | 'npm', spec: string): string | null {
  const written = spec.trim();
  if (!written || written === '*') return null;
  if (kind === 'npm') {
    try {
      const min = semver.minVersion(written);
      return min ? numericVersion(min.version) : null;
    } catch {
      return numericVersion(written);
    }
  }
  // Python: the bounds that give a floor (`==`, `>=`, `~=`, `>`, `===`, a bare version, Poetry's `^`/`~`).
  const floors = written
    .split(',')
    .map((part) => /^\s*(===|==|>=|~=|>|\^|~)?\s*v?(\d+(?:\.\d+)*)(?:\.\*)?/.exec(part))
    .filter((m): m is RegExpExecArray => !!m && (m[1] === undefined || !m[1].startsWith('<')))
    .map((m) => m[2]);
  return floors.length ? floors.sort(compareVersions).at(-1)! : null;
}

/** `0.12.2` from `0.12.2`, `v18.1.0`, `3.10.0rc1`; null without a leading number. */
function numericVersion(version: string): string | null {
  return /^v?(\d+(?:\.\d+)*)/.exec(version.trim())?.[1] ?? null;
}

/** The declaration allowing the lowest version; one naming none only when none names one. */
function lowestDeclaration(declarations: Declared[]): Declared | undefined {
  const versioned = declarations.filter((d) => d.lowest !== null);
  if (!versioned.length) return declarations[0];
  return versioned.reduce((low, d) => (compareVersions(d.lowest!, low.lowest!) < 0 ? d : low));
}
