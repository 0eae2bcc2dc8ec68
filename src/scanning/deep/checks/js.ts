import type { SgNode } from '@ast-grep/napi';
import { backtracksCatastrophically, catastrophicRegexFinding } from './regex-dos.ts';
import { ADMIN_ONLY, CWE, endLineOf, lineOf, type Candidate, type FileContext } from './shared.ts';

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

const LOOKUP = /\.(?:findById|findByPk|findOne|findUnique|findFirst|findByIdAndUpdate|findByIdAndDelete|findOneAndUpdate|findOneAndDelete|getById|destroy|deleteOne|updateOne)\s*\(/;
/** An id the caller puts in the URL (a lookup by what a form sends, as a sign-in does, is another matter). */
const ID_FROM_REQUEST = /\b(?:req|request|ctx)\.(?:params|query)\.(?:\w*[iI]d|_id|pk|uuid)\b|\bparams\.(?:\w*[iI]d)\b/;
const OWNERSHIP = /req(?:uest)?\.user|ctx\.state\.user|session\.user|\bowner|\bauthor|\buserId\s*:|\buser\s*:|created_?by|currentUser/i;

/** A signed-in user's handler that fetches a record by an id from the request with no owner scope or check. */
export function objectByIdWithoutOwnershipJs({ root, handlers }: FileContext): Candidate[] {
  const findings: Candidate[] = [];
  for (const h of handlers) {
    if (ADMIN_ONLY.test(h.name) || ADMIN_ONLY.test(h.paths.join(' '))) continue;
    if (h.body.split('\n').some((line) => /[!=]==?/.test(line) && OWNERSHIP.test(line))) continue;
    const lookup = root
      .findAll({ rule: { kind: 'call_expression' } } as never)
      .find((call) => lineOf(call) >= h.defLine && lineOf(call) <= h.endLine && LOOKUP.test(call.text().split('(')[0] + '(') && ID_FROM_REQUEST.test(call.text()) && !OWNERSHIP.test(call.text()));
    if (!lookup) continue;
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
          `${h.name} looks a record up by an id the caller sends and never checks that it belongs to the signed-in user, so any ` +
          "user can read or change another's records by changing the id. Scope the query to req.user or check ownership first.",
        path: h.file.path,
        startLine: lineOf(lookup),
        endLine: lineOf(lookup),
        text: lookup.text(),
      },
    });
  }
  return findings;
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
