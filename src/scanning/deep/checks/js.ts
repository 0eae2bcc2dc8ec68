import type { SgNode } from '@ast-grep/napi';
import { backtracksCatastrophically, catastrophicRegexFinding } from './regex-dos.ts';
import { ADMIN_ONLY, CWE, endLineOf, isLoginHandler, lineOf, type Candidate, type FileContext } from './shared.ts';

// Per-file checks of JavaScript and TypeScript entry points: exception details in responses, records
// fetched by a caller-chosen id without an ownership check, and regular expressions that backtrack
// catastrophically.

/** Writes a response: Express `res.*`, Koa `ctx.body =`, Fastify `reply.send`, Next.js `NextResponse`/`Response.json`. */
const RESPONDS = /\b(?:res|response|reply)\s*(?:\.status\([^)]*\))?\.(?:send|json|end|write|render|jsonp)\s*\(|\bctx\.body\s*=|\b(?:NextResponse|Response)\.json\s*\(|new\s+Response\s*\(/;
const LOGS = /^\s*(?:console|logger|log)\.\w+\s*\(/;

/** `catch (e) { res.status(500).send(e.message) }` and error middleware `(err, req, res, next) => res.send(err.stack)`. */
export function errorDetailsToClientJs({ file, root, handlers }: FileContext): Candidate[] {
  if (!handlers.length && !/\(\s*err\w*\s*,\s*req\w*\s*,\s*res\w*\s*,\s*next\s*\)/.test(file.code)) return [];
  const findings: Candidate[] = [];
  const report = (statement: SgNode) =>
    findings.push({
      finding: {
        checkId: 'javascript.deep.errors.error-details-to-client',
        severity: 'medium',
        category: 'sensitive-data',
        cwe: [CWE[209]],
        title: 'Exception details are sent to the client',
        message:
          'The text of a caught error (its message or stack) goes into the response. Error messages of databases and libraries ' +
          'disclose queries, paths, versions and data that help an attacker. Log the details on the server and answer with a generic message.',
        path: file.path,
        startLine: lineOf(statement),
        endLine: endLineOf(statement),
        text: statement.text(),
      },
    });
  const leaking = (name: string) => new RegExp(`(?:[(,:{]|\\$\\{|\\+)\\s*(?:String\\(\\s*)?${name}(?:\\.(?:message|stack|toString\\(\\)|sqlMessage|errors))?\\s*\\)?\\s*(?:[),}]|\\+|$)`);
  for (const clause of root.findAll({ rule: { kind: 'catch_clause' } } as never)) {
    const name = clause.field('parameter')?.text();
    if (!name || !/^[A-Za-z_$][\w$]*$/.test(name)) continue;
    const hit = clause.field('body')?.findAll({ rule: { kind: 'expression_statement' } } as never).find((s) => RESPONDS.test(s.text()) && !LOGS.test(s.text()) && leaking(name).test(s.text()));
    if (hit) report(hit);
  }
  // Express error-handling middleware: four parameters, the first the error.
  for (const fn of root.findAll({ rule: { any: [{ kind: 'arrow_function' }, { kind: 'function_expression' }, { kind: 'function_declaration' }] } } as never)) {
    const params = fn.field('parameters')?.children().filter((c) => c.isNamed()) ?? [];
    if (params.length !== 4 || !/^err/.test(params[0].text())) continue;
    const name = params[0].text();
    const hit = fn.field('body')?.findAll({ rule: { kind: 'expression_statement' } } as never).find((s) => RESPONDS.test(s.text()) && /\.(?:stack|message)\b/.test(s.text()) && leaking(name).test(s.text()));
    if (hit && !findings.some((f) => f.finding.startLine === lineOf(hit))) report(hit);
  }
  return findings;
}

/** Request fields that name one record: ids, and the user names that key a user's records. */
const KEY_FIELD = /^(?:id|_id|pk|uuid|guid|\w*(?:Id|_id|ID|Uuid|_uuid)|user|username|userName|user_name|account|owner)$/;
/**
 * Where a request carries the fields the caller chooses: Express, Koa, Fastify and hapi; a Next.js route's
 * `params` (its second argument, awaited in Next 15) and URL search parameters.
 */
const REQUEST_OBJECT = /(?:\b(?:req|request|ctx(?:\.request)?)\.(?:params|query|body|payload)|\b(?:context|ctx|props)\.params|\(\s*await\s+params\s*\))/;
const REQUEST_FIELD = new RegExp(`(?:${REQUEST_OBJECT.source}|\\bparams)(?:\\.(\\w+)|\\[\\s*['"](\\w+)['"]\\s*\\])|\\bsearchParams\\.get\\(\\s*['"](\\w+)['"]\\s*\\)`, 'g');
/** Values that only convert what they are given: `parseInt(req.params.id, 10)`, `new ObjectId(id)`. */
const CONVERSION = /^(?:parseInt|Number|String|BigInt|ObjectId|new\s+ObjectId|(?:mongoose\.)?Types\.ObjectId|new\s+(?:mongoose\.)?Types\.ObjectId)\s*\(/;
/** The request field a value is, when it is one (converted, or with a default): its key. */
function requestFieldOf(value: string): string | undefined {
  let text = value.trim().replace(/^await\s+/, '').replace(/\s*(?:\|\||\?\?)[^]*$/, '');
  if (CONVERSION.test(text)) text = text.replace(CONVERSION, '').replace(/(?:,\s*\d+\s*)?\)$/, '').trim();
  const m = new RegExp(`^(?:${REQUEST_FIELD.source})$`).exec(text);
  return m ? (m[1] ?? m[2] ?? m[3]) : undefined;
}
const fieldsReadIn = (text: string) => [...text.matchAll(REQUEST_FIELD)].map((m) => m[1] ?? m[2] ?? m[3]);
/** Who is calling: the signed-in user or session, as the frameworks and their auth libraries hand it over. */
const CALLER =
  /\breq(?:uest)?\.(?:user|session|auth|userId|currentUser)\b|\bctx\.state\.(?:user|auth)|\bres\.locals\.(?:user|auth)|\bcurrentUser\b|\bgetServerSession\b|\bsession\.(?:user|userId)\b|@(?:CurrentUser|User|Req)\b/;
/** An explicit check of the caller's right to the record. */
const ACCESS_CHECK = /\b(?:authorize|checkOwner\w*|isOwner|assertOwner\w*|ensureOwner\w*|canAccess\w*|checkAccess|checkPermission\w*|hasPermission|verifyOwner\w*|ability\.can|can)\s*\(/;
const OWNER_WORD = /\b(?:owner|author|creator|createdBy|created_by|userId|user_id)\b/i;
/** ORM and driver calls that read, change or delete records by what they are given. */
const ORM_LOOKUP =
  /\.(?:find|findAll|findOne|findById|findByPk|findUnique|findUniqueOrThrow|findFirst|findFirstOrThrow|findMany|findOneBy|findBy|findOneOrFail|findOneByOrFail|findByIdAndUpdate|findByIdAndDelete|findByIdAndRemove|findOneAndUpdate|findOneAndDelete|findOneAndRemove|update|updateOne|updateMany|delete|deleteOne|deleteMany|destroy|remove|upsert|getById)$/;
/** A project's own data access (DAOs, services, models): named for reading or changing a record. */
const DATA_HELPER = /(?:^|\.)(?:get|find|fetch|load|read|retrieve|lookup|update|delete|remove|destroy|edit|change|modify|patch|save|set)[A-Z_]\w*$/;
/** Receivers whose methods are not data access: the request and response, and the language's own objects. */
const NOT_DATA = /^(?:req|request|res|response|reply|ctx|console|JSON|Object|Math|Array|Promise|Reflect|Number|String|Date|localStorage|sessionStorage)\b|\.(?:searchParams|headers|cookies|query|params|body)\./;
/** Raw SQL that selects, changes or deletes rows by a key the statement names. */
const RAW_QUERY = /\.(?:query|execute|one|oneOrNone|many|manyOrNone|any|none|all|get|run)$/;
const SQL_BY_KEY = /\bwhere\b[^'"`]*\b\w*(?:id|name)\b\s*=/i;

/** The names a handler binds to request fields that name a record: `const { userId } = req.params`, `const id = req.query.id`. */
function keysBoundIn(fn: SgNode): Set<string> {
  const names = new Set<string>();
  for (const d of fn.findAll({ rule: { kind: 'variable_declarator' } } as never)) {
    const target = d.field('name');
    const value = d.field('value')?.text() ?? '';
    if (!target) continue;
    if (target.kind() === 'identifier') {
      const field = requestFieldOf(value);
      if (field && KEY_FIELD.test(field)) names.add(target.text());
      continue;
    }
    // `const { userId, threshold } = req.params`, `const { id: noteId } = req.query`
    if (target.kind() !== 'object_pattern' || !new RegExp(`^(?:await\\s+)?(?:${REQUEST_OBJECT.source}|params)$`).test(value.trim())) continue;
    for (const part of target.children().filter((c) => c.isNamed())) {
      const key = part.kind() === 'pair_pattern' ? part.field('key')?.text() : part.text().split('=')[0].trim();
      const bound = part.kind() === 'pair_pattern' ? part.field('value')?.text() : key;
      if (key && bound && KEY_FIELD.test(key) && /^[\w$]+$/.test(bound)) names.add(bound);
    }
  }
  return names;
}

/** Nest parameters the route fills from the path, query or body with a key: `@Param('id') id`, `@Query('userId') userId`. */
function decoratedKeys(fn: SgNode): Set<string> {
  const names = new Set<string>();
  const params = fn.field('parameters')?.text() ?? '';
  for (const m of params.matchAll(/@(?:Param|Query|Body)\(\s*['"](\w+)['"]\s*\)\s*(\w+)/g)) if (KEY_FIELD.test(m[1])) names.add(m[2]);
  return names;
}

/** Whether an argument list passes a record key from the request: a field read in place, or a name bound to one. */
function passesKey(args: string, keys: Set<string>): boolean {
  if (fieldsReadIn(args).some((field) => KEY_FIELD.test(field))) return true;
  return (args.match(/[A-Za-z_$][\w$]*/g) ?? []).some((word) => keys.has(word));
}

/** The first call of a handler that looks a record up (or changes it) by a key the request carries. */
function lookupByRequestKey(fn: SgNode, keys: Set<string>): { call: SgNode; through: 'orm' | 'sql' | 'helper' } | undefined {
  for (const call of fn.findAll({ rule: { kind: 'call_expression' } } as never)) {
    const callee = call.field('function')?.text() ?? '';
    const args = call.field('arguments')?.text() ?? '';
    if (!/^[\w$.]+$/.test(callee) || NOT_DATA.test(callee) || !passesKey(args, keys)) continue;
    if (CALLER.test(args)) continue;
    if (ORM_LOOKUP.test(callee)) return { call, through: 'orm' };
    if (RAW_QUERY.test(callee) && SQL_BY_KEY.test(args)) return { call, through: 'sql' };
    if (DATA_HELPER.test(callee)) return { call, through: 'helper' };
  }
  return undefined;
}

/** A handler whose job is to sign in, sign up or recover an account finds it by what the caller types. */
const ACCOUNT_ENTRY = /log_?in|sign_?in|sign_?up|regist|forgot|reset|recover|verify|confirm|callback|oauth|token/i;

/**
 * A signed-in user's handler that loads, changes or deletes a record by a key the request carries (a path
 * parameter, a query argument, a form or JSON field) with nothing tying it to the caller: the lookup is not
 * scoped to req.user, and no comparison with the caller or access check follows. Any user reaches any record.
 */
export function objectByIdWithoutOwnershipJs({ root, handlers }: FileContext): Candidate[] {
  const findings: Candidate[] = [];
  for (const h of handlers) {
    const where = [h.name, ...h.paths].join(' ');
    if (ADMIN_ONLY.test(where) || ACCOUNT_ENTRY.test(where) || isLoginHandler(h)) continue;
    const fn = functionAt(root, h);
    if (!fn) continue;
    const body = fn.text();
    const compared = body.split('\n').some((line) => /[!=]==?|\.equals\s*\(/.test(line) && (CALLER.test(line) || OWNER_WORD.test(line)));
    if (compared || ACCESS_CHECK.test(body)) continue;
    const keys = new Set([...keysBoundIn(fn), ...decoratedKeys(fn)]);
    const found = lookupByRequestKey(fn, keys);
    if (!found) continue;
    const callee = found.call.field('function')?.text() ?? '';
    findings.push({
      handler: h,
      needs: 'guarded',
      finding: {
        checkId: 'javascript.deep.authz.object-by-id-without-ownership',
        severity: 'high',
        category: 'auth',
        cwe: [CWE[639]],
        title: 'Record fetched by a caller-chosen id with no ownership check',
        message:
          `${h.name} ${found.through === 'helper' ? `hands a key the caller sends to ${callee}()` : 'looks a record up by a key the caller sends'} and ` +
          "never ties it to the signed-in user, so any user can read or change another's records by changing the key. " +
          (found.through === 'helper'
            ? `Confidence is lower: ${callee}() is the project's own code, and whether it scopes the record to the caller is not visible here. `
            : '') +
          'Scope the query to the caller (req.user) or check ownership before using the record.',
        path: h.file.path,
        startLine: lineOf(found.call),
        endLine: lineOf(found.call),
        text: found.call.text(),
      },
    });
  }
  return findings;
}

/** The function node of a handler in its file's tree: the function that starts on its definition line. */
function functionAt(root: SgNode, h: { defLine: number; endLine: number }): SgNode | undefined {
  return (
    root
      .findAll({ rule: { any: [{ kind: 'arrow_function' }, { kind: 'function_expression' }, { kind: 'function_declaration' }, { kind: 'method_definition' }] } } as never)
      .find((fn) => lineOf(fn) === h.defLine && fn.range().end.line + 1 <= h.endLine) ?? undefined
  );
}

/** A web root's files are served to browsers as they are; a pattern there stalls only the visitor's own tab. */
const BROWSER_ASSETS = /(?:^|\/)(?:public|static|assets|wwwroot)\//;

/**
 * ReDoS filed under the resource-exhaustion entry npm advisories use (CWE-1333 is its narrower child): each CWE a
 * finding names is a separate claim, so it names one.
 */
const UNCONTROLLED_RESOURCE_CONSUMPTION = 'CWE-400: Uncontrolled Resource Consumption';

/**
 * Regex literals and `new RegExp("…")` with nested repetition in server code (wherever they are used: a pattern
 * is written to be run on input).
 */
export function catastrophicRegexJs({ file, root }: FileContext): Candidate[] {
  if (BROWSER_ASSETS.test(file.path)) return [];
  const findings: Candidate[] = [];
  const candidates = root.findAll({ rule: { any: [{ kind: 'regex' }, { kind: 'new_expression', has: { field: 'constructor', regex: '^RegExp$' } }] } } as never);
  for (const node of candidates) {
    const pattern =
      node.kind() === 'regex'
        ? node.field('pattern')?.text()
        : /^new\s+RegExp\(\s*(['"`])((?:\\.|(?!\1).)*)\1/.exec(node.text())?.[2]?.replace(/\\\\/g, '\\');
    if (pattern === undefined || !backtracksCatastrophically(pattern)) continue;
    const finding = catastrophicRegexFinding('javascript', pattern);
    findings.push({ finding: { ...finding, cwe: [UNCONTROLLED_RESOURCE_CONSUMPTION], path: file.path, startLine: lineOf(node), endLine: lineOf(node), text: node.text() } });
  }
  return findings;
}
