import { parse, type SgNode } from '@ast-grep/napi';
import { registerLanguages } from '../../languages/index.ts';
import { requestCallsOf, type RequestCall, type RequestCallSyntax } from './request-calls.ts';
import { withoutComments } from './source-text.ts';
import { authenticatorsOf, BODY_GUARD, GUARD_WORDS, guardHolds, guardsAsStatement, isGuardDecorator, OPEN_TO_ANYONE, sameModule, scopedGuardsOf, type ScopedGuard } from './python-guards.ts';
import { TreeRelease } from '../tree-release.ts';

// The program model of a Python web application that the whole-application checks read: its files with
// their imports, and its entry points (request handlers of Flask, Quart, FastAPI, Sanic, Django, DRF,
// aiohttp, Tornado, Flask-RESTful/MethodView, http.server), each with the HTTP methods it answers, the guards on it
// (authentication and authorization decorators, checks at the top of its body, dependencies, hooks that
// run before every request) and where it is. Built from one parse of each file, whose tree is let go as
// soon as its part is taken: the checks that need a tree parse the file again, one file at a time, so a
// large repository never holds every tree at once.

export interface PythonSource {
  /** Relative to the scanned root, with forward slashes. */
  path: string;
  text: string;
}

/** A file of the program; the module, functions and imported names are Python's (empty for other languages). */
export interface ProgramFile extends PythonSource {
  /** Top-level module names imported (`flask`, `django`, `werkzeug`…). */
  imports: Set<string>;
  /** The text with comments blanked out, for project-wide word tests that a commented-out line must not pass. */
  code: string;
  /** Lines where a Flask, Quart or aiohttp application object is made. */
  applications: number[];
  /** Its dotted module name, from its path (`api_views/users.py` → `api_views.users`). */
  module: string;
  /** Names of its top-level functions. */
  functions: Set<string>;
  /** What each imported name stands for, dotted (`from lfi import read` → read: `lfi.read`). */
  importedNames: Map<string, string>;
}

/** An operation an API description (OpenAPI `operationId`, as connexion routes them) sends to a function. */
export interface DeclaredOperation {
  /** The dotted module and the function's name. */
  module: string;
  function: string;
  method: string;
  path: string;
  /** Whether the description demands credentials for it (`security`). */
  guarded: boolean;
}

export interface Handler {
  file: ProgramFile;
  name: string;
  /** Its class, for a method of a class-based view. */
  className?: string;
  /** First line of the definition with its decorators, 1-based. */
  line: number;
  /** The line of its `def`. */
  defLine: number;
  endLine: number;
  /** Its decorators' text. */
  decorators: string;
  /** The names its parameters bind, the request and the instance left out. */
  parameters: string[];
  /** URL paths its route decorators name; empty when routed elsewhere (urls.py, add_url_rule). */
  paths: string[];
  /** Upper-case HTTP methods; empty when any or unknown. */
  methods: string[];
  /** Whether an authentication or authorization guard covers it. */
  guarded: boolean;
  /** The function's text (decorators excluded). */
  body: string;
  /** Calls it makes with request data. */
  requestCalls: RequestCall[];
  /** The API description's operation that routes to it, when one does (its parameters are then the request's). */
  operation?: DeclaredOperation;
}

export interface PythonProgram {
  files: ProgramFile[];
  handlers: Handler[];
  /** Top-level module names imported anywhere. */
  imports: Set<string>;
}

