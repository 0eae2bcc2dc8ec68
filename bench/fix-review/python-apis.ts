// Standard-library names a fix may reach for that do not exist in every Python the application declares:
// a module that parses can still fail at import (`from os.path import commonpath` on 2.7) or at the first
// call. Each entry says the first 2.x and 3.x release that has it (null: none) and, where it went, the 3.x
// release that removed it; the versions are the "New in version" and removal notes of the Python docs.
import type { SgNode } from '@ast-grep/napi';
import { parseCode } from '../../src/fixing/fixers/shared/syntax.ts';
import { versionText, type PythonVersion } from './python-syntax.ts';

export interface ApiEntry {
  /** A dotted name (module, or module attribute); `.name(` for a method on any receiver; `f-string` syntax. */
  name: string;
  /** A keyword argument that came later than the function itself (os.makedirs(exist_ok=)). */
  keyword?: string;
  py2: string | null;
  py3: string | null;
  removedIn3?: string;
}

export const PYTHON_APIS: readonly ApiEntry[] = [
  { name: 'f-string', py2: null, py3: '3.6' },
  { name: 'os.path.commonpath', py2: null, py3: '3.5' },
  { name: 'secrets', py2: null, py3: '3.6' },
  { name: 'html', py2: null, py3: '3.0' },
  { name: 'html.escape', py2: null, py3: '3.2' },
  { name: 'html.unescape', py2: null, py3: '3.4' },
  { name: 'shlex.quote', py2: null, py3: '3.3' },
  { name: 'hmac.compare_digest', py2: '2.7.7', py3: '3.3' },
  { name: 'hmac.digest', py2: null, py3: '3.7' },
  { name: 'hashlib.pbkdf2_hmac', py2: '2.7.8', py3: '3.4' },
  { name: 'hashlib.scrypt', py2: null, py3: '3.6' },
  { name: 'ssl.create_default_context', py2: '2.7.9', py3: '3.4' },
  { name: 'urllib.parse', py2: null, py3: '3.0' },
  { name: 'urllib.request', py2: null, py3: '3.0' },
  { name: 'subprocess.run', py2: null, py3: '3.5' },
  { name: 'subprocess.run', keyword: 'capture_output', py2: null, py3: '3.7' },
  { name: 'subprocess.run', keyword: 'text', py2: null, py3: '3.7' },
  { name: 'subprocess.DEVNULL', py2: null, py3: '3.3' },
  { name: 'os.makedirs', keyword: 'exist_ok', py2: null, py3: '3.2' },
  { name: 'os.replace', py2: null, py3: '3.3' },
  { name: 'os.scandir', py2: null, py3: '3.5' },
  { name: 'os.fspath', py2: null, py3: '3.6' },
  { name: 'shutil.which', py2: null, py3: '3.3' },
  { name: 'functools.lru_cache', py2: null, py3: '3.2' },
  { name: 'contextlib.suppress', py2: null, py3: '3.4' },
  { name: 're.fullmatch', py2: null, py3: '3.4' },
  { name: 'json.JSONDecodeError', py2: null, py3: '3.5' },
  { name: 'math.isclose', py2: null, py3: '3.5' },
  { name: 'ipaddress', py2: null, py3: '3.3' },
  { name: 'pathlib', py2: null, py3: '3.4' },
  { name: 'enum', py2: null, py3: '3.4' },
  { name: 'typing', py2: null, py3: '3.5' },
  { name: 'dataclasses', py2: null, py3: '3.7' },
  { name: 'importlib.resources', py2: null, py3: '3.7' },
  { name: 'zoneinfo', py2: null, py3: '3.9' },
  { name: 'tomllib', py2: null, py3: '3.11' },
  { name: '.is_relative_to(', py2: null, py3: '3.9' },
  { name: '.removeprefix(', py2: null, py3: '3.9' },
  { name: '.removesuffix(', py2: null, py3: '3.9' },
  // what a fix written for Python 2 may use and Python 3 removed
  { name: 'cgi.escape', py2: '2.0', py3: '3.0', removedIn3: '3.8' },
  { name: 'cgi', py2: '2.0', py3: '3.0', removedIn3: '3.13' },
  { name: 'pipes', py2: '2.0', py3: '3.0', removedIn3: '3.13' },
  { name: 'imp', py2: '2.0', py3: '3.0', removedIn3: '3.12' },
  { name: 'distutils', py2: '2.0', py3: '3.0', removedIn3: '3.12' },
  { name: 'time.clock', py2: '2.0', py3: '3.0', removedIn3: '3.8' },
  { name: 'base64.encodestring', py2: '2.0', py3: '3.0', removedIn3: '3.9' },
  { name: 'base64.decodestring', py2: '2.0', py3: '3.0', removedIn3: '3.9' },
  { name: 'inspect.getargspec', py2: '2.0', py3: '3.0', removedIn3: '3.11' },
  ...['Mapping', 'MutableMapping', 'Sequence', 'Iterable', 'Callable'].map((n) => ({ name: `collections.${n}`, py2: '2.6', py3: '3.0', removedIn3: '3.10' })),
  ...['urlparse', 'urllib2', 'HTMLParser', 'cPickle', 'StringIO', 'cStringIO', 'ConfigParser', 'commands', 'httplib', 'Cookie', 'cookielib'].map((n) => ({ name: n, py2: '2.0', py3: null })),
  { name: 'urllib.quote', py2: '2.0', py3: null },
  { name: 'urllib.urlencode', py2: '2.0', py3: null },
  { name: 'urllib.unquote', py2: '2.0', py3: null },
  { name: 'string.letters', py2: '2.0', py3: null },
];

