import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { declaredBelow } from '../app-facts.ts';
import { refuse, type Codemod, type CodemodContext } from '../codemod.ts';
import { argumentsOf, callAround, keywordArgument, pythonImport, pythonImports, replace } from '../edit-kit.ts';

// Jinja2 `Environment(…, autoescape=False)` (or `Template`, aiohttp_jinja2's `setup`) → autoescaping on the
// documented way: `select_autoescape()`, which escapes templates named .html/.htm/.xml and strings, and leaves
// other templates alone. Its extensions are exact for the templates the loader reads: an HTML template with
// another suffix (`page.jinja2`) is added to them, and an environment whose templates are all text (.txt,
// .sql…) is refused, since escaping does not apply to them. A Jinja2 older than 2.9 has no select_autoescape:
// `True` then, which escapes every template.

/** Suffixes of files that are not HTML, whatever a template engine renders into them. */
const NOT_HTML = new Set('txt text sql md markdown rst csv tsv json yml yaml toml ini cfg conf env sh bash py js mjs css scss tex ics eml log'.split(' '));
/** Suffixes select_autoescape escapes by default. */
const DEFAULT_ENABLED = ['html', 'htm', 'xml'];
/** Suffixes that name a template engine, not what the template renders (`page.html.j2`). */
const ENGINE_SUFFIXES = new Set(['j2', 'jinja', 'jinja2', 'tpl', 'tmpl', 'tmp']);
const HTML_TAG = /<\/?[a-zA-Z][\w-]*(?:\s[^<>]*)?\/?>|<!DOCTYPE/i;
/** How many templates are read to tell what they render. */
const READ_LIMIT = 200;

const JINJA_ENVIRONMENTS = /(?:^|\.)(?:Environment|SandboxedEnvironment|ImmutableSandboxedEnvironment|Template)$/;

/** The suffix select_autoescape would match a template by: its last one, or its last two behind an engine suffix. */
function suffixOf(file: string): string {
  const parts = file.split('/').at(-1)!.toLowerCase().split('.').slice(1);
  if (parts.length >= 2 && ENGINE_SUFFIXES.has(parts.at(-1)!)) return parts.slice(-2).join('.');
  return parts.at(-1) ?? '';
}

/** Whether a template renders HTML: by what its suffix says, else by the markup it holds. */
function rendersHtml(file: string, content: string | null): boolean {
  const suffix = suffixOf(file);
  const what = suffix.split('.')[0]!;
  if (NOT_HTML.has(what)) return false;
  if (DEFAULT_ENABLED.includes(what) || what === 'xhtml' || what === 'svg') return true;
  return content !== null && HTML_TAG.test(content);
}

/** The value the keyword argument's call gets for `loader`, through a module-level name it was assigned to. */
function loaderOf(call: SgNode): SgNode | null {
  const loader = keywordArgument(call, 'loader');
  let value = loader ? fieldOf(loader, 'value') : null;
  if (value && kindOf(value) === 'identifier') {
    const name = value.text();
    const assigned = value
      .getRoot()
      .root()
      .findAll({ rule: { kind: 'assignment', has: { field: 'left', regex: `^${name}$` } } })
      .map((a) => fieldOf(a, 'right'))
      .filter((r): r is SgNode => !!r);
    value = assigned.length === 1 ? assigned[0] : null;
  }
  return value;
}