const ROUTE_DECORATOR = /^@\s*[\w.]+\.(route|get|post|put|patch|delete|api_route|websocket)\s*\(/;
/** Bottle's module-level route decorators: `@route("/x")`, `@post("/x")`. */
const BARE_ROUTE_DECORATOR = /^@\s*(route|get|post|put|patch|delete)\s*\(/;
const VERB_OF_DECORATOR: Record<string, string> = { get: 'GET', post: 'POST', put: 'PUT', patch: 'PATCH', delete: 'DELETE' };
const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);
/** Base classes whose methods named after HTTP verbs answer requests. */
const VIEW_BASES = /\b(MethodView|FlaskView|View|Resource|APIView|GenericAPIView|ViewSet|ModelViewSet|HTTPEndpoint|RequestHandler|web\.View|TemplateView|FormView|CreateView|UpdateView|DeleteView|DetailView|ListView)\b/;
/** The standard library's servers: a `do_GET`, `do_POST`… method answers that verb. */
const STDLIB_HANDLER_BASES = /\b(?:Base|Simple|CGI)HTTPRequestHandler\b/;
/** DRF's project-wide default that every API view asks for a signed-in (or permitted) caller. */
const DRF_DEFAULT_GUARD = /DEFAULT_PERMISSION_CLASSES[^\]\)]*(?:IsAuthenticated|IsAdminUser|DjangoModelPermissions|DjangoObjectPermissions|TokenHasScope)/;
/** DRF views: classes on its bases, functions under @api_view. */
const DRF_VIEW_BASES = /\b(?:APIView|GenericAPIView|ViewSet|ModelViewSet|GenericViewSet|ReadOnlyModelViewSet|\w+APIView)\b/;

let registered = false;

/** The syntax tree of a Python text. */
export function parsePython(text: string): SgNode {
  if (!registered) {
    registerLanguages();
    registered = true;
  }
  return parse('python' as never, text).root();
}

/** Local name → dotted target of every import of a file. */
function importedNamesOf(root: SgNode): Map<string, string> {
  const names = new Map<string, string>();
  for (const node of root.findAll({ rule: { any: [{ kind: 'import_statement' }, { kind: 'import_from_statement' }] } } as never)) {
    const text = node.text().replace(/[()\\\n]/g, ' ');
    const from = /^from\s+([\w.]+)\s+import\s+(.+)$/.exec(text);
    const parts = from ? from[2] : text.replace(/^import\s+/, '');
    for (const part of parts.split(',')) {
      const m = /^\s*([\w.]+)(?:\s+as\s+(\w+))?\s*$/.exec(part);
      if (!m || m[1] === '*') continue;
      const target = from ? `${from[1]}.${m[1]}` : m[1];
      names.set(m[2] ?? (from ? m[1] : m[1].split('.')[0]), m[2] || from ? target : m[1].split('.')[0]);
    }
  }
  return names;
}

const moduleOf = (path: string) => path.replace(/\.py$/, '').replace(/\/__init__$/, '').split('/').join('.');

/** How Python binds and calls, and the data a request brings as handlers read it (for requestCallsOf). */
const PYTHON_CALLS: RequestCallSyntax = {
  binding: 'assignment',
  value: 'right',
  target: 'left',
  call: 'call',
  requestData:
    /\brequest\.(?:args|form|values|json|data|cookies|headers|files|view_args|get_json|get_data|GET|POST|COOKIES|META|FILES|body|query_params|match_info|query|rel_url|post|text|path_params)\b|\bself\.get_(?:argument|arguments|query_argument|body_argument|cookie)\b|\bself\.(?:path|headers|rfile)\b/,
  word: /\w+/g,
  callee: /^[\w.]+$/,
};

function importsOf(root: SgNode): Set<string> {
  const names = new Set<string>();
  for (const node of root.findAll({ rule: { any: [{ kind: 'import_statement' }, { kind: 'import_from_statement' }] } } as never)) {
    const text = node.text();
    const from = /^from\s+([\w.]+)/.exec(text);
    if (from) names.add(from[1].split('.')[0]);
    else for (const m of text.replace(/^import\s+/, '').split(',')) names.add(m.trim().split(/[.\s]/)[0]);
  }
  names.delete('');
  return names;
}