const parts = (text: string) => text.split('.').map(Number);

function atLeast(version: PythonVersion, first: string): boolean | 'unknown' {
  const [major, minor, micro] = parts(first);
  if (version.major !== major) return version.major > major!;
  if (version.minor !== minor) return version.minor > minor!;
  if (micro === undefined) return true;
  return version.micro === undefined ? 'unknown' : version.micro >= micro;
}

/** Why `entry` is missing from `version`, or null when that version has it. */
export function missingIn(entry: ApiEntry, version: PythonVersion): string | null {
  const label = entry.keyword ? `${entry.name}(${entry.keyword}=…)` : entry.name.startsWith('.') ? `str/Path${entry.name}…)` : entry.name;
  const first = version.major === 2 ? entry.py2 : entry.py3;
  if (first === null) return `${label} is not in Python ${version.major}${entry.py3 && version.major === 2 ? ` (new in ${entry.py3})` : ''}`;
  const has = atLeast(version, first);
  if (has === 'unknown') return `${label} needs ${first} or later; the application declares ${versionText(version)} without the patch release`;
  if (!has) return `${label} needs ${first} or later`;
  if (version.major === 3 && entry.removedIn3 && atLeast(version, entry.removedIn3) === true) return `${label} was removed in ${entry.removedIn3}`;
  return null;
}

export interface ApiUse {
  /** The entry's name (and keyword) it matched. */
  entry: ApiEntry;
  line: number;
}

/** Local name → the dotted name it stands for, from the module's import statements (anywhere in it). */
function importedNames(root: SgNode): { aliases: Map<string, string>; imported: { name: string; node: SgNode }[] } {
  const aliases = new Map<string, string>();
  const imported: { name: string; node: SgNode }[] = [];
  for (const statement of root.findAll({ rule: { any: [{ kind: 'import_statement' }, { kind: 'import_from_statement' }] } })) {
    const from = statement.kind() === 'import_from_statement' ? statement.field('module_name') : null;
    if (from && from.kind() !== 'dotted_name') continue; // relative: the application's own modules
    for (const item of statement.fieldChildren('name')) {
      const dotted = item.kind() === 'aliased_import' ? item.field('name')! : item;
      const alias = item.kind() === 'aliased_import' ? item.field('alias')!.text() : null;
      const full = from ? `${from.text()}.${dotted.text()}` : dotted.text();
      imported.push({ name: full, node: statement });
      if (from || alias) aliases.set(alias ?? dotted.text(), full);
      else aliases.set(dotted.text().split('.')[0]!, dotted.text().split('.')[0]!);
    }
    if (from && !statement.fieldChildren('name').length) imported.push({ name: from.text(), node: statement }); // from m import *
  }
  return { aliases, imported };
}

/** A chain of names (a.b.c) as written, or null for anything else (calls, subscripts, strings). */
function dottedText(node: SgNode): string | null {
  const text = node.text().replace(/\s+/g, '');
  return /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$/.test(text) ? text : null;
}

const matches = (used: string, name: string) => used === name || used.startsWith(`${name}.`);

