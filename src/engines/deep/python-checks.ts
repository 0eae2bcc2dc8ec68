import type { SgNode } from '@ast-grep/napi';
import { buildPythonProgram, handlerFunction, type DeclaredOperation, type Handler, type PythonFile, type PythonProgram, type PythonSource } from './python-program.ts';

// Whole-application checks over the Python program model: what no single pattern or per-file taint trace
// can tell, because the answer depends on what the rest of the application does (whether any limiter,
// CSRF protection or guard exists elsewhere). Each yields at most one finding per root cause and place.

export interface ApplicationFinding {
  checkId: string;
  severity: 'critical' | 'high' | 'medium' | 'low';
  category: string;
  cwe: string[];
  title: string;
  message: string;
  path: string;
  startLine: number;
  endLine: number;
  /** The code the finding is about, for its identity across scans. */
  text: string;
}

const CWE = {
  307: 'CWE-307: Improper Restriction of Excessive Authentication Attempts',
  209: 'CWE-209: Generation of Error Message Containing Sensitive Information',
  352: 'CWE-352: Cross-Site Request Forgery (CSRF)',
  306: 'CWE-306: Missing Authentication for Critical Function',
  256: 'CWE-256: Plaintext Storage of a Password',
  200: 'CWE-200: Exposure of Sensitive Information to an Unauthorized Actor',
  639: 'CWE-639: Authorization Bypass Through User-Controlled Key',
  1333: 'CWE-1333: Inefficient Regular Expression Complexity',
};