const stringValue = (node: SgNode): string | undefined => (node.kind() === 'string' ? node.text().replace(/^[rbuf]*(['"]{1,3})([\s\S]*)\1$/i, '$2') : undefined);

/** The paths and methods a route decorator names. */
function routeOf(decorator: SgNode, bare = false): { paths: string[]; methods: string[] } | undefined {
  const text = decorator.text();
  const m = ROUTE_DECORATOR.exec(text) ?? (bare ? BARE_ROUTE_DECORATOR.exec(text) : null);
  if (!m) return undefined;
  const call = decorator.find({ rule: { kind: 'call' } } as never);
  const args = call?.field('arguments');
  const paths: string[] = [];
  let methods: string[] = VERB_OF_DECORATOR[m[1]] ? [VERB_OF_DECORATOR[m[1]]] : [];
  for (const arg of args?.children() ?? []) {
    const value = stringValue(arg);
    if (value !== undefined && !paths.length) paths.push(value);
    if (arg.kind() === 'keyword_argument' && /^methods?$/.test(arg.field('name')?.text() ?? '')) {
      methods = (arg.field('value')?.findAll({ rule: { kind: 'string' } } as never) ?? []).map((s) => (stringValue(s) ?? '').toUpperCase());
    }
  }
  // `.get`/`.post` decorators of other things (caches, registries) name no URL path.
  if (m[1] !== 'route' && m[1] !== 'api_route' && !paths.some((p) => p.startsWith('/') || p === '')) return undefined;
  return { paths, methods };
}

const lineOf = (node: SgNode) => node.range().start.line + 1;

function decoratorsOf(definition: SgNode): SgNode[] {
  const parent = definition.parent();
  return parent?.kind() === 'decorated_definition' ? parent.children().filter((c) => c.kind() === 'decorator') : [];
}

/** The node that spans a definition with its decorators. */
const outerOf = (definition: SgNode): SgNode => (definition.parent()?.kind() === 'decorated_definition' ? definition.parent()! : definition);

function parametersOf(fn: SgNode): string {
  return fn.field('parameters')?.text() ?? '';
}

function parameterNames(fn: SgNode): string[] {
  const names: string[] = [];
  for (const p of fn.field('parameters')?.children() ?? []) {
    const name = p.kind() === 'identifier' ? p.text() : (p.field('name') ?? p.children().find((c) => c.kind() === 'identifier'))?.text();
    if (name && !['self', 'cls', 'request', 'req'].includes(name)) names.push(name);
  }
  return names;
}

/** The handler's function in a tree of its file (parsed again by a check). */
export function handlerFunction(root: SgNode, handler: Handler): SgNode | undefined {
  return root.findAll({ rule: { kind: 'function_definition' } } as never).find((fn) => lineOf(fn) === handler.defLine) ?? undefined;
}

function firstParameter(fn: SgNode): string | undefined {
  const params = fn.field('parameters')?.children().filter((c) => c.isNamed()) ?? [];
  const first = params[0];
  if (!first) return undefined;
  return (first.kind() === 'identifier' ? first : (first.field('name') ?? first.children().find((c) => c.kind() === 'identifier')))?.text();
}

/** Whether the start of a handler (its signature and first statements) holds a guard. */
function guardedByBody(fn: SgNode): boolean {
  // A dependency that names the caller or authentication: `user: User = Depends(get_current_user)`, `Security(oauth2_scheme)`.
  const dependencies = (fn.field('parameters')?.children() ?? []).filter((p) => /\b(?:Depends|Security)\s*\(/.test(p.text()));
  if (dependencies.some((p) => GUARD_WORDS.test(p.text()))) return true;
  return firstStatements(fn).some((s) => BODY_GUARD.test(s.text())) || (fn.field('body')?.children() ?? []).some(guardsAsStatement);
}

const firstStatements = (fn: SgNode): SgNode[] => (fn.field('body')?.children().filter((c) => c.isNamed()) ?? []).slice(0, 4);

/** The functions a handler leans on before it acts: its dependencies, and what its first statements call. */
function namesCalledFirst(fn: SgNode): string[] {
  const dependencies = [...parametersOf(fn).matchAll(/\b(?:Depends|Security)\s*\(\s*([\w.]+)/g)].map((m) => m[1]);
  const calls = firstStatements(fn).flatMap((s) => s.findAll({ rule: { kind: 'call' } } as never).map((c) => c.field('function')?.text() ?? ''));
  return [...dependencies, ...calls].map((name) => name.split('.').pop() ?? '').filter(Boolean);
}

/** The object a handler's route decorator routes through: `bp` in `@bp.route("/x")`. */
const routeObjectOf = (decorators: SgNode[]): string | undefined =>
  decorators.map((d) => /^@\s*([\w.]+)\.(?:route|get|post|put|patch|delete|api_route|websocket)\s*\(/.exec(d.text())?.[1]).find((o) => o !== undefined);

/** The methods a Django or DRF view decorator allows: `@require_http_methods(["GET"])`, `@require_POST`, `@api_view(['POST'])`. */
function methodsDeclaredBy(decorator: string): string[] {
  const only = /^@\s*(?:\w+\.)*require_(GET|POST|safe)\b/.exec(decorator);
  if (only) return only[1] === 'safe' ? ['GET', 'HEAD'] : [only[1]];
  if (!/^@\s*(?:\w+\.)*(?:require_http_methods|api_view)\s*\(/.test(decorator)) return [];
  return (decorator.match(/['"]([A-Za-z]+)['"]/g) ?? []).map((m) => m.slice(1, -1).toUpperCase());
}

/**
 * A handler as a file shows it: whether it counts only in a framework whose views take the request first,
 * whether it is a DRF view that takes the project's default permissions (not one that lets anyone in), the
 * object its route decorator routes through, and the functions it leans on first (whose guards it gets).
 */
interface FoundHandler {
  handler: Handler;
  byRequestParameter: boolean;
  drfDefaultPermissions?: boolean;
  routeObject?: string;
  calledFirst: string[];
}

/** DRF ViewSet actions and the methods that reach them. */
const VIEWSET_ACTIONS: Record<string, string> = { list: 'GET', retrieve: 'GET', create: 'POST', update: 'PUT', partial_update: 'PATCH', destroy: 'DELETE' };
const VIEWSET_BASES = /\b\w*ViewSet\b/;

/** Whether a class-based view's class demands a signed-in or permitted caller: its decorators, settings or mixins. */
function classGuarded(ownerClass: SgNode, bases: string): boolean {
  const body = ownerClass.field('body')?.text() ?? '';
  return (
    decoratorsOf(ownerClass).some((d) => isGuardDecorator(d.text())) ||
    body
      .split('\n')
      .some((line) => /^\s*(?:permission_classes|authentication_classes|decorators|method_decorators)\s*=.*(?:auth|login|permission|IsAdmin|IsAuthenticated|required)/i.test(line) && !OPEN_TO_ANYONE.test(line)) ||
    // `@method_decorator(login_required)` on `dispatch`, which every method goes through.
    body.split('\n').some((line) => /^\s*@\s*(?:[\w.]+\.)?method_decorator\s*\(/.test(line) && isGuardDecorator(line.trim())) ||
    /LoginRequiredMixin|PermissionRequiredMixin|UserPassesTestMixin|Authenticated|AccessMixin/.test(bases)
  );
}

/** The file's handlers, each told whether it counts only in a framework whose views take the request first. */
function handlersOf(file: ProgramFile, root: SgNode, operations: DeclaredOperation[], urlRuleViews: Set<string>): FoundHandler[] {
  const handlers: FoundHandler[] = [];
  const make = (fn: SgNode, route: { paths: string[]; methods: string[] }, guardedFromOutside: boolean, className?: string, operation?: DeclaredOperation): Handler => {
    const outer = outerOf(fn);
    const decorators = decoratorsOf(fn);
    const parameters = parameterNames(fn);
    return {
      file,
      name: fn.field('name')?.text() ?? '',
      className,
      line: lineOf(outer),
      defLine: lineOf(fn),
      endLine: outer.range().end.line + 1,
      decorators: decorators.map((d) => d.text()).join('\n'),
      parameters,
      paths: route.paths,
      methods: route.methods,
      guarded: guardedFromOutside || decorators.some((d) => !ROUTE_DECORATOR.test(d.text()) && isGuardDecorator(d.text())) || guardedByBody(fn),
      body: fn.text(),
      requestCalls: requestCallsOf(fn, PYTHON_CALLS, parameters),
      operation,
    };
  };
  const found = (fn: SgNode, handler: Handler, extra: Partial<FoundHandler> = {}): FoundHandler => ({
    handler,
    byRequestParameter: false,
    routeObject: routeObjectOf(decoratorsOf(fn)),
    calledFirst: namesCalledFirst(fn),
    ...extra,
  });
  const declared = new Map(operations.filter((o) => file.module === o.module || file.module.endsWith(`.${o.module}`)).map((o) => [o.function, o]));
  for (const fn of root.findAll({ rule: { kind: 'function_definition' } } as never)) {
    const bottle = file.imports.has('bottle') && fn.parent()?.parent()?.kind() === 'module';
    const routes = decoratorsOf(fn).map((d) => routeOf(d, bottle)).filter((r) => r !== undefined);
    const owner = fn.parent()?.kind() === 'block' ? fn.parent()!.parent() : fn.parent()?.parent()?.parent();
    const ownerClass = owner?.kind() === 'class_definition' ? owner : undefined;
    const operation = !ownerClass && fn.parent()?.parent()?.kind() !== 'function_definition' ? declared.get(fn.field('name')?.text() ?? '') : undefined;
    if (operation) {
      handlers.push(found(fn, make(fn, { paths: [operation.path], methods: [operation.method] }, operation.guarded, undefined, operation)));
      continue;
    }
    if (routes.length) {
      handlers.push(found(fn, make(fn, { paths: routes.flatMap((r) => r.paths), methods: [...new Set(routes.flatMap((r) => r.methods))] }, false)));
      continue;
    }
    if (ownerClass) {
      const name = fn.field('name')?.text() ?? '';
      const bases = ownerClass.field('superclasses')?.text() ?? '';
      const className = ownerClass.field('name')?.text();
      const stdlibVerb = STDLIB_HANDLER_BASES.test(bases) ? /^do_([A-Z]+)$/.exec(name)?.[1] : undefined;
      if (stdlibVerb) {
        handlers.push(found(fn, make(fn, { paths: [], methods: [stdlibVerb] }, false, className)));
        continue;
      }
      // A ViewSet answers through its actions, and through methods its `@action` decorator routes.
      const action = VIEWSET_BASES.test(bases)
        ? (VIEWSET_ACTIONS[name] ?? (decoratorsOf(fn).some((d) => /^@\s*action\b/.test(d.text())) ? 'action' : undefined))
        : // Flask-Classful routes `index` by GET, and any method given its own `@route`.
          /\bFlaskView\b/.test(bases) && (name === 'index' || decoratorsOf(fn).some((d) => /^@\s*route\s*\(/.test(d.text())))
          ? name === 'index' ? 'GET' : 'route'
          : undefined;
      if (!(HTTP_METHODS.has(name) && VIEW_BASES.test(bases)) && !action) continue;
      const methods =
        action === 'action' || action === 'route'
          ? [...(decoratorsOf(fn).find((d) => /^@\s*(?:action|route)\b/.test(d.text()))?.text().match(/['"]([a-z]+)['"]/gi) ?? [])].map((m) => m.slice(1, -1).toUpperCase()).filter((m) => HTTP_METHODS.has(m.toLowerCase()))
          : [action ?? name.toUpperCase()];
      const classText = `${decoratorsOf(ownerClass).map((d) => d.text()).join('\n')}\n${ownerClass.field('body')?.text() ?? ''}`;
      handlers.push(
        found(fn, make(fn, { paths: [], methods: (action === 'action' || action === 'route') && !methods.length ? ['GET'] : methods }, classGuarded(ownerClass, bases), className), {
          drfDefaultPermissions: DRF_VIEW_BASES.test(bases) && !/^\s*permission_classes\s*=/m.test(classText) && !OPEN_TO_ANYONE.test(classText),
        }),
      );
      continue;
    }
    // Flask views registered with `add_url_rule`: their paths come from the rule, as a URLconf's do.
    if (!ownerClass && fn.parent()?.parent()?.kind() !== 'function_definition' && urlRuleViews.has(fn.field('name')?.text() ?? '')) {
      handlers.push(found(fn, make(fn, { paths: [], methods: [] }, false)));
      continue;
    }
    // Django, aiohttp and Pyramid views: module-level functions that take the request first (an aiohttp middleware is not one).
    const middleware = decoratorsOf(fn).some((d) => /^@\s*(?:web\.)?middleware\b/.test(d.text()));
    if (fn.parent()?.parent()?.kind() !== 'function_definition' && firstParameter(fn) === 'request' && !ownerClass && !middleware) {
      const body = fn.text();
      const declaredMethods = decoratorsOf(fn).flatMap((d) => methodsDeclaredBy(d.text()));
      const methods = declaredMethods.length
        ? [...new Set(declaredMethods)]
        : /request\.method\s*==\s*['"]POST['"]|request\.POST\b|await\s+request\.post\(\)/.test(body)
          ? ['POST']
          : [];
      const decorators = decoratorsOf(fn).map((d) => d.text()).join('\n');
      handlers.push(
        found(fn, make(fn, { paths: [], methods }, false), {
          byRequestParameter: true,
          drfDefaultPermissions: /^@\s*(?:\w+\.)*api_view\b/m.test(decorators) && !/^@\s*(?:\w+\.)*permission_classes\b/m.test(decorators),
        }),
      );
    }
  }
  return handlers;
}

/** A route of a Django URLconf: its pattern, the view it names, and whether a guard wraps the view there. */
interface UrlRoute {
  path: string;
  view: string;
  guarded: boolean;
}

/** `path('notes/<int:id>/', login_required(views.note))`, `re_path(…)`, `url(…)`, class views by `.as_view()`. */
function urlRoutesOf(root: SgNode): UrlRoute[] {
  const routes: UrlRoute[] = [];
  for (const call of root.findAll({ rule: { kind: 'call', has: { field: 'function', regex: '^(?:path|re_path|url)$' } } } as never)) {
    const args = call.field('arguments')?.children().filter((c) => c.isNamed() && c.kind() !== 'keyword_argument') ?? [];
    const route = args[0] ? stringValue(args[0]) : undefined;
    const target = args[1]?.text().replace(/\s+/g, '') ?? '';
    const view = /(\w+)(?:\.as_view\([^)]*\))?\)*$/.exec(target)?.[1];
    if (route === undefined || !view || /^include$/.test(view) || target.startsWith('include(')) continue;
    routes.push({ path: `/${route.replace(/^\^/, '').replace(/\$$/, '')}`, view, guarded: /^[\w.]+\(/.test(target) && GUARD_WORDS.test(target.split(view)[0]) });
  }
  return routes;
}

/** Flask's `app.add_url_rule("/notes", "notes", view_func=login_required(notes))`: the view, its path, and a guard wrapped around it. */
function urlRulesOf(text: string): UrlRoute[] {
  const routes: UrlRoute[] = [];
  for (const m of text.matchAll(/\.add_url_rule\s*\(\s*['"]([^'"]*)['"]\s*,?([^\n]*)/g)) {
    const rest = m[2];
    const target = /view_func\s*=\s*([\w.()]+(?:\([^)]*\))?)/.exec(rest)?.[1] ?? rest.split(',').map((a) => a.trim())[1] ?? '';
    const view = /(\w+)(?:\.as_view\([^)]*\))?\)*$/.exec(target)?.[1];
    if (!view) continue;
    const wrapper = target.includes('(') && !/^[\w.]+\.as_view\(/.test(target) ? target.slice(0, target.indexOf('(')) : '';
    routes.push({ path: m[1], view, guarded: Boolean(wrapper) && GUARD_WORDS.test(wrapper) });
  }
  return routes;
}

/** Tornado's route tables: `Application([(r"/user/(\d+)", UserHandler), url(r"/", Home)])`. */
function routeTablesOf(root: SgNode): UrlRoute[] {
  const routes: UrlRoute[] = [];
  for (const entry of root.findAll({ rule: { any: [{ kind: 'tuple' }, { kind: 'call', has: { field: 'function', regex: '^(?:[\\w.]+\\.)?(?:url|URLSpec)$' } }] } } as never)) {
    const items = (entry.kind() === 'tuple' ? entry : entry.field('arguments'))?.children().filter((c) => c.isNamed()) ?? [];
    const route = items[0] ? stringValue(items[0]) : undefined;
    const view = items[1]?.kind() === 'identifier' || items[1]?.kind() === 'attribute' ? items[1].text().split('.').pop() : undefined;
    if (route === undefined || !view || !/^\^?\//.test(route)) continue;
    routes.push({ path: route.replace(/^\^/, '').replace(/\$$/, ''), view, guarded: false });
  }
  return routes;
}

/** Lines where a Flask, Quart or aiohttp application object is made: `Flask(__name__)`, `web.Application(…)`. */
function applicationsOf(root: SgNode): number[] {
  return root.findAll({ rule: { kind: 'call', has: { field: 'function', regex: '^(?:(?:flask|quart|web|aiohttp\\.web)\\.)?(?:Flask|Quart|Application)$' } } } as never).map(lineOf);
}

/**
 * Told of each file while its tree is alive, with the handlers found in it. Some may not count in the end
 * (functions that take the request first, in a project without a framework whose views are written so),
 * and guards that cover the whole application are added after: what depends on that is decided once the
 * program is built.
 */
export type FileVisitor = (file: ProgramFile, root: SgNode, handlers: Handler[]) => void;

/** The program model of the Python files of a project. */
export async function buildPythonProgram(sources: PythonSource[], visit?: FileVisitor, operations: DeclaredOperation[] = []): Promise<PythonProgram> {
  const files: ProgramFile[] = [];
  const found: FoundHandler[] = [];
  const guardingDecorators = new Set<string>();
  const authenticators = new Set<string>();
  const scopedGuards: { file: ProgramFile; guard: ScopedGuard }[] = [];
  const urlRoutes = sources.flatMap((s) => urlRulesOf(s.text));
  const urlRuleViews = new Set(urlRoutes.map((r) => r.view));
  const release = new TreeRelease();
  for (const source of sources) {
    await release.after(source.text.length);
    let root: SgNode;
    try {
      root = parsePython(source.text);
    } catch {
      continue;
    }
    const file: ProgramFile = {
      ...source,
      imports: importsOf(root),
      code: withoutComments(root, source.text),
      applications: applicationsOf(root),
      module: moduleOf(source.path),
      functions: new Set(root.findAll({ rule: { kind: 'function_definition' } } as never).filter((fn) => fn.parent()?.kind() === 'module' || fn.parent()?.parent()?.kind() === 'module').map((fn) => fn.field('name')?.text() ?? '')),
      importedNames: importedNamesOf(root),
    };
    for (const guard of scopedGuardsOf(root, file.code)) scopedGuards.push({ file, guard });
    const own = authenticatorsOf(root);
    for (const name of own.decorators) guardingDecorators.add(name);
    for (const name of own.functions) authenticators.add(name);
    if (/(^|\/)urls\.py$/.test(source.path)) urlRoutes.push(...urlRoutesOf(root));
    if (file.imports.has('tornado')) urlRoutes.push(...routeTablesOf(root));
    const handlers = handlersOf(file, root, operations, urlRuleViews);
    files.push(file);
    found.push(...handlers);
    visit?.(file, root, handlers.map((h) => h.handler));
  }
  const imports = new Set(files.flatMap((f) => [...f.imports]));
  // Functions that take the request first are views only where the framework's views are written so.
  const requestFirst = ['django', 'aiohttp', 'pyramid', 'rest_framework'].some((m) => imports.has(m));
  // Where URLconfs route the views, a function that takes the request first and no URLconf names is a helper
  // that views call, not an entry point.
  const routedViews = new Set(urlRoutes.map((r) => r.view));
  const counted = found.filter((h) => (requestFirst || !h.byRequestParameter) && (!h.byRequestParameter || !routedViews.size || !imports.has('django') || routedViews.has(h.handler.name)));
  const handlers = counted.map((h) => h.handler);
  // A Django view's path, and a guard wrapped around it, are in the URLconf.
  for (const route of urlRoutes) {
    for (const h of handlers) {
      if (h.name !== route.view && h.className !== route.view) continue;
      if (!h.paths.length) h.paths = [route.path];
      if (route.guarded) h.guarded = true;
    }
  }
  const projectCode = files.map((f) => f.code).join('\n');
  const holding = scopedGuards.filter(({ guard }) => guardHolds(guard, authenticators, projectCode));
  for (const h of counted) {
    if (h.handler.guarded) continue;
    h.handler.guarded =
      holding.some(({ file, guard }) => coveredBy(h, file, guard)) ||
      // The project's own decorators that turn anonymous callers away, whatever they are called.
      (h.handler.decorators.match(/^@\s*[\w.]+/gm) ?? []).some((d) => guardingDecorators.has(d.replace(/^@\s*/, '').split('.').pop()!)) ||
      // A dependency or a helper called first that checks the caller's credentials and raises.
      h.calledFirst.some((name) => authenticators.has(name));
  }
  // DRF's DEFAULT_PERMISSION_CLASSES cover every API view that does not set its own.
  if (files.some((f) => DRF_DEFAULT_GUARD.test(f.code))) for (const h of found) if (h.drfDefaultPermissions) h.handler.guarded = true;
  return { files, handlers, imports };
}

/** A dotted module name as a file imports it, made absolute for relative imports (`.views` in `app/__init__.py` → `app.views`). */
function absoluteModule(file: ProgramFile, dotted: string): string {
  const dots = /^\.*/.exec(dotted)![0].length;
  if (!dots) return dotted;
  const packageParts = (/(^|\/)__init__\.py$/.test(file.path) ? file.module : file.module.split('.').slice(0, -1).join('.')).split('.').filter(Boolean);
  const base = packageParts.slice(0, Math.max(0, packageParts.length - (dots - 1)));
  return [...base, dotted.slice(dots)].filter(Boolean).join('.');
}

/** The module and name of the object an expression of a file names (`bp`, `users.router`), through its imports. */
function resolveObject(file: ProgramFile, expression: string): { module: string; name: string } {
  const parts = expression.split('.');
  const name = parts.pop()!;
  if (parts.length) {
    const head = file.importedNames.get(parts[0]) ?? parts[0];
    return { module: absoluteModule(file, [head, ...parts.slice(1)].join('.')), name };
  }
  const target = file.importedNames.get(name);
  if (!target) return { module: file.module, name };
  const at = target.lastIndexOf('.');
  return { module: absoluteModule(file, target.slice(0, at)), name: target.slice(at + 1) };
}

/** Whether a guard set up in `file` covers a handler: everywhere, on the object its route goes through, or (a hook) on the handlers of its own file that name no route object. */
function coveredBy(h: FoundHandler, file: ProgramFile, guard: ScopedGuard): boolean {
  if (guard.everywhere) return !/login_not_required/.test(h.handler.decorators);
  if (!guard.object) return false;
  if (!h.routeObject) return h.handler.file === file && /before_(?:app_)?request/.test(guard.how);
  const covered = resolveObject(file, guard.object);
  const routed = resolveObject(h.handler.file, h.routeObject);
  return covered.name === routed.name && sameModule(covered.module, routed.module);
}
