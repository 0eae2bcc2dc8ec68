import { parse, type SgNode } from '@ast-grep/napi';
import { astGrepLang, parserFor, registerLanguages } from '../../languages/index.ts';
import type { FileVisitor, Handler, ProgramFile, PythonProgram } from './python-program.ts';
import { requestCallsOf, type RequestCallSyntax } from './request-calls.ts';
import { withoutComments } from './source-text.ts';
import { TreeRelease } from '../tree-release.ts';

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
/** Calls at the top of a handler body that turn an anonymous caller away by themselves (they throw or answer). */
const BODY_GUARD = /verify(?:Token|Jwt|Session|Auth\w*)?\s*\(|jwt\.verify|\b(?:require|ensure)(?:Auth|User|Login|Session|Admin)\w*\s*\(|authenticate\w*\s*\(/;
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

/** What a test of the caller reads: the signed-in user, the session, a token. */
const CALLER_STATE = /\b(?:user|session|token|auth\w*|isAuthenticated|authorization|payload|claims|decoded)\b|getServerSession|getToken\s*\(|getSession\s*\(/i;

/**
 * Whether the top of a handler turns anonymous callers away: an `if` on the caller's user, session or token
 * that answers 401/403, redirects or throws, or a call that verifies a token or session by itself.
 */
function guardedByBody(fn: SgNode | undefined): boolean {
  const body = fn?.field('body');
  const first = body?.kind() === 'statement_block' ? body.children().filter((c) => c.isNamed()).slice(0, 4) : body ? [body] : [];
  return first.some((s) => {
    if (s.kind() === 'if_statement') {
      const condition = s.field('condition')?.text() ?? '';
      return CALLER_STATE.test(condition) && REJECTS.test(s.field('consequence')?.text() ?? '');
    }
    return BODY_GUARD.test(s.text()) && !/^\s*(?:if|for|while|switch)\b/.test(s.text());
  });
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

/** A route registration whose handler another module defines: `users.show`, `show`, `handlers.show()`, `new Ctl().show`. */
interface RemoteRoute {
  /** The registering file, and where in it. */
  file: ProgramFile;
  at: string;
  methods: string[];
  paths: string[];
  guarded: boolean;
  /** What the handler argument names: an imported value (a module, or `<module>.<name>`), and a property of it. */
  imported: string;
  property?: string;
  /** Resolved after every file is read: the defining file and the name there ('' for the module's own export). */
  target?: { file: ProgramFile; name: string };
}

/** What a route registration call says: its method, path and handler argument, and the middleware between. */
interface RouteCall {
  call: SgNode;
  method: string;
  path: string;
  last: SgNode;
  between: string[];
}

const keyOf = (node: SgNode) => `${node.range().start.index}`;

function routeCalls(root: SgNode): RouteCall[] {
  const routes: RouteCall[] = [];
  for (const call of root.findAll({ rule: { kind: 'call_expression', has: { field: 'function', kind: 'member_expression' } } } as never)) {
    const method = call.field('function')?.field('property')?.text() ?? '';
    if (!ROUTE_METHODS.has(method)) continue;
    const args = call.field('arguments')?.children().filter((c) => c.isNamed()) ?? [];
    const path = args[0]?.kind() === 'string' || args[0]?.kind() === 'template_string' ? args[0].text().slice(1, -1) : undefined;
    if (path === undefined || !path.startsWith('/') || args.length < 2) continue;
    routes.push({ call, method, path, last: args[args.length - 1], between: args.slice(1, -1).map((a) => a.text()) });
  }
  return routes;
}

const methodsOf = (method: string) => (method === 'all' ? [] : [method === 'del' ? 'DELETE' : method.toUpperCase()]);

/** Whether a route is guarded where it is registered: middleware on it, on its file, or a guarded path prefix before it. */
function guardedAt(route: RouteCall, guards: FileGuards): boolean {
  return (
    guards.file ||
    route.between.some((text) => GUARD.test(text)) ||
    guards.prefixes.some((p) => p.at < route.call.range().start.index && (route.path === p.prefix || route.path.startsWith(`${p.prefix.replace(/\/$/, '')}/`)))
  );
}

/** Routes registered by calls: `app.get('/x', mw, handler)`, `router.post(…)`, `fastify.put(…, { preHandler }, …)`. */
function routeHandlers(file: ProgramFile, root: SgNode, guards: FileGuards, elsewhere: Set<string>): Handler[] {
  const handlers: Handler[] = [];
  for (const route of routeCalls(root)) {
    if (elsewhere.has(keyOf(route.call))) continue;
    const { call, method, path, last } = route;
    const fn = handlerFunctionOf(last, root);
    const name = last.kind() === 'identifier' || last.kind() === 'member_expression' ? last.text() : `${method.toUpperCase()} ${path}`;
    handlers.push(makeHandler(file, call, fn, { name, methods: methodsOf(method), paths: [path] }, guardedAt(route, guards)));
  }
  return handlers;
}

/**
 * The registrations of a file whose handler is not defined in it but named through an import: the imported
 * value, and the property of it the route names (a factory called in place, `show()`, counts as itself).
 */
function remoteRoutes(file: ProgramFile, root: SgNode, guards: FileGuards): RemoteRoute[] {
  const remote: RemoteRoute[] = [];
  for (const route of routeCalls(root)) {
    let ref = route.last;
    if (ref.kind() === 'call_expression') ref = ref.field('function') ?? ref;
    if (handlerFunctionOf(ref, root)) continue;
    const head = ref.kind() === 'identifier' ? ref.text() : ref.kind() === 'member_expression' ? ref.field('object')?.text() : undefined;
    const property = ref.kind() === 'member_expression' ? ref.field('property')?.text() : undefined;
    if (!head || !/^[\w$]+$/.test(head)) continue;
    const imported = file.importedNames.get(head) ?? instanceOf(root, head, file);
    if (!imported) continue;
    remote.push({ file, at: keyOf(route.call), methods: methodsOf(route.method), paths: [route.path], guarded: guardedAt(route, guards), imported, property });
  }
  return remote;
}

/** `const ctl = new UsersController(db)` or `= makeHandlers(db)` with the class or factory imported: what it was imported as. */
function instanceOf(root: SgNode, name: string, file: ProgramFile): string | undefined {
  const value = root.find({ rule: { kind: 'variable_declarator', has: { field: 'name', regex: `^${name.replace(/\$/g, '\\$')}$` } } } as never)?.field('value');
  const made = value && /^(?:new\s+)?([\w$]+)\s*\(/.exec(value.text())?.[1];
  return made ? file.importedNames.get(made) : undefined;
}

const isFunction = (node: SgNode | null | undefined): boolean => !!node && FUNCTION_KINDS.has(String(node.kind()));

/**
 * A handler a module defines under a name: an object's property (`module.exports = { show(req, res) {…} }`),
 * an assigned property (`exports.show = …`, `this.show = …` in a constructor), a function, a const bound to
 * one, a class method; '' is the module's own export (`module.exports = function …`, `export default …`).
 */
function definitionOf(root: SgNode, name: string): SgNode | undefined {
  if (!name) {
    for (const assign of root.findAll({ rule: { kind: 'assignment_expression', has: { field: 'left', regex: '^module\\.exports$' } } } as never)) {
      const value = assign.field('right');
      if (!value) continue;
      if (isFunction(value)) return value;
      if (value.kind() === 'identifier') return handlerFunctionOf(value, root);
    }
    const exported: SgNode | null = root.find({ rule: { kind: 'export_statement', regex: '^export\\s+default' } } as never);
    return exported?.find({ rule: { any: [...FUNCTION_KINDS].filter((kind) => kind !== 'function').map((kind) => ({ kind })) } } as never) ?? undefined;
  }
  const escaped = name.replace(/\$/g, '\\$');
  for (const pair of root.findAll({ rule: { kind: 'pair', has: { field: 'key', regex: `^['"]?${escaped}['"]?$` } } } as never)) {
    const value = pair.field('value');
    if (value && isFunction(value)) return value;
  }
  for (const assign of root.findAll({ rule: { kind: 'assignment_expression', has: { field: 'left', kind: 'member_expression', has: { field: 'property', regex: `^${escaped}$` } } } } as never)) {
    const value = assign.field('right');
    if (value && isFunction(value)) return value;
  }
  const named = root.find({ rule: { any: [{ kind: 'function_declaration' }, { kind: 'method_definition' }], has: { field: 'name', regex: `^${escaped}$` } } } as never);
  if (named) return named;
  const bound = root.find({ rule: { kind: 'variable_declarator', has: { field: 'name', regex: `^${escaped}$` } } } as never)?.field('value');
  return bound && isFunction(bound) ? bound : undefined;
}

/** The names definitionOf finds a function under in a file ('' when the module itself is one). */
function definedNames(root: SgNode): Set<string> {
  const names = new Set<string>();
  for (const pair of root.findAll({ rule: { kind: 'pair' } } as never)) if (isFunction(pair.field('value'))) names.add(pair.field('key')!.text().replace(/^['"]|['"]$/g, ''));
  for (const assign of root.findAll({ rule: { kind: 'assignment_expression' } } as never)) {
    if (!isFunction(assign.field('right')) && assign.field('right')?.kind() !== 'identifier') continue;
    const left = assign.field('left');
    if (left?.text() === 'module.exports') names.add('');
    else if (left?.kind() === 'member_expression' && isFunction(assign.field('right'))) names.add(left.field('property')!.text());
  }
  for (const fn of root.findAll({ rule: { any: [{ kind: 'function_declaration' }, { kind: 'method_definition' }] } } as never)) names.add(fn.field('name')!.text());
  for (const bound of root.findAll({ rule: { kind: 'variable_declarator' } } as never)) if (isFunction(bound.field('value'))) names.add(bound.field('name')!.text());
  if (root.find({ rule: { kind: 'export_statement', regex: '^export\\s+default' } } as never)) names.add('');
  return names;
}

/** The handlers a file defines for routes other files register, with those routes' methods, paths and guards. */
function remoteHandlers(file: ProgramFile, root: SgNode, routes: RemoteRoute[]): Handler[] {
  const handlers: Handler[] = [];
  for (const route of routes) {
    const fn = route.target && definitionOf(root, route.target.name);
    if (!fn) continue;
    handlers.push(makeHandler(file, fn, fn, { name: route.target!.name || file.module.split('/').pop()!, methods: route.methods, paths: route.paths }, route.guarded));
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

/** Guards a file puts in front of routes: of every route of its app or router, of the routes under a path, of routers it mounts. */
interface FileGuards {
  app: boolean;
  file: boolean;
  /** `app.use('/api', auth)`: the routes under the prefix registered after it. */
  prefixes: { prefix: string; at: number }[];
  /** `app.use('/users', auth, usersRouter)`: what the mounted routers were imported as. */
  mounts: string[];
}

/** Middleware set up for every request that is not a guard: it prepares sessions or headers and lets anonymous callers pass. */
const NOT_A_GUARD = /rateLimit|limiter|helmet|cors|session\s*\(|passport\.(?:initialize|session)\s*\(/i;
/** How middleware turns a caller away: an error status, a redirect, an error passed on or thrown. */
const REJECTS = /\b40[13]\b|\.redirect\s*\(|Unauthori[sz]ed|Forbidden|next\s*\(\s*(?:new\s+\w*Error|err|createError)|\bthrow\b/;

/** Whether a `use()` argument is a guard: named as one, or written in place and turning some callers away. */
function isGuardMiddleware(arg: SgNode): boolean {
  const text = arg.text();
  // `app.use('/', require('./routes')(passport))` mounts a router of the project, whatever it is handed.
  if (/^require\s*\(\s*['"]\./.test(text)) return false;
  if (FUNCTION_KINDS.has(String(arg.kind()))) return GUARD.test(text) && REJECTS.test(text);
  return GUARD.test(text) && !NOT_A_GUARD.test(text);
}

function guardsOf(root: SgNode, file: ProgramFile): FileGuards {
  const guards: FileGuards = { app: false, file: false, prefixes: [], mounts: [] };
  for (const call of root.findAll({ rule: { kind: 'call_expression', has: { field: 'function', regex: '\\.(?:use|addHook|register)$' } } } as never)) {
    const args = call.field('arguments')?.children().filter((c) => c.isNamed()) ?? [];
    const isGuard = (a: SgNode) => a.kind() !== 'string' && isGuardMiddleware(a);
    const guards_ = args.filter(isGuard);
    if (!guards_.length) continue;
    const prefix = args[0]?.kind() === 'string' ? args[0].text().slice(1, -1) : undefined;
    // The last argument after a guard, a router imported from elsewhere: every route it holds is behind the guard.
    const mounted = args.length > 1 && args[args.length - 1].kind() === 'identifier' && !isGuard(args[args.length - 1]) ? file.importedNames.get(args[args.length - 1].text()) : undefined;
    if (mounted) guards.mounts.push(mounted);
    if (prefix !== undefined && prefix !== '/' && prefix !== '') {
      // A path other than the root guards only the routes under it.
      if (!mounted) guards.prefixes.push({ prefix, at: call.range().start.index });
      continue;
    }
    if (mounted) continue;
    guards.file = true;
    if (/^(?:app|server|fastify)\./.test(call.field('function')?.text() ?? '')) guards.app = true;
  }
  return guards;
}

/** The file a module name (as an import resolves it) stands for. */
function fileOfModule(byModule: Map<string, ProgramFile>, imported: string, property?: string): { file: ProgramFile; name: string } | undefined {
  const whole = byModule.get(imported);
  if (whole) return { file: whole, name: property ?? '' };
  const at = imported.lastIndexOf('.');
  const owner = at > 0 ? byModule.get(imported.slice(0, at)) : undefined;
  // `const { Ctl } = require('./ctl'); new Ctl().show`: the member is defined in that module, whatever holds it.
  return owner ? { file: owner, name: property ?? imported.slice(at + 1) } : undefined;
}

/**
 * The JavaScript/TypeScript files of a project as a program: files, imports and entry points. Files are read
 * twice: first for their imports and for the routes they register with handlers of other modules, then for
 * their handlers, each file's (wherever its routes are registered) visited while its tree is alive.
 */
export async function buildJsProgram(sources: JsSource[], visit?: FileVisitor): Promise<PythonProgram> {
  registerLanguages();
  const release = new TreeRelease();
  const parseOf = (source: JsSource): SgNode | undefined => {
    const parser = parserFor(source.path);
    if (!parser) return undefined;
    try {
      return parse(astGrepLang(parser) as never, source.text).root();
    } catch {
      return undefined;
    }
  };
  const files: ProgramFile[] = [];
  const guardsByFile = new Map<ProgramFile, FileGuards>();
  const remote: RemoteRoute[] = [];
  const defined = new Map<ProgramFile, Set<string>>();
  for (const source of sources) {
    await release.after(source.text.length);
    const root = parseOf(source);
    if (!root) continue;
    const file: ProgramFile = {
      ...source,
      imports: importsOf(root),
      code: withoutComments(root, source.text),
      applications: [],
      module: jsModuleOf(source.path),
      functions: functionsOf(root),
      importedNames: importedNamesOf(root, source.path),
    };
    files.push(file);
    const guards = guardsOf(root, file);
    guardsByFile.set(file, guards);
    remote.push(...remoteRoutes(file, root, guards));
    defined.set(file, definedNames(root));
  }
  const byModule = new Map(files.map((f) => [f.module, f]));
  const guardedModules = new Set([...guardsByFile.values()].flatMap((g) => g.mounts).map((m) => fileOfModule(byModule, m)?.file.module));
  for (const file of files) if (guardedModules.has(file.module)) guardsByFile.get(file)!.file = true;
  for (const route of remote) route.guarded ||= guardsByFile.get(route.file)!.file;
  // A route whose handler is found in the module it names is modelled there; the others where they are registered.
  const crossing = remote.filter((route) => {
    route.target = fileOfModule(byModule, route.imported, route.property);
    return !!route.target && route.target.file !== route.file && defined.get(route.target.file)!.has(route.target.name);
  });
  const handlers: Handler[] = [];
  let appWideGuard = false;
  for (const file of files) {
    await release.after(file.text.length);
    const root = parseOf(file);
    if (!root) continue;
    const guards = guardsByFile.get(file)!;
    appWideGuard ||= guards.app;
    const found = remoteHandlers(file, root, crossing.filter((r) => r.target!.file === file));
    const resolved = new Set(crossing.filter((r) => r.file === file).map((r) => r.at));
    found.push(...routeHandlers(file, root, guards, resolved), ...nestHandlers(file, root), ...nextHandlers(file, root));
    handlers.push(...found);
    visit?.(file, root, found);
  }
  if (appWideGuard) for (const h of handlers) h.guarded = true;
  return { files, handlers, imports: new Set(files.flatMap((f) => [...f.imports])) };
}