/** Lines of each file where the static analysis found something serious: a handler holding one is dangerous to leave open. */
export type Hotspots = Record<string, number[]>;

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const LOGIN_NAME = /(?:^|_)(?:log_?in|sign_?in|authenticate|auth)(?:_|$)|^login|^signin/i;
const LOGIN_PATH = /\/(?:log_?in|sign_?in|auth(?:enticate)?|token|session)s?\/?$/i;
const READS_PASSWORD = /passw|\bpwd\b|\bpasswd\b/i;
const ATTEMPT_LIMITING = /attempt|lockout|locked_?out|throttl|rate_?limit|captcha|limiter|too\s+many|backoff|brute/i;
/** Libraries and settings that limit request or login rates for a whole application. */
const RATE_LIMITING = /flask_limiter|Limiter\s*\(|slowapi|django_ratelimit|ratelimit|\baxes\b|AXES_|throttle|DEFAULT_THROTTLE|brute_?force|fastapi_limiter|aiohttp_ratelimiter|limits\.storage/i;
const CSRF_PROTECTION = /CSRFProtect|csrf_protect|SeaSurf|FlaskForm|flask_wtf|CsrfViewMiddleware|aiohttp_csrf|csrf_middleware|starlette_csrf|CSRFMiddleware|fastapi_csrf|csrf_token/;
const USES_SESSIONS = /\bsession\s*\[|\bsession\.get\(|flask_login|login_user\s*\(|set_cookie\s*\(|SESSION_/;
const PUBLIC_ENTRY = /^(?:index|home|main|root|login|log_in|logout|log_out|signin|sign_in|signup|sign_up|register|registration|health|healthz|ping|status|about|static|favicon|robots|reset|forgot|verify|confirm|callback|oauth|docs|openapi|swagger|hello|welcome|get|head|options)\b/i;
/** What makes an unguarded entry point worth a finding: it changes data, runs code or commands, or hands out files. */
const SENSITIVE_EFFECT =
  /\.commit\s*\(|\.add\s*\(|\.delete\s*\(|\.save\s*\(|\.create\s*\(|\.update\s*\(|\.drop_all\s*\(|\.create_all\s*\(|\bINSERT\s+INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b|\bDROP\s+TABLE\b|subprocess\.|os\.system|os\.popen|\beval\s*\(|\bexec\s*\(|pickle\.loads|yaml\.load|send_file|send_from_directory|\.execute\s*\(/i;
const HASHES_PASSWORD = /generate_password_hash|hashpw|bcrypt|make_password|set_password|pbkdf2|argon2|scrypt|hash_password|passlib|hashlib|sha\d+|md5|\bhash\s*\(|encrypt|crypt\s*\(|hasher/i;
/** A model constructor (`User(…)`) or a call that writes a record. */
const STORING_CALL = /(?:^|\.)(?:[A-Z]\w*|create_user|create|insert|add_user|update)$/;
const RESPONSE_CALL = /\b(?:return|render_template|render|jsonify|make_response|Response|HttpResponse|JsonResponse|json_response|abort|flash|web\.Response|HTMLResponse|PlainTextResponse|JSONResponse|write|send|send_error|send_response|finish)\b/;
const VALIDATION_ERROR = /ValidationError|ValueError|BadRequest|ValidationException|SchemaError|MarshmallowError/;
const LOGGING_CALL = /^\s*(?:(?:self\.)?(?:app\.)?(?:logger|logging|log|current_app\.logger)\.\w+|print)\s*\(/;

const lineOf = (node: SgNode) => node.range().start.line + 1;
const endLineOf = (node: SgNode) => node.range().end.line + 1;

/** A handler that starts a signed-in session or hands out a token. */
const SIGNS_IN = /session\s*\[[^\]]+\]\s*=|login_user\s*\(|remember\s*\(|authorized_userid|create_access_token|jwt\.encode|encode_auth_token|set_cookie\s*\(|auth\.login\s*\(|\blogin\s*\(\s*request/;

/** Whether a handler takes part in signing in: it reads a password, and is named so or starts a session. */
function isLoginHandler(h: Handler): boolean {
  if (!READS_PASSWORD.test(h.body)) return false;
  return LOGIN_NAME.test(h.name) || h.paths.some((p) => LOGIN_PATH.test(p)) || (SIGNS_IN.test(h.body) && !/regist|sign_?up|reset|change/i.test(h.name));
}

function answersStateChange(h: Handler): boolean {
  return h.methods.some((m) => STATE_CHANGING.has(m)) || /request\.method\s*==\s*['"](?:POST|PUT|PATCH|DELETE)['"]/.test(h.body);
}

function loginWithoutAttemptLimit(program: PythonProgram, projectCode: string): ApplicationFinding[] {
  if (RATE_LIMITING.test(projectCode)) return [];
  return program.handlers
    .filter((h) => isLoginHandler(h) && (answersStateChange(h) || !h.methods.length) && !ATTEMPT_LIMITING.test(h.body))
    .map((h) => ({ h, line: h.defLine + h.body.split('\n').findIndex((text, i) => i > 0 && READS_PASSWORD.test(text)) }))
    .map(({ h, line }) => ({
      checkId: 'python.deep.auth.login-without-attempt-limit',
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

/** The name an `except … as NAME:` clause binds. */
function exceptionName(clause: SgNode): string | undefined {
  const m = /^except\b[^:]*\bas\s+(\w+)\s*:/.exec(clause.text());
  return m?.[1];
}

/** A file as a per-file check sees it: its tree, while it is alive, and the handlers found in it. */
interface FileContext {
  file: PythonFile;
  root: SgNode;
  handlers: Handler[];
}

/**
 * A finding of a per-file check, with what it depends on in the rest of the program: decided once the
 * program is built (whether its handler counts and is guarded, whether any file handles requests, whether
 * the application hashes passwords anywhere).
 */
interface Candidate {
  finding: ApplicationFinding;
  handler?: Handler;
  needs?: 'guarded' | 'handlers-anywhere' | 'no-password-hashing';
}

function errorDetailsToClient({ file, root, handlers }: FileContext): Candidate[] {
  const findings: Candidate[] = [];
  const handlesRequests = handlers.length > 0 || /BaseHTTPRequestHandler|wfile\.write/.test(file.code);
  for (const clause of root.findAll({ rule: { kind: 'except_clause' } } as never)) {
    const name = exceptionName(clause);
    const block = clause.children().find((c) => c.kind() === 'block');
    // A validation error's message is written for the client: it says what was wrong with the input.
    if (!block || VALIDATION_ERROR.test(clause.text().split(':')[0])) continue;
    const formatsError = name
      ? new RegExp(`\\b(?:str|repr)\\s*\\(\\s*${name}\\s*\\)|\\{\\s*${name}\\s*(?:!r|!s)?\\}|\\{\\s*(?:str|repr)\\(${name}\\)\\s*\\}|\\b${name}\\.(?:args|message|msg)\\b|%\\s*\\(?\\s*${name}\\b|\\+\\s*${name}\\b|format\\s*\\([^)]*\\b${name}\\b|\\(\\s*${name}\\s*\\)`)
      : undefined;
    const leaks = (text: string) => /traceback\.format_exc|format_exception|print_exc\s*\(\s*file\s*=/.test(text) || (formatsError?.test(text) ?? false);
    const statements = block.findAll({ rule: { any: [{ kind: 'return_statement' }, { kind: 'expression_statement' }] } } as never);
    const later = clause.parent()?.parent()?.text() ?? '';
    const hit = statements.find((s) => {
      const text = s.text();
      if (LOGGING_CALL.test(text) || !leaks(text)) return false;
      if (!handlesRequests) return s.kind() === 'return_statement' && /,\s*\d{3}\s*\)?\s*$|^return\s*[({]/.test(text);
      if (s.kind() === 'return_statement' || RESPONSE_CALL.test(text)) return !/^\s*(?:raise|logger|logging)/.test(text);
      // `error = f"…{e}"`, shown later by the response that returns `error`.
      const assigned = /^\s*(\w+)\s*=/.exec(text)?.[1];
      return assigned !== undefined && new RegExp(`\\b(?:render_template|render|jsonify|return|Response|write|send)\\b[^\\n]*\\b${assigned}\\b`).test(later);
    });
    if (!hit) continue;
    // Outside request handlers, only what is returned in the shape of a response, in an application that has handlers.
    findings.push({
      needs: handlesRequests ? undefined : 'handlers-anywhere',
      finding: {
        checkId: 'python.deep.errors.error-details-to-client',
        severity: 'medium',
        category: 'sensitive-data',
        cwe: [CWE[209]],
        title: 'Exception details are sent to the client',
        message:
          'The text of a caught exception (or its stack trace) goes into the response. Error messages of databases and libraries ' +
          'disclose queries, paths, versions and data that help an attacker. Log the details on the server and answer with a generic ' +
          'message.',
        path: file.path,
        startLine: lineOf(hit),
        endLine: endLineOf(hit),
        text: hit.text(),
      },
    });
  }
  return findings;
}

function missingCsrfProtection(program: PythonProgram, projectCode: string): ApplicationFinding[] {
  if (!(program.imports.has('flask') || program.imports.has('quart')) || CSRF_PROTECTION.test(projectCode) || !USES_SESSIONS.test(projectCode)) return [];
  const formRoutes = program.handlers.filter((h) => answersStateChange(h) && /request\.(?:form|files|values)\b|await\s+request\.form/.test(h.body));
  if (!formRoutes.length) return [];
  const apps = program.files.flatMap((file) => file.applications.map((line) => ({ file, line })));
  const listed = formRoutes.slice(0, 5).map((h) => h.paths[0] ?? h.name).join(', ');
  const message =
    `State-changing form routes (${listed}${formRoutes.length > 5 ? ', …' : ''}) accept requests carrying the user's session ` +
    'cookie with no CSRF token checked anywhere in the application, so another site can make a signed-in user submit them. ' +
    'Enable CSRFProtect (Flask-WTF) for the application and put the token in every form.';
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

function missingAuthentication(program: PythonProgram, hotspots: Hotspots): ApplicationFinding[] {
  // Only an application that signs people in can be missing it on a route.
  const hasAuthentication = program.handlers.some((h) => h.guarded) || program.handlers.some(isLoginHandler);
  if (!hasAuthentication) return [];
  return program.handlers
    .filter((h) => {
      if (h.guarded || isLoginHandler(h)) return false;
      const names = [h.name, ...h.paths.map((p) => p.replace(/^\/+/, '').split(/[/<{]/)[0])];
      if (names.some((n) => PUBLIC_ENTRY.test(n)) && !h.className) return false;
      if (/regist|sign_?up|create_?user|add_?user|new_?user/i.test(h.name + h.paths.join(' '))) return false;
      const dangerous = (hotspots[h.file.path] ?? []).some((line) => line >= h.line && line <= h.endLine);
      return dangerous || answersStateChange(h) || SENSITIVE_EFFECT.test(h.body.replace(/^[^\n]*\n/, ''));
    })
    .map((h) => ({
      checkId: 'python.deep.auth.missing-authentication',
      severity: 'high' as const,
      category: 'auth',
      cwe: [CWE[306]],
      title: 'Entry point with effects has no authentication',
      message:
        `${h.className ? `${h.className}.` : ''}${h.name}${h.paths.length ? ` (${h.paths.join(', ')})` : ''} changes data, runs ` +
        'commands or hands out files, and no guard checks who calls it, although the application signs users in elsewhere. ' +
        'Require a signed-in user (and the right role) before it runs.',
      path: h.file.path,
      startLine: h.line,
      endLine: h.line,
      text: `${h.className ?? ''}.${h.name} ${h.paths.join(' ')}`,
    }));
}

/** A password taken from the request and stored as it came: a model field, an attribute or an SQL write. */
function plaintextPasswordStorage({ root, handlers }: FileContext): Candidate[] {
  const findings: Candidate[] = [];
  for (const h of handlers) {
    if (!READS_PASSWORD.test(h.body) || HASHES_PASSWORD.test(h.body)) continue;
    const fn = handlerFunction(root, h);
    if (!fn) continue;
    const stores = fn.findAll({
      rule: {
        any: [
          { kind: 'keyword_argument', has: { field: 'name', regex: '^(?:password|passwd|pwd|password_hash)$' } },
          { kind: 'assignment', has: { field: 'left', kind: 'attribute', regex: '\\.(?:password|passwd|pwd)$' } },
          { kind: 'string', regex: '(?i)\\b(?:INSERT\\s+INTO|UPDATE)\\b[\\s\\S]*\\bpass(?:word|wd)?\\b' },
        ],
      },
    } as never);
    // A keyword argument stores only when it goes to a model's constructor or a create/insert/update call.
    const callee = (arg: SgNode) => arg.parent()?.parent()?.field('function')?.text() ?? '';
    const store = stores.find((s) => s.kind() !== 'keyword_argument' || STORING_CALL.test(callee(s)));
    if (!store) continue;
    findings.push({
      handler: h,
      finding: {
        checkId: 'python.deep.crypto.plaintext-password-storage',
        severity: 'high',
        category: 'crypto',
        cwe: [CWE[256]],
        title: 'Password stored as plain text',
        message:
          `${h.name} stores the password it receives without hashing it, so anyone who reads the database (a backup, an injection, an ` +
          'insider) has every password. Store a slow salted hash instead (werkzeug generate_password_hash, bcrypt, argon2, Django ' +
          'make_password) and compare with its check function.',
        path: h.file.path,
        startLine: lineOf(store),
        endLine: lineOf(store),
        text: store.text(),
      },
    });
  }
  return findings;
}

const PASSWORD_FIELD = /^(?:password|passwd|pwd|user_password)$/i;

/**
 * A model whose password column is filled in by an application that hashes no password anywhere: the
 * column holds them in clear.
 */
function plaintextPasswordColumn({ file, root }: FileContext): Candidate[] {
  const findings: Candidate[] = [];
  for (const column of root.findAll({ rule: { kind: 'assignment', has: { field: 'right', kind: 'call', regex: '(?:Column|Field|CharField|TextField|StringField|String)\\s*\\(' } } } as never)) {
    const name = column.field('left')?.text() ?? '';
    if (!PASSWORD_FIELD.test(name) || !column.inside({ rule: { kind: 'class_definition' }, stopBy: 'end' } as never)) continue;
    findings.push({
      needs: 'no-password-hashing',
      finding: {
        checkId: 'python.deep.crypto.plaintext-password-column',
        severity: 'high',
        category: 'crypto',
        cwe: [CWE[256]],
        title: 'Passwords kept in clear in the database',
        message:
          `The model field ${name} holds passwords, and the application hashes no password anywhere, so they are stored as typed. ` +
          'Store a slow salted hash (werkzeug generate_password_hash, bcrypt, argon2, Django make_password) and check logins against it.',
        path: file.path,
        startLine: lineOf(column),
        endLine: lineOf(column),
        text: column.text(),
      },
    });
  }
  return findings;
}

/** A password (or its hash) put into what a model or handler serializes for clients: a dict key `password`. */
function passwordInSerializedOutput({ file, root }: FileContext): Candidate[] {
  const findings: Candidate[] = [];
  for (const fn of root.findAll({ rule: { kind: 'function_definition', has: { field: 'name', regex: '^(?:serialize|serialized|to_dict|to_json|as_dict|json|__json__|dump|to_api)$' } } } as never)) {
    const pair = fn.find({ rule: { kind: 'pair', has: { field: 'key', regex: `^['"](?:password|passwd|pwd|password_hash)['"]$` } } } as never);
    if (!pair) continue;
    findings.push({
      finding: {
        checkId: 'python.deep.data.password-in-serialized-output',
        severity: 'high',
        category: 'sensitive-data',
        cwe: [CWE[200]],
        title: 'Serialized objects carry the password',
        message:
          `${fn.field('name')?.text()} puts the password into the data it serializes, so every response built from it hands the ` +
          'password (or its hash) to the client. Leave secrets out of what is serialized for clients.',
        path: file.path,
        startLine: lineOf(pair),
        endLine: lineOf(pair),
        text: pair.text(),
      },
    });
  }
  return findings;
}

/** Parameters that name one record: ids, and the names that identify a user. */
const ID_PARAMETER = /^(?:id|pk|uuid|slug|username|user_name|email)$|_(?:id|pk|uuid)$/i;
const LOOKUP_CALL = /(?:\.(?:get|get_or_404|first_or_404|filter_by|filter|find_one|find_by_id|get_by_id)|get_object_or_404|get_or_404)$/;
/** Words of a lookup, or of a check after it, that tie the record to the caller. */
const OWNERSHIP = /current_user|request\.user|\bg\.user|session\s*[[.]|get_jwt_identity|\bowner|\bauthor|\bcreator|created_by|\buser\s*=|user_id\s*=|is_owner|owns|can_access|has_perm|permission/i;
const ADMIN_ONLY = /admin|staff|superuser/i;

/**
 * A signed-in user's handler that fetches a record by an id from the URL and neither scopes the lookup to
 * the caller nor checks afterwards that the record is theirs: any user reaches any record (IDOR).
 */
function objectByIdWithoutOwnership({ root, handlers }: FileContext): Candidate[] {
  const findings: Candidate[] = [];
  for (const h of handlers) {
    if (ADMIN_ONLY.test(h.name) || ADMIN_ONLY.test(h.decorators)) continue;
    const ids = h.parameters.filter((n) => ID_PARAMETER.test(n));
    const fn = ids.length ? handlerFunction(root, h) : undefined;
    if (!fn || h.body.split('\n').some((line) => /[!=]=|\bis\s+not\b|\bnot\s+in\b/.test(line) && OWNERSHIP.test(line))) continue;
    const uses = new RegExp(`\\b(?:${ids.join('|')})\\b`);
    const lookup = fn.findAll({ rule: { kind: 'call' } } as never).find((call) => {
      const callee = call.field('function')?.text() ?? '';
      const args = call.field('arguments')?.text() ?? '';
      return LOOKUP_CALL.test(callee) && uses.test(args) && !OWNERSHIP.test(call.text());
    });
    if (!lookup) continue;
    findings.push({
      handler: h,
      needs: 'guarded',
      finding: {
        checkId: 'python.deep.authz.object-by-id-without-ownership',
        severity: 'high',
        category: 'auth',
        cwe: [CWE[639]],
        title: 'Record fetched by a caller-chosen id with no ownership check',
        message:
          `${h.className ? `${h.className}.` : ''}${h.name} looks a record up by an id the caller sends and never checks that it ` +
          "belongs to the signed-in user, so any user can read or change another's records by changing the id. Scope the lookup to " +
          'the caller (filter by owner) or check ownership before using the record.',
        path: h.file.path,
        startLine: lineOf(lookup),
        endLine: lineOf(lookup),
        text: lookup.text(),
      },
    });
  }
  return findings;
}

const REGEX_CALL = /^(?:re|regex)\.(?:match|search|fullmatch|findall|finditer|sub|subn|split|compile)$/;
const COMPILED_USE = /^(\w+)\.(?:match|search|fullmatch|findall|finditer|sub|subn|split)$/;
/** Both of the above, for ast-grep to pick the calls out natively. */
const REGEX_CALLEE = `${REGEX_CALL.source}|${COMPILED_USE.source}`;

/**
 * Whether a regular expression can backtrack catastrophically: a repeated group that itself holds a
 * repetition (`(a+)+`, `(\w+\s?)*`), the star height above one that safe-regex checks. Written here because
 * the check is a few lines over the pattern's text, and the libraries that do it are JavaScript-regex parsers.
 */
export function backtracksCatastrophically(pattern: string): boolean {
  /** For each group still open, whether something inside it repeats. */
  const open: boolean[] = [];
  const repeatsAt = (i: number) => pattern[i] === '*' || pattern[i] === '+' || (pattern[i] === '{' && /^\{\d*,\d*\}/.test(pattern.slice(i)));
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
    } else if (c === '[') {
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++;
    } else if (c === '(') {
      open.push(false);
    } else if (c === ')') {
      const repeatsInside = open.pop() ?? false;
      if (repeatsInside && repeatsAt(i + 1)) return true;
      if (open.length && (repeatsInside || repeatsAt(i + 1))) open[open.length - 1] = true;
    } else if (open.length && repeatsAt(i)) {
      open[open.length - 1] = true;
    }
  }
  return false;
}

/** A string literal's content, or the literal a module-level or same-function name is bound to. */
function regexLiteralOf(arg: SgNode | undefined, root: SgNode, scope: SgNode | undefined): string | undefined {
  if (!arg) return undefined;
  if (arg.kind() === 'string') return arg.text().replace(/^[rbuRBU]*(['"]{1,3})([\s\S]*)\1$/, '$2');
  if (arg.kind() !== 'identifier') return undefined;
  const binding = (where: SgNode | undefined) =>
    where?.findAll({ rule: { kind: 'assignment', has: { field: 'left', regex: `^${arg.text()}$` } } } as never).find((a) => a.field('right')?.kind() === 'string');
  const bound = binding(scope) ?? binding(root);
  return bound ? regexLiteralOf(bound.field('right') ?? undefined, root, undefined) : undefined;
}

/** A regular expression that backtracks catastrophically, run on data that is not a literal: CPU exhaustion (ReDoS). */
function catastrophicRegex({ file, root }: FileContext): Candidate[] {
  const findings: Candidate[] = [];
  if (!/\bre(?:gex)?\b/.test(file.code)) return [];
  for (const call of root.findAll({ rule: { kind: 'call', has: { field: 'function', regex: REGEX_CALLEE } } } as never)) {
    const callee = call.field('function')?.text() ?? '';
    const args = call.field('arguments')?.children().filter((c) => c.isNamed()) ?? [];
    const scope = call.ancestors().find((a) => a.kind() === 'function_definition');
    // The text matched comes after the replacement in sub and subn.
    const substitutes = /\.subn?$/.test(callee) ? 1 : 0;
    let pattern: string | undefined;
    if (REGEX_CALL.test(callee)) {
      // re.compile(…) alone is reported where the compiled pattern is used, when that can be seen.
      if (callee.endsWith('.compile') && (call.parent()?.kind() === 'assignment' || call.parent()?.kind() === 'keyword_argument')) continue;
      const data = args[1 + substitutes];
      if (!callee.endsWith('.compile') && (!data || data.kind() === 'string')) continue;
      pattern = regexLiteralOf(args[0], root, scope);
    } else {
      const receiver = COMPILED_USE.exec(callee)?.[1];
      const data = args[substitutes];
      if (!receiver || !data || data.kind() === 'string') continue;
      const compiled = (where: SgNode | undefined) =>
        where
          ?.findAll({ rule: { kind: 'assignment', has: { field: 'left', regex: `^${receiver}$` } } } as never)
          .map((a) => a.field('right'))
          .find((r) => r?.kind() === 'call' && /^(?:re|regex)\.compile$/.test(r.field('function')?.text() ?? ''));
      const made = compiled(scope) ?? compiled(root);
      pattern = made ? regexLiteralOf(made.field('arguments')?.children().find((c) => c.isNamed()), root, scope) : undefined;
    }
    if (pattern === undefined || !backtracksCatastrophically(pattern)) continue;
    findings.push({
      finding: {
        checkId: 'python.deep.dos.catastrophic-regex',
        severity: 'medium',
        category: 'dos',
        cwe: [CWE[1333]],
        title: 'Regular expression with catastrophic backtracking',
        message:
          `The pattern ${JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 77)}...` : pattern)} repeats a group that itself ` +
          'repeats, so a crafted input of a few dozen characters makes matching take exponential time and holds a worker. Rewrite ' +
          'it without nested repetition, bound the input length, or use a linear-time engine (google-re2).',
        path: file.path,
        startLine: lineOf(call),
        endLine: endLineOf(call),
        text: call.text(),
      },
    });
  }
  return findings;
}

const FILE_CHECKS = [errorDetailsToClient, plaintextPasswordStorage, plaintextPasswordColumn, passwordInSerializedOutput, objectByIdWithoutOwnership, catastrophicRegex];

/**
 * Every whole-application finding of a project's Python files; `hotspots` are the static analysis's serious
 * findings. Each file is parsed once: the checks that read its tree run while the model is built, and what
 * they find is kept once the rest of the program shows it holds.
 */
export async function checkPythonSources(
  sources: PythonSource[],
  hotspots: Hotspots = {},
  operations: DeclaredOperation[] = [],
): Promise<{ findings: ApplicationFinding[]; program: PythonProgram }> {
  const candidates: Candidate[] = [];
  const visit = (file: PythonFile, root: SgNode, handlers: Handler[]) => {
    for (const check of FILE_CHECKS) candidates.push(...check({ file, root, handlers }));
  };
  const program = await buildPythonProgram(sources, visit, operations);
  const projectCode = program.files.map((f) => f.code).join('\n');
  const hashesPasswords = HASHES_PASSWORD.test(projectCode.replace(/\b(?:md5|sha\d+|hashlib)\b/g, ''));
  const counted = new Set(program.handlers);
  const holds = ({ handler, needs }: Candidate) =>
    (!handler || counted.has(handler)) &&
    (needs !== 'guarded' || handler?.guarded === true) &&
    (needs !== 'handlers-anywhere' || program.handlers.length > 0) &&
    (needs !== 'no-password-hashing' || !hashesPasswords);
  const findings = [
    ...loginWithoutAttemptLimit(program, projectCode),
    ...missingCsrfProtection(program, projectCode),
    ...missingAuthentication(program, hotspots),
    ...candidates.filter(holds).map((c) => c.finding),
  ];
  findings.sort((a, b) => a.path.localeCompare(b.path) || a.startLine - b.startLine || a.checkId.localeCompare(b.checkId));
  return { findings, program };
}
