import type { SgNode } from '@ast-grep/napi';
import { handlerFunction, type PythonProgram } from '../python-program.ts';
import { privilegedEffectOf } from './entry-effects.ts';
import { ADMIN_ONLY, answersStateChange, checkPrefix, CWE, isLoginHandler, lineOf, READS_PASSWORD, startsSignedInState, type ApplicationFinding, type Candidate, type FileContext, type Hotspots } from './shared.ts';

// Who may call what: sign-in attempt limits, CSRF protection, authentication on entry points with effects,
// and ownership of the records a caller names.

const ATTEMPT_LIMITING = /attempt|lockout|locked_?out|throttl|rate_?limit|captcha|limiter|too\s+many|backoff|brute/i;
/** Libraries and settings that limit request or login rates for a whole application. */
const RATE_LIMITING =
  /flask_limiter|Limiter\s*\(|slowapi|django_ratelimit|ratelimit|\baxes\b|AXES_|throttle|DEFAULT_THROTTLE|brute_?force|fastapi_limiter|aiohttp_ratelimiter|limits\.storage|express-rate-limit|rate-limiter-flexible|express-brute|express-slow-down|@fastify\/rate-limit|@nestjs\/throttler|rateLimit\s*\(/i;
/** CSRF protection that is in force: set up for the application, not only imported or defined. */
const CSRF_PROTECTION =
  /CSRFProtect\s*\(|csrf\.init_app|SeaSurf\s*\(|\bFlaskForm\b|CsrfViewMiddleware|aiohttp_csrf\.setup|middlewares\s*=\s*\[[^\]]*csrf|CSRFMiddleware|fastapi_csrf|starlette_csrf|csrf_protect\s*\(/;
const USES_SESSIONS = /\bsession\s*\[|\bsession\.get\(|flask_login|login_user\s*\(|set_cookie\s*\(|SESSION_|aiohttp_session|get_session\s*\(|session_middleware|request\.session\b/;
const PUBLIC_ENTRY = /^(?:index|home|main|root|health|healthz|ping|status|about|static|favicon|robots|docs|openapi|swagger|hello|welcome|get|head|options)$|^(?:login|log_in|logout|log_out|signin|sign_in|signout|sign_out|signup|sign_up|register|registration|reset|forgot|verify|confirm|callback|oauth|activate)(?:_|\b)/i;
/** A new account made from the submitted password (a model built or created with it): a sign-up, whose password is chosen, not guessed. */
const CREATES_ACCOUNT = /(?:\.create|create_user|\b[A-Z]\w*)\s*\((?:[^()]|\([^()]*\))*\bpass(?:word|wd)?\s*=/;

export function loginWithoutAttemptLimit(program: PythonProgram, projectCode: string): ApplicationFinding[] {
  if (RATE_LIMITING.test(projectCode)) return [];
  return program.handlers
    .filter((h) => isLoginHandler(h) && (answersStateChange(h) || !h.methods.length) && !ATTEMPT_LIMITING.test(h.body) && !CREATES_ACCOUNT.test(h.body))
    .map((h) => ({ h, line: h.defLine + h.body.split('\n').findIndex((text, i) => i > 0 && READS_PASSWORD.test(text)) }))
    .map(({ h, line }) => ({
      checkId: `${checkPrefix(h.file.path)}.deep.auth.login-without-attempt-limit`,
      severity: 'medium' as const,
      category: 'auth',
      cwe: [CWE[307]],
      title: 'Sign-in accepts unlimited password attempts',
      message:
        `${h.name} checks passwords, and nothing in the application limits how often it may be tried (no rate limiter, lockout or ` +
        'attempt counter), so passwords can be guessed by brute force or credential stuffing. Limit attempts per account and per ' +
        'client (Flask-Limiter, django-axes, slowapi) and slow down after failures.',
      path: h.file.path,
      // Where the password is read: the attempt that nothing limits.
      startLine: line > h.line ? line : h.line,
      endLine: line > h.line ? line : h.line,
      text: `${h.name} ${h.paths.join(' ')}`,
    }));
}

/** Frameworks with no CSRF protection of their own: an application on one needs a library for it. */
const WITHOUT_BUILT_IN_CSRF = ['flask', 'quart', 'aiohttp'];
/** A write to the store, and request data read beside it. */
const WRITES = /\.commit\s*\(|\.save\s*\(|\.delete\s*\(|\.update\s*\(|\.create\s*\(|\bINSERT\s+INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b/i;
const READS_QUERY = /request\.(?:args|GET|query|values|rel_url\.query)\b|request\.match_info/;

/**
 * A route that answers GET (or any method) and writes what the query string says: a link or an image on
 * another site makes a signed-in user's browser do it, and no CSRF token or SameSite=Lax cookie stops a GET.
 */
export function stateChangingGet(program: PythonProgram, projectCode: string): ApplicationFinding[] {
  if (!USES_SESSIONS.test(projectCode)) return [];
  return program.handlers
    .filter((h) => (!h.methods.length || h.methods.includes('GET')) && !answersStateChange(h) && WRITES.test(h.body) && READS_QUERY.test(h.body))
    .map((h) => ({
      checkId: `${checkPrefix(h.file.path)}.deep.csrf.state-change-on-get`,
      severity: 'medium' as const,
      category: 'csrf',
      cwe: [CWE[352]],
      title: 'A GET request changes stored data',
      message:
        `${h.name}${h.paths.length ? ` (${h.paths.join(', ')})` : ''} writes what the query string says when it answers a GET, so a ` +
        "link or an image on another site makes a signed-in user's browser do it (cross-site request forgery): no CSRF token " +
        'or SameSite cookie stops a GET. Accept the change only by POST with a CSRF token.',
      path: h.file.path,
      startLine: h.line,
      endLine: h.line,
      text: `${h.name} ${h.paths.join(' ')} get-write`,
    }));
}

export function missingCsrfProtection(program: PythonProgram, projectCode: string): ApplicationFinding[] {
  if (CSRF_PROTECTION.test(projectCode)) return [];
  // Per framework: a repository may hold several applications, and only one whose own code keeps a session
  // (a cookie the browser sends by itself) can be driven by a forged request.
  return WITHOUT_BUILT_IN_CSRF.flatMap((framework) => {
    const files = program.files.filter((f) => f.imports.has(framework));
    if (!files.some((f) => USES_SESSIONS.test(f.code))) return [];
    const inFramework = new Set(files);
    return csrfFinding(program.handlers.filter((h) => inFramework.has(h.file)), files);
  });
}

function csrfFinding(handlers: PythonProgram['handlers'], files: PythonProgram['files']): ApplicationFinding[] {
  const formRoutes = handlers.filter((h) => answersStateChange(h) && /request\.(?:form|files|values)\b|await\s+request\.(?:form|post)\(/.test(h.body));
  if (!formRoutes.length) return [];
  const apps = files.flatMap((file) => file.applications.map((line) => ({ file, line })));
  const listed = formRoutes.slice(0, 5).map((h) => h.paths[0] ?? h.name).join(', ');
  const message =
    `State-changing form routes (${listed}${formRoutes.length > 5 ? ', …' : ''}) accept requests carrying the user's session ` +
    'cookie with no CSRF token checked anywhere in the application, so another site can make a signed-in user submit them. ' +
    'Enable CSRF protection for the application (Flask-WTF CSRFProtect, aiohttp-csrf) and put the token in every form.';
  const place = apps[0] ? { path: apps[0].file.path, line: apps[0].line } : { path: formRoutes[0].file.path, line: formRoutes[0].line };
  return [
    {
      checkId: 'python.deep.csrf.missing-csrf-protection',
      severity: 'medium',
      category: 'csrf',
      cwe: [CWE[352]],
      title: 'Form routes have no CSRF protection',
      message,
      path: place.path,
      startLine: place.line,
      endLine: place.line,
      text: `csrf ${formRoutes.map((h) => h.name).join(' ')}`,
    },
  ];
}

const ADMIN_AREA = /admin|staff|superuser|manage|backoffice|moderat/i;
/** Checks of a role or permission, beyond being signed in. */
const ROLE_CHECK = /is_admin|is_staff|is_superuser|admin_required|staff_member_required|superuser_required|permission_required|has_perm|user_passes_test|roles?_required|\brole\b|IsAdmin|permission_classes|requires_roles|admin_only|\.admin\b/i;

/**
 * An administrative entry point (its name, path or module says so) whose guard only asks for a signed-in
 * user: any user who can sign in reaches it (missing authorization).
 */
export function adminWithoutAuthorization(program: PythonProgram): ApplicationFinding[] {
  return program.handlers
    .filter((h) => h.guarded && ADMIN_AREA.test([h.name, h.className ?? '', ...h.paths, h.file.path].join(' ')) && !ROLE_CHECK.test(`${h.decorators}\n${h.body}`))
    .map((h) => ({
      checkId: `${checkPrefix(h.file.path)}.deep.authz.admin-without-role-check`,
      severity: 'high' as const,
      category: 'auth',
      cwe: [CWE[862]],
      title: 'Administrative entry point checks only that the caller is signed in',
      message:
        `${h.className ? `${h.className}.` : ''}${h.name} belongs to the administration of the application, and its guard only ` +
        'requires a signed-in user: no role or permission is checked, so every user who can sign in can use it. Require an ' +
        'administrator role or a specific permission.',
      path: h.file.path,
      startLine: h.line,
      endLine: h.line,
      text: `${h.className ?? ''}.${h.name} ${h.paths.join(' ')} admin`,
    }));
}

export function missingAuthentication(program: PythonProgram, hotspots: Hotspots): ApplicationFinding[] {
  // Only an application that signs people in can be missing it on a route: some route is guarded, or a
  // sign-in leaves something (a session, a token) that later requests could be asked for. A password
  // compared and forgotten signs nobody in.
  const hasAuthentication = program.handlers.some((h) => h.guarded) || program.handlers.some((h) => isLoginHandler(h) && startsSignedInState(h));
  if (!hasAuthentication) return [];
  const findings: ApplicationFinding[] = [];
  for (const h of program.handlers) {
    if (h.guarded || isLoginHandler(h)) continue;
    const names = [h.name, ...h.paths.map((p) => p.replace(/^\/+/, '').split(/[/<{]/)[0])];
    if (names.some((n) => PUBLIC_ENTRY.test(n)) && !h.className) continue;
    if (/regist|sign_?up|create_?user|add_?user|new_?user/i.test(h.name + h.paths.join(' '))) continue;
    const effect = checkPrefix(h.file.path) === 'python' ? privilegedEffectOf(h, hotspots) : scriptEffectOf(h, hotspots);
    if (!effect) continue;
    // Beside guarded routes of the same file or class, an open one is most likely a guard forgotten.
    const siblings = program.handlers.filter((o) => o !== h && o.file === h.file && (!h.className || o.className === h.className));
    const besideGuarded = siblings.some((o) => o.guarded);
    findings.push({
      checkId: `${checkPrefix(h.file.path)}.deep.auth.missing-authentication`,
      severity: 'high' as const,
      category: 'auth',
      cwe: [CWE[306]],
      title: 'Entry point with effects has no authentication',
      message:
        `${h.className ? `${h.className}.` : ''}${h.name}${h.paths.length ? ` (${h.paths.join(', ')})` : ''} ${effect}, and no guard ` +
        `checks who calls it, although the application signs users in elsewhere${besideGuarded ? ' and guards other routes beside it' : ''}. ` +
        (h.paths.length || h.operation
          ? ''
          : 'Its route is declared elsewhere (a router or URL table this analysis did not follow), so a guard there may cover it: check how it is reached. ') +
        (besideGuarded ? 'Require' : 'If it is meant to be public, this is by design; otherwise require') +
        ' a signed-in user (and the right role) before it runs.',
      path: h.file.path,
      startLine: h.line,
      endLine: h.line,
      text: `${h.className ?? ''}.${h.name} ${h.paths.join(' ')}`,
    });
  }
  return findings;
}

/** Writes of a JavaScript handler: ORM and driver writes (Sequelize, Mongoose, MongoDB, Prisma, TypeORM), SQL that changes rows, removed or written files. */
const SCRIPT_WRITES =
  /\.(?:save|create|destroy|remove|bulkCreate|upsert|increment|decrement)\s*\(|\.(?:delete|update|insert|replace)(?:One|Many|ById)?\s*\(|\.find(?:One|ById)And(?:Update|Delete|Remove|Replace)\s*\(|\bINSERT\s+INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b|\bDROP\s+TABLE\b|\bfs\.(?:write|append|unlink|rm)\w*\s*\(/i;
/** Running commands or code, and handing out files. */
const SCRIPT_RUNS_OR_SERVES = /child_process|\bexec(?:Sync|File)?\s*\(|\bspawn(?:Sync)?\s*\(|\beval\s*\(|\bnew\s+Function\s*\(|\bvm\.run\w*\s*\(|\bres\.(?:download|sendFile)\s*\(/;
/** Lines of serious static findings that matter more when anyone may reach them: code, commands, deserialization, XML entities, files. */
const SCRIPT_REACHABLE_SINK = /\beval\s*\(|\bexec|\bspawn|child_process|\bvm\.|Function\s*\(|serializ|parseXml|libxml|readFile|createReadStream|sendFile|download|require\s*\(/;

/**
 * What a JavaScript handler does that calls for authentication, in a phrase for the message, or nothing when
 * it only reads. As for Python, a query that reads, or an injection finding on a read, is not reason enough:
 * the injection is its own finding, and most read-only routes are public by design.
 */
function scriptEffectOf(h: PythonProgram['handlers'][number], hotspots: Hotspots): string | undefined {
  const body = h.body.replace(/^[^\n]*\n/, '');
  const lines = h.body.split('\n');
  const sinkHere = (hotspots[h.file.path] ?? []).some((line) => line >= h.defLine && line <= h.endLine && SCRIPT_REACHABLE_SINK.test(lines[line - h.defLine] ?? ''));
  if (sinkHere || SCRIPT_RUNS_OR_SERVES.test(body)) return 'runs commands or code, or hands out files';
  // Answering POST is no effect by itself (a page that renders a template for any method): what it does is.
  // PUT, PATCH and DELETE say they change something.
  if (SCRIPT_WRITES.test(body) || h.methods.some((m) => m === 'PUT' || m === 'PATCH' || m === 'DELETE')) return 'changes stored data';
  return undefined;
}

/** Parameters that name one record: ids, and the names that identify a user. */
const ID_PARAMETER = /^(?:id|pk|uuid|slug|username|user_name|email)$|_(?:id|pk|uuid)$/i;
/**
 * Calls that fetch records by a key: an ORM's lookups (SQLAlchemy, Django, Peewee, Tortoise, a DAO's
 * `Model.get`), MongoDB's finds, and SQL run with a WHERE clause (tested on the arguments apart).
 */
const LOOKUP_CALL =
  /(?:\.query|\.objects|\bsession|\bquery\([^)]*\)|\.select\([^)]*\))\.(?:get|get_or_404|first_or_404|one_or_404|filter|filter_by|where|get_or_none)$|^[A-Z]\w*\.(?:get|get_by_id|get_or_none|get_or_404|find|find_one|find_by_id|select|filter)$|(?:^|\.)(?:get_object_or_404|get_list_or_404|get_or_404|first_or_404|find_by_id|get_by_id)$|\.(?:find_one|find_one_and_update|find_one_and_delete|delete_one|update_one)$/;
const SQL_LOOKUP_CALL = /\.(?:execute|executemany|raw|fetch|fetchrow|fetchval)$/;
const SQL_WHERE = /\bWHERE\b/i;

/** Expressions that stand for the caller: the signed-in user, or their identity from the session or a token. */
const CALLER =
  /\bcurrent_user\b|\brequest\.user\b|\bg\.(?:user|current_user|identity)\b|\bsession\s*(?:\[|\.get\s*\()|get_jwt_identity\s*\(|get_jwt\s*\(|\bcurrent_identity\b|authenticated_userid|authorized_userid|get_auth_user|request\.auth\b|info\.context\.user|get_current_user|current_user_id|decode_auth_token|\bjwt\.decode\s*\(|\bverify_\w*token\s*\(|\bget_user_from_\w+\s*\(|\brequest\[['"]user['"]\]/;
/** A dependency that hands a FastAPI handler the caller: `user: User = Depends(get_current_user)`. */
const CALLER_DEPENDENCY = /\b(\w+)\s*(?::[^=,()]+)?=\s*(?:Depends|Security)\s*\(\s*[\w.]*(?:user|auth|token|identity|current|login|session)/gi;
/** Calls of helpers that decide whether the caller may use a record: `is_owner(note)`, `can_edit(doc)`, DRF's `check_object_permissions`. */
const OWNERSHIP_HELPER =
  /(?:^|[._])(?:is_owner|owns?|owning|owned_by|owner_of|can_(?:access|view|edit|read|write|modify|delete|update|see|manage|change)|has_(?:perm|perms|permission|access|object_permission)|check_(?:owner\w*|perm\w*|access\w*|object_permissions)|authoriz\w*|\w*_(?:owner|ownership|access|permission)s?_(?:check|required)|(?:ensure|verify|assert|require)_\w*(?:owner|access|perm)\w*)\w*$/i;
/** An explicit refusal of a signed-in caller: what a handler does when the record is not theirs. */
const REFUSES_CALLER = /abort\s*\(\s*403|\bPermissionDenied\b|HttpResponseForbidden|HTTPForbidden|\bForbidden\s*\(|status(?:_code)?\s*=\s*403|,\s*403\s*[,)]|HTTP_403_FORBIDDEN/;

/** A parameter the route's path names (`/books/<title>`, `/books/{title}`): the caller picks the record by it. */
const inPath = (h: { paths: string[] }, name: string) => h.paths.some((p) => new RegExp(`[<{:](?:\\w+:)?${name}[>}]`).test(p));
/** Reading the request's data, not a record: `request.args.get("id")`, `data.get("id")`. */
const READS_REQUEST_DATA = /^(?:self\.)?request\b|\.(?:args|form|json|values|GET|POST|headers|cookies|query_params|match_info|view_args|META|environ)\.get$|^(?:data|form|params|payload|body|kwargs|args|json_data|request_data)\.get$/;
const RECORD_KEY = /^(?:id|pk|uuid)$|_(?:id|pk|uuid)$/i;
/** A key read straight from the request where it is used: `Doc.query.get(request.args.get("doc_id"))`. */
const REQUEST_KEY = /request\.(?:args|form|json|values|GET|POST|query_params|match_info|view_args)\s*(?:\.get\s*\(|\[)\s*['"](?:id|pk|uuid|\w+_(?:id|pk|uuid))['"]/;
/** The request's data, as a handler reads it: `request.args`, `request.get_json()`, `await request.json()`. */
const REQUEST_DATA = String.raw`(?:await\s+)?request\.(?:args|form|json|values|data|GET|POST|query_params|match_info|view_args|get_json\(\)|json\(\)|post\(\))`;

/**
 * Names bound to an id the request carries: `note_id = request.args.get("id")`, `pk = request.json["pk"]`,
 * also through a name bound to the request's data (`data = request.get_json()`, then `data["note_id"]`).
 */
function idsReadFromRequest(body: string): { names: string[]; readInPlace: string[] } {
  const containers = [...body.matchAll(new RegExp(String.raw`^\s*(\w+)\s*=\s*${REQUEST_DATA}\s*$`, 'gm'))].map((m) => m[1]);
  const source = [REQUEST_DATA, ...containers.map((c) => `\\b${c}`)].join('|');
  const read = new RegExp(String.raw`^\s*(\w+)\s*=\s*(?:int\s*\(|str\s*\(|UUID\s*\()?\s*(?:${source})\s*(?:\.get\s*\(|\[)\s*['"](\w+)['"]`, 'gm');
  const names: string[] = [];
  // Only keys: a name or address typed into a form is how sign-in and password reset find an account.
  for (const m of body.matchAll(read)) if (RECORD_KEY.test(m[1]) || RECORD_KEY.test(m[2])) names.push(m[1]);
  // Keys used where they are read: `Note.query.get(data["note_id"])`.
  const readInPlace = containers.map((c) => String.raw`\b${c}\s*(?:\.get\s*\(|\[)\s*['"](?:id|pk|uuid|\w+_(?:id|pk|uuid))['"]`);
  return { names, readInPlace };
}

/**
 * The names a handler binds to the caller: FastAPI dependencies that hand it over, and variables assigned
 * from the caller or from what was made of it (`uid = session["uid"]`, `user = User.query.get(uid)`).
 */
function callerNames(body: string): Set<string> {
  const names = new Set<string>([...body.matchAll(CALLER_DEPENDENCY)].map((m) => m[1]));
  const assignments = [...body.matchAll(/^\s*([\w, ]+?)\s*(?::\s*[\w[\]., ]+)?=(?!=)\s*(.+)$/gm)];
  for (let grown = true; grown; ) {
    grown = false;
    for (const [, targets, value] of assignments) {
      if (!tiedToCaller(value, names)) continue;
      for (const name of targets.split(',').map((t) => t.trim())) {
        if (/^\w+$/.test(name) && !names.has(name)) {
          names.add(name);
          grown = true;
        }
      }
    }
  }
  return names;
}

const tiedToCaller = (code: string, names: Set<string>): boolean => CALLER.test(code) || [...names].some((n) => new RegExp(`\\b${n}\\b`).test(code));

/** A branch on the caller's role: what follows is allowed to administrators, who may reach any record. */
const CALLER_ROLE_TEST = /^\s*(?:el)?if\b[^\n]*(?:\.(?:admin|is_admin|is_staff|is_superuser)\b|\bhas_perm\s*\(|\bhas_role\s*\()/;
/** A comparison (not a test for None): `note.owner_id != user.id`, `doc not in current_user.docs`. */
const COMPARES = /[!=]=|\bnot\s+in\b|\bin\b/;

/**
 * Whether a handler decides, anywhere in its body, that the caller may use what it fetched: it compares
 * something with the caller, asks a helper that decides it, branches on the caller's role, or refuses with 403.
 */
function checksCaller(fn: SgNode, body: string, caller: Set<string>): boolean {
  if (REFUSES_CALLER.test(body)) return true;
  if (body.split('\n').some((line) => CALLER_ROLE_TEST.test(line) || (COMPARES.test(line.replace(/\bis\s+(?:not\s+)?None\b/g, '')) && /^\s*(?:el)?if\b|^\s*(?:assert|return)\b|\bif\b.*\belse\b/.test(line) && tiedToCaller(line, caller)))) return true;
  return fn.findAll({ rule: { kind: 'call' } } as never).some((call) => OWNERSHIP_HELPER.test(call.field('function')?.text() ?? ''));
}

/** The statement a call belongs to, so that a filter chained after it (`.filter_by(owner=user)`) counts. */
function statementOf(node: SgNode): SgNode {
  let at = node;
  for (let up = at.parent(); up && !['block', 'module'].includes(String(up.kind())); up = up.parent()) at = up;
  return at;
}

/** Calls that hand a value to the client: rendering, serializing, answering. */
const ANSWERS = /(?:^|\.)(?:render\w*|jsonify|\w*Response|make_response|dumps|serializ\w*|to_dict|json|write|send\w*|dict|model_dump|from_orm|model_validate)$/;

/**
 * Whether a handler returns or changes the record a statement fetched, rather than only citing it (a
 * message's recipient picked by id is named, not read): followed through the names made from it.
 */
function returnsOrChanges(fn: SgNode, statement: SgNode): boolean {
  if (statement.kind() === 'return_statement' || /\)\s*\.\s*(?:delete|update|save)\s*\(/.test(statement.text())) return true;
  const assignment = statement.kind() === 'expression_statement' ? statement.find({ rule: { kind: 'assignment' } } as never) : undefined;
  const target = assignment?.field('left')?.text() ?? '';
  if (!/^\w+$/.test(target)) return true;
  const names = new Set([target]);
  const mentions = (code: string) => [...names].some((n) => new RegExp(`\\b${n}\\b`).test(code));
  const assignments = fn.findAll({ rule: { kind: 'assignment' } } as never).filter((a) => a !== assignment);
  for (let grown = true; grown; ) {
    grown = false;
    for (const a of assignments) {
      const left = a.field('left')?.text() ?? '';
      if (/^\w+$/.test(left) && !names.has(left) && mentions(a.field('right')?.text() ?? '')) {
        names.add(left);
        grown = true;
      }
    }
  }
  if (fn.findAll({ rule: { any: [{ kind: 'return_statement' }, { kind: 'yield' }] } } as never).some((r) => mentions(r.text()))) return true;
  if (fn.findAll({ rule: { kind: 'call' } } as never).some((c) => ANSWERS.test(c.field('function')?.text() ?? '') && mentions(c.field('arguments')?.text() ?? ''))) return true;
  return [...names].some((n) =>
    new RegExp(String.raw`\b${n}\.(?:delete|save|update|remove|destroy|set_\w+)\s*\(|\b${n}\.\w+\s*=(?!=)|\.(?:delete|merge|add)\s*\(\s*${n}\b|\b${n}\s*\[[^\]]+\]\s*=(?!=)|\b${n}\.__dict__`).test(fn.text()),
  );
}

/**
 * The project's own functions a handler passes the record it fetched to (`note = ...; check(note)`): one of
 * them may be the ownership check this analysis cannot see into.
 */
function projectHelpersGiven(fn: SgNode, statement: SgNode, file: FileContext['file']): string[] {
  const record = statement.kind() === 'expression_statement' ? statement.find({ rule: { kind: 'assignment' } } as never)?.field('left')?.text() : undefined;
  if (!record || !/^\w+$/.test(record)) return [];
  const ownPackage = file.module.split('.')[0];
  const names = fn
    .findAll({ rule: { kind: 'call' } } as never)
    .filter((call) => new RegExp(`\\b${record}\\b`).test(call.field('arguments')?.text() ?? ''))
    .map((call) => call.field('function')?.text() ?? '')
    .filter((name) => /^\w+$/.test(name) && (file.functions.has(name) || /^\./.test(file.importedNames.get(name) ?? '') || (file.importedNames.get(name) ?? '').split('.')[0] === ownPackage));
  return [...new Set(names)];
}

/**
 * A signed-in user's handler that fetches a record by an id the request carries (a path parameter, a query
 * argument, a form or JSON field) and neither scopes the lookup to the caller nor checks afterwards that the
 * record is theirs: any user reaches any record (IDOR).
 */
export function objectByIdWithoutOwnership({ root, handlers }: FileContext): Candidate[] {
  const findings: Candidate[] = [];
  for (const h of handlers) {
    // A sign-in looks the account up by the name typed: that is its job.
    if (ADMIN_ONLY.test(h.name) || ADMIN_ONLY.test(h.decorators) || isLoginHandler(h)) continue;
    const fromRequest = idsReadFromRequest(h.body);
    const ids = [...new Set([...h.parameters.filter((n) => ID_PARAMETER.test(n) || inPath(h, n)), ...fromRequest.names])];
    const keys = [REQUEST_KEY.source, ...fromRequest.readInPlace];
    const fn = ids.length || new RegExp(keys.join('|')).test(h.body) ? handlerFunction(root, h) : undefined;
    if (!fn) continue;
    const caller = callerNames(h.body);
    for (const id of ids) caller.delete(id);
    if (checksCaller(fn, h.body, caller)) continue;
    const uses = new RegExp([...(ids.length ? [`\\b(?:${ids.join('|')})\\b`] : []), ...keys].join('|'));
    const lookup = fn.findAll({ rule: { kind: 'call' } } as never).find((call) => {
      const callee = call.field('function')?.text() ?? '';
      const argumentText = call.field('arguments')?.text() ?? '';
      const isLookup =
        (LOOKUP_CALL.test(callee) && !READS_REQUEST_DATA.test(callee)) ||
        // SQLAlchemy's `session.get(Note, note_id)`, whatever the session is called.
        (/\.get$/.test(callee) && /^\(\s*[A-Z]\w*\s*,/.test(argumentText)) ||
        (SQL_LOOKUP_CALL.test(callee) && SQL_WHERE.test(argumentText));
      // The values passed, not the keywords: `filter_by(username=identity)` looks up by the identity, not by `username`.
      const values = argumentText.replace(/\b\w+\s*=(?!=)/g, '');
      return isLookup && uses.test(values) && !tiedToCaller(statementOf(call).text(), caller) && returnsOrChanges(fn, statementOf(call));
    });
    if (!lookup) continue;
    const helpers = projectHelpersGiven(fn, statementOf(lookup), h.file);
    findings.push({
      handler: h,
      needs: 'guarded',
      finding: {
        ...ownershipFinding(),
        message:
          `${h.className ? `${h.className}.` : ''}${h.name} looks a record up by an id the caller sends and never checks that it ` +
          "belongs to the signed-in user, so any user can read or change another's records by changing the id. Scope the lookup to " +
          'the caller (filter by owner) or check ownership before using the record.' +
          (helpers.length
            ? ` It hands the record to ${helpers.map((n) => `${n}()`).join(', ')}, which this analysis did not follow: if that checks who owns it, this is safe.`
            : ''),
        path: h.file.path,
        startLine: lineOf(lookup),
        endLine: lineOf(lookup),
        text: lookup.text(),
      },
    });
  }
  return findings;
}

/** What every finding of a record served without an ownership check shares. */
const ownershipFinding = (): Pick<ApplicationFinding, 'checkId' | 'severity' | 'category' | 'cwe' | 'title'> => ({
  checkId: 'python.deep.authz.object-by-id-without-ownership',
  severity: 'high',
  category: 'auth',
  cwe: [CWE[639]],
  title: 'Record fetched by a caller-chosen id with no ownership check',
});

/** Django's and DRF's generic views that fetch one record by the key in the URL (`pk`, `slug`) for the caller to see or change. */
const GENERIC_RECORD_VIEW =
  /\b(?:DetailView|UpdateView|DeleteView|RetrieveAPIView|UpdateAPIView|DestroyAPIView|RetrieveUpdateAPIView|RetrieveDestroyAPIView|RetrieveUpdateDestroyAPIView|ModelViewSet|ReadOnlyModelViewSet)\b/;
/** What demands a signed-in caller of a class view and nothing more: Django's mixin, DRF's IsAuthenticated. */
const SIGNED_IN_ONLY = /\bLoginRequiredMixin\b|permission_classes\s*=\s*[[(]\s*(?:permissions\.)?IsAuthenticated(?:OrReadOnly)?\s*,?\s*[\])]/;
/** What decides per record or per permission: a test of the caller, permissions, or the records narrowed to the caller. */
const DECIDES_PER_RECORD = /UserPassesTestMixin|PermissionRequiredMixin|has_object_permission|check_object_permissions|\bdef\s+(?:get_queryset|get_object|test_func|dispatch|has_permission)\b[\s\S]*?(?:request\.user|current_user|owner|author)/;

/**
 * A Django or DRF generic view over a model, open to every signed-in user, that fetches the record the URL
 * names from all of them: its queryset is not narrowed to the caller and no object permission decides, so
 * any user reads or changes anyone's record by its key (IDOR).
 */
export function genericViewWithoutOwnership({ file, root }: FileContext): Candidate[] {
  if (!file.imports.has('django') && !file.imports.has('rest_framework')) return [];
  const findings: Candidate[] = [];
  for (const cls of root.findAll({ rule: { kind: 'class_definition' } } as never)) {
    const bases = cls.field('superclasses')?.text() ?? '';
    const body = cls.field('body')?.text() ?? '';
    const permissions = /^\s*permission_classes\s*=.*$/m.exec(body)?.[0] ?? '';
    if (!GENERIC_RECORD_VIEW.test(bases) || !SIGNED_IN_ONLY.test(`${bases}\n${permissions}`) || DECIDES_PER_RECORD.test(`${bases}\n${body}`)) continue;
    if (/\b(?:admin|staff|superuser)/i.test(`${cls.field('name')?.text()}\n${bases}`)) continue;
    const source = (cls.field('body')?.children() ?? []).find((c) => /^(?:model|queryset)\s*=/.test(c.text()) && !/request\.user|owner|author/.test(c.text()));
    if (!source) continue;
    const name = cls.field('name')?.text() ?? '';
    findings.push({
      finding: {
        ...ownershipFinding(),
        message:
          `${name} serves the record its URL names to any signed-in user: its queryset is every record (${source.text().trim()}), ` +
          'not those of the caller, and no object permission decides, so any user reads or changes another\'s record by changing ' +
          'the key. Narrow get_queryset() to the caller (filter(owner=self.request.user)) or add an object permission. If every ' +
          'signed-in user may see every record of this model, this is by design.',
        path: file.path,
        startLine: lineOf(source),
        endLine: lineOf(source),
        text: `${name} ${source.text().trim()}`,
      },
    });
  }
  return findings;
}