/** The folders (as path suffixes) the loader's FileSystemLoader and PackageLoader calls read templates from, or null when one is not written out. */
function loaderFolders(loader: SgNode): string[] | null {
  const calls = kindOf(loader) === 'call' ? [loader] : [];
  for (const call of loader.findAll({ rule: { kind: 'call' } })) if (!calls.some((c) => c.range().start.index === call.range().start.index)) calls.push(call);
  const folders: string[] = [];
  for (const call of calls) {
    const callee = fieldOf(call, 'function')?.text() ?? '';
    const strings = (node: SgNode) => node.findAll({ rule: { kind: 'string' } }).map((s) => /^[rRuU]?(['"])(.*)\1$/.exec(s.text())?.[2]).filter((s): s is string => !!s);
    if (/(?:^|\.)FileSystemLoader$/.test(callee)) {
      const args = argumentsOf(call);
      const searchpath = args.find((a) => kindOf(a) !== 'keyword_argument') ?? (keywordArgument(call, 'searchpath') && fieldOf(keywordArgument(call, 'searchpath')!, 'value'));
      if (!searchpath) return null;
      // A list of folders, or a path joined from pieces (`os.path.join(BASE_DIR, "templates")`).
      const paths = kindOf(searchpath) === 'list' ? searchpath.namedChildren().map((c) => strings(c).join('/')) : [strings(searchpath).join('/')];
      if (paths.some((p) => !p)) return null;
      folders.push(...paths);
    } else if (/(?:^|\.)PackageLoader$/.test(callee)) {
      const [pkg, folder] = argumentsOf(call).map((a) => (kindOf(a) === 'keyword_argument' ? fieldOf(a, 'value')! : a));
      const name = pkg && kindOf(pkg) === 'string' ? strings(pkg)[0] : null;
      if (!name) return null;
      folders.push(`${name.replaceAll('.', '/')}/${folder ? (strings(folder)[0] ?? 'templates') : 'templates'}`);
    }
  }
  return [...new Set(folders)];
}

/** The repository's files inside the loader's folders, nearest the file's own folder first. */
function templatesIn(files: string[], folders: string[], file: string): string[] {
  const own = file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : '';
  const found = new Set<string>();
  for (const raw of folders) {
    const folder = raw.replace(/^\.?\//, '').replace(/\/+$/, '');
    const near = files.filter((f) => f.startsWith(`${own}${folder}/`) || f.startsWith(`${folder}/`));
    const anywhere = near.length ? near : files.filter((f) => f.includes(`/${folder}/`));
    for (const f of anywhere) found.add(f);
  }
  return [...found];
}

/** The extensions select_autoescape must be given, or a refusal when no template of the environment is HTML. */
async function extensionsFor(context: CodemodContext, call: SgNode): Promise<{ extensions: string[] } | { refused: string }> {
  const loader = loaderOf(call);
  const folders = loader ? loaderFolders(loader) : null;
  if (!folders?.length) return { extensions: DEFAULT_ENABLED };
  const templates = templatesIn(await context.files(), folders, context.file).slice(0, READ_LIMIT);
  if (!templates.length) return { extensions: DEFAULT_ENABLED };
  const html: string[] = [];
  for (const template of templates) if (rendersHtml(template, await context.readFile(template))) html.push(template);
  if (!html.length) {
    const suffixes = [...new Set(templates.map((t) => `.${suffixOf(t)}`))].sort().join(', ');
    return { refused: `the environment's templates (${suffixes} in ${folders.join(', ')}) are not HTML, so escaping does not apply to them; if no HTML is rendered with it, mark the finding a false positive` };
  }
  const extra = [...new Set(html.map(suffixOf))].filter((s) => s && !DEFAULT_ENABLED.includes(s)).sort();
  return { extensions: [...DEFAULT_ENABLED, ...extra] };
}

export const pythonAutoescapeOn: Codemod = {
  name: 'python/autoescape-on',
  rules: ['python.lang.templates.autoescape-disabled'],
  async rewrite(context) {
    const { node, root, text } = context;
    const value = fieldOf(node!, 'value');
    if (!value || value.text() !== 'False') return refuse('autoescape is not set to the literal False here');
    const call = callAround(node!);
    const callee = call ? (fieldOf(call, 'function')?.text() ?? '') : '';
    if (/(?:^|\.)NativeEnvironment$/.test(callee)) return refuse('a NativeEnvironment renders Python values, not HTML, so it has nothing to escape');
    const aiohttp = /(?:^|\.)setup(?:_jinja\w*)?$/.test(callee) && /\baiohttp_jinja2\b/.test(text);
    if (!call || !(aiohttp || (JINJA_ENVIRONMENTS.test(callee) && /\bjinja2\b/.test(text)))) {
      return refuse(`autoescape=False is passed to ${callee || 'something'} here, which the fixer does not know as a Jinja2 environment`);
    }
    const old = await declaredBelow(context, 'jinja2', '2.9');
    if (old) {
      return {
        edits: [replace(value, 'True')],
        note:
          `Turned autoescaping on (autoescape=True: the repository allows a Jinja2 older than 2.9, declared ${old}, which has no select_autoescape), so every template escapes what it prints, text templates included; ` +
          'a template that prints trusted HTML must now mark it |safe, or the code must pass it as Markup.',
      };
    }
    const chosen = await extensionsFor(context, call);
    if ('refused' in chosen) return refuse(chosen.refused);
    const extensions = chosen.extensions.length > DEFAULT_ENABLED.length ? `[${chosen.extensions.map((e) => `"${e}"`).join(', ')}]` : '';
    const namespaced = pythonImports(root!, 'jinja2') && !pythonImports(root!, 'select_autoescape');
    const expression = `${namespaced ? 'jinja2.' : ''}select_autoescape(${extensions})`;
    const imports = namespaced ? [] : pythonImport(root!, text, 'from jinja2 import select_autoescape', 'select_autoescape');
    const escaped = chosen.extensions.map((e) => `.${e}`).join(', ');
    return {
      edits: [replace(value, expression), ...imports],
      note:
        `Turned autoescaping on with ${expression}: templates named ${escaped} and templates made from strings now escape what they print; ` +
        'a template that prints trusted HTML must now mark it |safe, or the code must pass it as Markup.',
    };
  },
};
