import { parse, type SgNode } from '@ast-grep/napi';
import { astGrepLang, parserFor, registerLanguages } from '../../languages/index.ts';
import type { FileVisitor, Handler, ProgramFile, PythonProgram } from './python-program.ts';
import { requestCallsOf, type RequestCallSyntax } from './request-calls.ts';
import { withoutComments } from './source-text.ts';
import { TreeRelease } from './tree-release.ts';

// The program model of a JavaScript or TypeScript web application: its files with the packages they
// import, and its entry points — Express, Koa-router and Fastify routes (`app.get('/path', …middleware,
// handler)`, `fastify.post('/path', { preHandler }, handler)`), NestJS controller methods (`@Get()`) and
// Next.js API routes — each with its methods and whether a guard covers it (authentication middleware or
// hooks on the route, on its router or app, `@UseGuards`, a session check at the top of its body). Handlers
// take the same shape as the Python model's, so the checks that only read handlers serve both.

export interface JsSource {
  path: string;
  text: string;
}

const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'del', 'all', 'options', 'head']);
/** Middleware, hooks and guards that demand a signed-in caller or a permission. */
const GUARD = /auth|login|logged|passport|jwt|token|session|protect|permission|role|admin|guard|verify|ensure|require(?:d|s)?User|isUser/i;
/** Checks at the top of a handler body that turn away an anonymous caller. */
const BODY_GUARD = /req(?:uest)?\.(?:user|session\.user|isAuthenticated)|ctx\.state\.user|getServerSession|getToken\s*\(|getSession\s*\(|verify(?:Token|Jwt)?\s*\(|jwt\.verify|status\(\s*40[13]\s*\)|\b40[13]\b/;
const NEST_ROUTE = /^@(Get|Post|Put|Patch|Delete|All)\b/;

const lineOf = (node: SgNode) => node.range().start.line + 1;

/** A file's module name: its path without the extension (and without a trailing /index), as relative imports name it. */
export const jsModuleOf = (path: string) => path.replace(/\.[cm]?[jt]sx?$/, '').replace(/\/index$/, '');

/** `./db/users` imported from `src/routes/notes.js` → `src/db/users`; a package name is left as it is. */
function resolveSpecifier(from: string, spec: string): string {
  if (!spec.startsWith('.')) return spec;
  const parts = from.split('/').slice(0, -1);
  for (const segment of spec.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.' && segment) parts.push(segment);
  }
  return jsModuleOf(parts.join('/'));
}

/**
 * What each imported name of a file stands for, dotted: `const { find } = require('./db')` and
 * `import { find } from './db'` → find: `<module>.find`; `import * as db`, `const db = require(…)` → db: `<module>`.
 */
function importedNamesOf(root: SgNode, path: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const node of root.findAll({ rule: { any: [{ kind: 'import_statement' }, { kind: 'variable_declarator', has: { field: 'value', regex: '^require\\(' } }] } } as never)) {
    const text = node.text();
    const spec = /['"]([^'"]+)['"]/.exec(text)?.[1];
    if (!spec) continue;
    const module = resolveSpecifier(path, spec);
    const braces = /\{([^}]*)\}/.exec(text.split(/from|=/)[0] + (node.kind() === 'variable_declarator' ? text.split('=')[0] : ''))?.[1];
    if (braces) {
      for (const part of braces.split(',')) {
        const m = /^\s*(\w+)(?:\s*(?:as|:)\s*(\w+))?\s*$/.exec(part);
        if (m) names.set(m[2] ?? m[1], `${module}.${m[1]}`);
      }
      continue;
    }
    const whole = node.kind() === 'variable_declarator' ? /^(\w+)/.exec(text)?.[1] : /import\s+(?:\*\s+as\s+)?(\w+)/.exec(text)?.[1];
    if (whole) names.set(whole, module);
  }
  return names;
}

/** Names of a file's top-level functions, declared or exported (`function f`, `exports.f = function f`, `export function f`). */
function functionsOf(root: SgNode): Set<string> {
  const names = new Set<string>();
  for (const fn of root.findAll({ rule: { any: [{ kind: 'function_declaration' }, { kind: 'function_expression' }] } } as never)) {
    const name = fn.field('name')?.text();
    if (name) names.add(name);
  }
  return names;
}

/** How JavaScript binds and calls, and the data a request brings as handlers read it (for requestCallsOf). */
const SCRIPT_CALLS: RequestCallSyntax = {
  binding: 'variable_declarator',
  value: 'value',
  target: 'name',
  call: 'call_expression',
  requestData: /\b(?:req|request|ctx)\.(?:params|query|body|headers|cookies|files?)\b|\bctx\.request\.body\b/,
  word: /[A-Za-z_$][\w$]*/g,
  callee: /^[\w$.]+$/,
};

function importsOf(root: SgNode): Set<string> {
  const names = new Set<string>();
  for (const node of root.findAll({ rule: { any: [{ kind: 'import_statement' }, { kind: 'call_expression', has: { field: 'function', regex: '^require$' } }] } } as never)) {
    const spec = /['"]([^'"]+)['"]/.exec(node.text())?.[1];
    if (spec) names.add(spec);
  }
  return names;
}

const FUNCTION_KINDS = new Set(['arrow_function', 'function_expression', 'function', 'function_declaration', 'method_definition']);

/** The function a route's last argument names: inline, or declared in the same file by that name. */
function handlerFunctionOf(arg: SgNode, root: SgNode): SgNode | undefined {
  if (FUNCTION_KINDS.has(String(arg.kind()))) return arg;
  const name = arg.kind() === 'identifier' ? arg.text() : arg.kind() === 'member_expression' ? arg.field('property')?.text() : undefined;
  if (!name) return undefined;
  return (
    root.find({ rule: { kind: 'function_declaration', has: { field: 'name', regex: `^${name}$` } } } as never) ??
    root.find({ rule: { kind: 'variable_declarator', has: { field: 'name', regex: `^${name}$` } } } as never)?.field('value') ??
    root.find({ rule: { kind: 'method_definition', has: { field: 'name', regex: `^${name}$` } } } as never) ??
    undefined
  );
}

/** Names a handler function's parameters bind. */
function parametersOf(fn: SgNode | undefined): string[] {
  const params = fn?.field('parameters') ?? fn?.field('parameter');
  return params ? (params.text().match(/[A-Za-z_$][\w$]*/g) ?? []) : [];
}

function guardedByBody(fn: SgNode | undefined): boolean {
  const body = fn?.field('body');
  const first = body?.kind() === 'statement_block' ? body.children().filter((c) => c.isNamed()).slice(0, 4) : body ? [body] : [];
  return first.some((s) => BODY_GUARD.test(s.text()));
}

function makeHandler(file: ProgramFile, node: SgNode, fn: SgNode | undefined, route: { name: string; methods: string[]; paths: string[] }, guarded: boolean, className?: string): Handler {
  const parameters = parametersOf(fn).filter((p) => !['req', 'res', 'next', 'ctx', 'request', 'reply', 'response'].includes(p));
  return {
    file,
    name: route.name,
    className,
    line: lineOf(node),
    defLine: fn ? lineOf(fn) : lineOf(node),
    endLine: node.range().end.line + 1,
    decorators: '',
    parameters,
    paths: route.paths,
    methods: route.methods,
    guarded: guarded || guardedByBody(fn),
    body: fn?.text() ?? node.text(),
    requestCalls: fn ? requestCallsOf(fn, SCRIPT_CALLS) : [],
  };
}

/** Routes registered by calls: `app.get('/x', mw, handler)`, `router.post(…)`, `fastify.put(…, { preHandler }, …)`. */
function routeHandlers(file: ProgramFile, root: SgNode, fileGuard: boolean): Handler[] {
  const handlers: Handler[] = [];
  for (const call of root.findAll({ rule: { kind: 'call_expression', has: { field: 'function', kind: 'member_expression' } } } as never)) {
    const method = call.field('function')?.field('property')?.text() ?? '';
    if (!ROUTE_METHODS.has(method)) continue;
    const args = call.field('arguments')?.children().filter((c) => c.isNamed()) ?? [];
    const path = args[0]?.kind() === 'string' || args[0]?.kind() === 'template_string' ? args[0].text().slice(1, -1) : undefined;
    if (path === undefined || !path.startsWith('/') || args.length < 2) continue;
    const last = args[args.length - 1];
    const fn = handlerFunctionOf(last, root);
    const between = args.slice(1, -1).map((a) => a.text());
    const guarded = fileGuard || between.some((text) => GUARD.test(text));
    const name = last.kind() === 'identifier' || last.kind() === 'member_expression' ? last.text() : `${method.toUpperCase()} ${path}`;
    handlers.push(makeHandler(file, call, fn, { name, methods: method === 'all' ? [] : [method === 'del' ? 'DELETE' : method.toUpperCase()], paths: [path] }, guarded));
  }
  return handlers;
}

/** NestJS: methods of `@Controller` classes decorated `@Get()`, `@Post(':id')`…, guarded by `@UseGuards` on the method or class. */
function nestHandlers(file: ProgramFile, root: SgNode): Handler[] {
  const handlers: Handler[] = [];
  for (const cls of root.findAll({ rule: { kind: 'class_declaration' } } as never)) {
    // An exported class's decorators belong to the export statement.
    const holder = cls.parent()?.kind() === 'export_statement' ? cls.parent()! : cls;
    const decoratorsOfClass = [...holder.children(), ...cls.children()]
      .filter((c) => c.kind() === 'decorator')
      .map((d) => d.text())
      .join('\n');
    if (!/@Controller\b/.test(decoratorsOfClass)) continue;
    const classGuarded = /@UseGuards\b/.test(decoratorsOfClass) && GUARD.test(decoratorsOfClass);
    for (const method of cls.findAll({ rule: { kind: 'method_definition' } } as never)) {
      const decorators: string[] = [];
      for (let sibling = method.prev(); sibling && sibling.kind() === 'decorator'; sibling = sibling.prev()) decorators.push(sibling.text());
      decorators.push(...method.children().filter((c) => c.kind() === 'decorator').map((d) => d.text()));
      const route = decorators.map((d) => NEST_ROUTE.exec(d)).find((m) => m);
      if (!route) continue;
      const path = /\(\s*['"`]([^'"`]*)['"`]/.exec(decorators.find((d) => NEST_ROUTE.test(d)) ?? '')?.[1] ?? '';
      const guarded = classGuarded || decorators.some((d) => /@UseGuards\b/.test(d) && GUARD.test(d));
      handlers.push(
        makeHandler(file, method, method, { name: method.field('name')?.text() ?? '', methods: route[1] === 'All' ? [] : [route[1].toUpperCase()], paths: [`/${path}`] }, guarded, cls.field('name')?.text()),
      );
    }
  }
  return handlers;
}

/** Next.js API routes: `pages/api/**` default exports and `app/**\/route.ts` method exports. */
function nextHandlers(file: ProgramFile, root: SgNode): Handler[] {
  const pagesApi = /(^|\/)pages\/api\//.test(file.path);
  const appRoute = /(^|\/)app\/(?:.*\/)?route\.[jt]sx?$/.test(file.path);
  if (!pagesApi && !appRoute) return [];
  const handlers: Handler[] = [];
  const route = `/${file.path.replace(/^.*?(?:pages|app)\//, '').replace(/(?:\/route)?\.[jt]sx?$/, '').replace(/\/index$/, '')}`;
  for (const exported of root.findAll({ rule: { kind: 'export_statement' } } as never)) {
    const fn = exported.find({ rule: { any: [{ kind: 'function_declaration' }, { kind: 'arrow_function' }, { kind: 'function_expression' }] } } as never) ?? undefined;
    if (!fn) continue;
    const name = fn.field('name')?.text() ?? (exported.text().includes('default') ? 'default' : '');
    const method = /^(GET|POST|PUT|PATCH|DELETE)$/.exec(name)?.[1];
    if (appRoute && !method) continue;
    if (pagesApi && !exported.text().startsWith('export default')) continue;
    handlers.push(makeHandler(file, exported, fn, { name: name || route, methods: method ? [method] : [], paths: [route] }, false));
  }
  return handlers;
}

/** Whether a file puts a guard in front of every route of its app or router: `app.use(passport.authenticate(…))`. */
function guardsEveryRoute(root: SgNode): { app: boolean; file: boolean } {
  let app = false;
  let file = false;
  for (const call of root.findAll({ rule: { kind: 'call_expression', has: { field: 'function', regex: '\\.(?:use|addHook|register)$' } } } as never)) {
    const args = call.field('arguments')?.children().filter((c) => c.isNamed()) ?? [];
    // A path other than the root guards only part of the app.
    const guards = args.filter((a) => a.kind() !== 'string' && GUARD.test(a.text()) && !/rateLimit|limiter|helmet|cors|session\s*\(/i.test(a.text()));
    if (!guards.length || (args[0]?.kind() === 'string' && !/^['"`]\/?['"`]$/.test(args[0].text()))) continue;
    file = true;
    if (/^(?:app|server|fastify)\./.test(call.field('function')?.text() ?? '')) app = true;
  }
  return { app, file };
}

/** The JavaScript/TypeScript files of a project as a program: files, imports and entry points. */
export async function buildJsProgram(sources: JsSource[], visit?: FileVisitor): Promise<PythonProgram> {
  registerLanguages();
  const files: ProgramFile[] = [];
  const handlers: Handler[] = [];
  let appWideGuard = false;
  const release = new TreeRelease();
  for (const source of sources) {
    await release.after(source.text.length);
    const parser = parserFor(source.path);
    if (!parser) continue;
    let root: SgNode;
    try {
      root = parse(astGrepLang(parser) as never, source.text).root();
    } catch {
      continue;
    }
    const imports = importsOf(root);
    const file: ProgramFile = {
      ...source,
      imports,
      code: withoutComments(root, source.text),
      applications: [],
      module: jsModuleOf(source.path),
      functions: functionsOf(root),
      importedNames: importedNamesOf(root, source.path),
    };
    const guards = guardsEveryRoute(root);
    appWideGuard ||= guards.app;
    files.push(file);
    const found = [...routeHandlers(file, root, guards.file), ...nestHandlers(file, root), ...nextHandlers(file, root)];
    handlers.push(...found);
    visit?.(file, root, found);
  }
  if (appWideGuard) for (const h of handlers) h.guarded = true;
  return { files, handlers, imports: new Set(files.flatMap((f) => [...f.imports])) };
}
