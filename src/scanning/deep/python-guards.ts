import type { SgNode } from '@ast-grep/napi';

// What guards a Python entry point, by what the code does: decorators and dependencies that demand a
// signed-in user, checks that turn a caller away, and guards set up once for many routes (hooks that run
// before every request of an application or blueprint, FastAPI router and application dependencies,
// aiohttp and Django middleware). A guard is something that checks who calls *and* turns them away:
// a hook that only copies the user into `g` guards nothing.

/** Decorators and dependencies that demand a signed-in user or a permission. */
export const GUARD_WORDS =
  /login_required|auth|token_required|jwt_required|permission|roles?_required|admin_required|requires?_|authenticated|protected|staff_member_required|user_passes_test|superuser|current_user|verify_/i;
/** Decorators that restrict the HTTP methods or the caching of a view: `require_` in their name asks nothing of the caller. */
const NOT_A_GUARD = /^@?\s*(?:[\w.]+\.)?(?:require_(?:http_methods|GET|POST|safe)|csrf_exempt|never_cache|cache_page|vary_on_\w+|login_not_required)\b/;
/** A permission setting that lets anyone in: `AllowAny`, or an empty list of permission classes. */
export const OPEN_TO_ANYONE = /\bAllowAny\b|permission_classes\s*(?:=\s*|\(\s*)(?:\[\s*\]|\(\s*\))/;

/** Whether a decorator (its text) demands a signed-in or permitted caller. */
export function isGuardDecorator(text: string): boolean {
  // Django's method_decorator(login_required) is what it wraps.
  const decorator = text.replace(/^@?\s*(?:[\w.]+\.)?method_decorator\s*\(\s*/, '@');
  return GUARD_WORDS.test(decorator) && !NOT_A_GUARD.test(decorator) && !OPEN_TO_ANYONE.test(decorator);
}

/** Checks at the top of a handler that turn away a caller who is not signed in or not allowed. */
export const BODY_GUARD =
  /\bcurrent_user\b|is_authenticated|request\.user\b|\bg\.user\b|session\s*(?:\.get\s*\(|\[)\s*['"][\w-]*(?:user|login|logged|uid|auth|admin|account)[\w-]*['"]|['"][\w-]*(?:user|login|logged|uid|auth)[\w-]*['"]\s+(?:not\s+)?in\s+session|verify_jwt|get_jwt_identity|check_auth|is_admin|abort\s*\(\s*40[13]|status(?:_code)?\s*=\s*40[13]|,\s*40[13]\s*[,)]|(?:validate|verify|check)_token|token_valid|\b(?:check|verify|validate|is|has)_\w*(?:token|auth|logged|login|session)\w*\s*\(|\w*token_validator\s*\(|HTTPUnauthorized|HTTPForbidden|PermissionDenied|Unauthorized|Forbidden|authorize|authenticate\(|decode_auth_token|token_required|check_authorized|check_permission/i;

/** Turning the caller away: an abort, a redirect, an exception, an error status, or an early answer. */
const REJECTS =
  /\babort\s*\(|redirect\s*\(|HttpResponseRedirect|\braise\b|HTTPUnauthorized|HTTPForbidden|HttpResponseForbidden|\b40[13]\b|\breturn\s+(?!None\b|handler\b|await\s+handler\b|self\.get_response\b|response\b)[\w({[]/;

/** Whether code both checks the caller and can turn them away: what a hook, a middleware or a dependency must do to guard. */
export const checksAndRejects = (code: string): boolean => BODY_GUARD.test(code) && REJECTS.test(code);

/** An answer that refuses the caller as unauthenticated or forbidden. */
const REFUSES = /\b40[13]\b|HTTPUnauthorized|HTTPForbidden|HttpResponseForbidden|Unauthori[sz]ed|Forbidden|PermissionDenied|NotAuthenticated|AuthenticationFailed/;

/**
 * Whether an `if` at the top of a handler's body is a guard, wherever it stands: it tests the caller and
 * turns them away (`if "user" not in session: return redirect(...)`), or answers 401/403 from a short block.
 */
export function guardsAsStatement(statement: SgNode): boolean {
  if (statement.kind() !== 'if_statement') return false;
  const condition = statement.field('condition')?.text() ?? '';
  const consequence = statement.field('consequence')?.text() ?? '';
  return (BODY_GUARD.test(condition) && REJECTS.test(consequence)) || (consequence.length < 300 && REFUSES.test(consequence));
}

/** A variable or attribute that routes requests (`app`, `bp`, `router`), as its module and name, for matching a guard with the routes it covers. */
export interface RouteObject {
  module: string;
  name: string;
}

/** A guard set up for the routes of one application, blueprint or router object (or for every route, `everywhere`). */
export interface ScopedGuard {
  /** The object whose routes it covers, as the file that sets it up names it (`users.router`), resolved by the program. */
  object?: string;
  everywhere: boolean;
  /** What sets it up, for messages and tests. */
  how: string;
  /** A list of dependencies, which guards only when one of them authenticates (known once every file is read). */
  dependencies?: string;
  /** Where the project must install it (a middleware list), tested on the whole project's code. */
  installed?: RegExp;
}

/** Whether a guard found in one file holds, given the whole project: its dependencies authenticate, it is installed. */
export const guardHolds = (guard: ScopedGuard, authenticators: Set<string>, projectCode: string): boolean =>
  (guard.dependencies === undefined || authenticatingDependencies(guard.dependencies, authenticators)) && (!guard.installed || guard.installed.test(projectCode));

const decoratorsOf = (definition: SgNode): SgNode[] => {
  const parent = definition.parent();
  return parent?.kind() === 'decorated_definition' ? parent.children().filter((c) => c.kind() === 'decorator') : [];
};

/** Names of a file's objects made by `Flask(...)`, `Quart(...)`, `FastAPI(...)`, `Sanic(...)`: their hooks and dependencies cover every route. */
function applicationObjects(root: SgNode): Set<string> {
  const names = new Set<string>();
  for (const node of root.findAll({ rule: { kind: 'assignment' } } as never)) {
    const value = node.field('right')?.text() ?? '';
    if (/^(?:[\w.]+\.)?(?:Flask|Quart|FastAPI|Sanic|Starlette|APIFlask)\s*\(/.test(value)) names.add(node.field('left')?.text() ?? '');
  }
  return names;
}

/** Whether a `dependencies=[...]` list (its text) holds a dependency that authenticates. */
const authenticatingDependencies = (list: string, authenticators: Set<string>): boolean =>
  [...list.matchAll(/\b(?:Depends|Security)\s*\(\s*([\w.]*)/g)].some((m) => GUARD_WORDS.test(m[1]) || authenticators.has(m[1].split('.').pop() ?? ''));

/**
 * The guards of a file that cover many routes at once: before-request hooks that check and reject, FastAPI
 * routers, applications and `include_router` calls given an authenticating dependency, aiohttp middlewares
 * and Django middleware classes that check and reject (named where the project installs them).
 */
export function scopedGuardsOf(root: SgNode, code: string): ScopedGuard[] {
  const guards: ScopedGuard[] = [];
  const apps = applicationObjects(root);
  const add = (object: string, how: string, everywhere = false, dependencies?: string) => guards.push({ object, everywhere: everywhere || apps.has(object), how, dependencies });
  for (const fn of root.findAll({ rule: { kind: 'function_definition' } } as never)) {
    const name = fn.field('name')?.text() ?? '';
    const text = fn.text();
    for (const d of decoratorsOf(fn)) {
      const hook = /^@\s*([\w.]+)\.before_(app_)?request\b/.exec(d.text());
      if (hook && checksAndRejects(text)) add(hook[1], `${hook[1]}.before_request`, Boolean(hook[2]));
      // aiohttp: a middleware that checks the caller and rejects, installed in an application.
      if (/^@\s*(?:web\.)?middleware\b/.test(d.text()) && checksAndRejects(text)) {
        guards.push({ everywhere: true, how: `middleware ${name}`, installed: new RegExp(`middlewares\\s*=\\s*\\[[^\\]]*\\b${name}\\b|middlewares\\.(?:append|insert|extend)\\s*\\([^)]*\\b${name}\\b`) });
      }
    }
  }
  // Hooks registered by call: `bp.before_request(require_login)`.
  for (const call of root.findAll({ rule: { kind: 'call', has: { field: 'function', regex: '\\.before_(?:app_)?request$' } } } as never)) {
    const callee = call.field('function')?.text() ?? '';
    const target = call.field('arguments')?.children().find((c) => c.isNamed())?.text() ?? '';
    const hook = root.findAll({ rule: { kind: 'function_definition' } } as never).find((fn) => fn.field('name')?.text() === target);
    if (hook && checksAndRejects(hook.text())) add(callee.replace(/\.before_(?:app_)?request$/, ''), callee, /before_app_request$/.test(callee));
  }
  // FastAPI: `APIRouter(dependencies=[Depends(auth)])`, `FastAPI(dependencies=[...])`.
  for (const node of root.findAll({ rule: { kind: 'assignment' } } as never)) {
    const value = node.field('right')?.text() ?? '';
    if (/^(?:[\w.]+\.)?(?:APIRouter|FastAPI)\s*\(/.test(value) && /dependencies\s*=/.test(value)) {
      add(node.field('left')?.text() ?? '', 'dependencies', false, value.slice(value.indexOf('dependencies')));
    }
  }
  // `app.include_router(users.router, dependencies=[Depends(auth)])`: the router, where it is defined.
  for (const call of root.findAll({ rule: { kind: 'call', has: { field: 'function', regex: '\\.include_router$' } } } as never)) {
    const args = call.field('arguments')?.text() ?? '';
    const router = call.field('arguments')?.children().find((c) => c.isNamed() && c.kind() !== 'keyword_argument')?.text();
    if (router && /dependencies\s*=/.test(args)) add(router, 'include_router', false, args.slice(args.indexOf('dependencies')));
  }
  // Django middleware: a class whose request hook checks the caller and rejects, listed in MIDDLEWARE.
  for (const cls of root.findAll({ rule: { kind: 'class_definition' } } as never)) {
    const name = cls.field('name')?.text() ?? '';
    const hooks = (cls.field('body')?.children() ?? []).filter((c) => /^(?:async\s+)?def\s+(?:__call__|process_request|process_view)\b|^@[\s\S]*def\s+(?:__call__|process_request|process_view)\b/.test(c.text()));
    if (hooks.some((h) => checksAndRejects(h.text()))) {
      guards.push({ everywhere: true, how: `middleware ${name}`, installed: new RegExp(`MIDDLEWARE[\\s\\S]*['"][\\w.]*\\b${name}['"]`) });
    }
  }
  // Middleware the project names once: Django 5.1's LoginRequiredMiddleware, an aiohttp auth middleware.
  if (/LoginRequiredMiddleware|login_required_middleware|auth_middleware/.test(code)) guards.push({ everywhere: true, how: 'middleware' });
  return guards;
}

/**
 * The names of a file's functions that authenticate the caller: a decorator whose wrapper checks the caller
 * and turns them away (`if "user" not in session: return redirect(...)`), or a function (a FastAPI
 * dependency, a helper a view calls first) that checks the caller's token or session and raises or aborts.
 */
export function authenticatorsOf(root: SgNode): { decorators: string[]; functions: string[] } {
  const decorators: string[] = [];
  const functions: string[] = [];
  for (const fn of root.findAll({ rule: { kind: 'function_definition' } } as never)) {
    if (fn.parent()?.kind() !== 'module' && fn.parent()?.parent()?.kind() !== 'module') continue;
    const name = fn.field('name')?.text() ?? '';
    const inner = fn.field('body')?.children().find((c) => c.kind() === 'function_definition' || (c.kind() === 'decorated_definition' && c.children().some((d) => d.kind() === 'function_definition')));
    const innerName = (inner?.kind() === 'function_definition' ? inner : inner?.children().find((d) => d.kind() === 'function_definition'))?.field('name')?.text();
    if (inner && innerName && new RegExp(`^\\s*return\\s+${innerName}\\s*$`, 'm').test(fn.text())) {
      if (BODY_GUARD.test(inner.text())) decorators.push(name);
      continue;
    }
    // A plain function that raises or aborts when the caller's credentials do not hold.
    if (/token|credential|authoriz|session|jwt|current_user|api_key|apikey|bearer/i.test(fn.text()) && /\braise\b|\babort\s*\(/.test(fn.text()) && /40[13]|Unauthori[sz]ed|Forbidden|PermissionDenied|AuthenticationFailed|NotAuthenticated|InvalidToken|credentials/i.test(fn.text())) {
      functions.push(name);
    }
  }
  return { decorators, functions };
}

/** Whether two dotted module names are the same module, one possibly seen from a folder above the other. */
export const sameModule = (a: string, b: string): boolean => a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`);