/**
 * Whether a use sits in code written for either version: a try whose handler catches the import failing
 * (`try: from shlex import quote` / `except ImportError: from pipes import quote`), or a branch on the
 * version (`if sys.version_info >= (3,)`, `six.PY2`).
 */
function versionGuarded(node: SgNode): boolean {
  for (const ancestor of node.ancestors()) {
    const kind = String(ancestor.kind());
    if (kind === 'try_statement') {
      const handlers = ancestor.children().filter((c) => String(c.kind()) === 'except_clause');
      if (handlers.some((h) => /^except\s*:|^except\s*\(?[^:]*\b(?:ImportError|ModuleNotFoundError|AttributeError|NameError|Exception)\b/.test(h.text()))) return true;
    }
    if ((kind === 'if_statement' || kind === 'elif_clause' || kind === 'conditional_expression') && /version_info|\bPY[23]\b|python_version|sys\.version\b/.test((ancestor.field('condition' as never) as SgNode | null)?.text() ?? ancestor.text().split('\n')[0]!)) return true;
  }
  return false;
}

/** Where the module uses a name of PYTHON_APIS (the most specific entry for each use), outside code written for either version. */
export function apiUses(source: string): ApiUse[] {
  let root: SgNode;
  try {
    root = parseCode('python', source);
  } catch {
    return [];
  }
  const uses: (ApiUse & { guarded: boolean })[] = [];
  const { aliases, imported } = importedNames(root);
  const plain = PYTHON_APIS.filter((e) => !e.keyword && !e.name.startsWith('.') && e.name !== 'f-string');
  const mostSpecific = (used: string) => plain.filter((e) => matches(used, e.name)).sort((a, b) => b.name.length - a.name.length)[0];
  for (const { name, node } of imported) {
    const entry = mostSpecific(name);
    if (entry) uses.push({ entry, line: node.range().start.line + 1, guarded: versionGuarded(node) });
  }
  for (const attribute of root.findAll({ rule: { kind: 'attribute' } })) {
    // only the outermost attribute of a chain (os.path.commonpath, not os.path inside it)
    if (attribute.parent()?.kind() === 'attribute' && attribute.parent()!.field('object')?.id() === attribute.id()) continue;
    const text = dottedText(attribute);
    if (!text) continue;
    const head = text.split('.')[0]!;
    const resolved = aliases.get(head);
    if (!resolved) continue;
    const full = `${resolved}${text.slice(head.length)}`;
    const entry = mostSpecific(full);
    if (entry) uses.push({ entry, line: attribute.range().start.line + 1, guarded: versionGuarded(attribute) });
  }
  for (const call of root.findAll({ rule: { kind: 'call' } })) {
    const callee = call.field('function');
    if (!callee) continue;
    const line = call.range().start.line + 1;
    if (callee.kind() === 'attribute') {
      const method = PYTHON_APIS.find((e) => e.name === `.${callee.field('attribute')?.text()}(`);
      if (method) uses.push({ entry: method, line, guarded: versionGuarded(call) });
    }
    const text = callee.kind() === 'identifier' ? callee.text() : dottedText(callee);
    if (!text) continue;
    const head = text.split('.')[0]!;
    const full = aliases.has(head) ? `${aliases.get(head)}${text.slice(head.length)}` : null;
    if (!full) continue;
    const keywords = (call.field('arguments')?.children() ?? []).filter((c) => c.kind() === 'keyword_argument').map((c) => c.field('name')?.text());
    for (const entry of PYTHON_APIS) if (entry.keyword && entry.name === full && keywords.includes(entry.keyword)) uses.push({ entry, line, guarded: versionGuarded(call) });
  }
  const fString = PYTHON_APIS.find((e) => e.name === 'f-string')!;
  for (const start of root.findAll({ rule: { kind: 'string_start' } })) {
    if (/^[a-eg-z]*f/i.test(start.text())) uses.push({ entry: fString, line: start.range().start.line + 1, guarded: false });
  }
  return uses.filter((use) => !use.guarded).map(({ entry, line }) => ({ entry, line }));
}

/** Per use of a name the given version lacks: the use and why. */
export function unavailableApis(source: string, version: PythonVersion): { use: ApiUse; why: string }[] {
  return apiUses(source).flatMap((use) => {
    const why = missingIn(use.entry, version);
    return why ? [{ use, why }] : [];
  });
}
