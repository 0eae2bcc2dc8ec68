import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { httpsEvidence, scriptReadingCookie } from '../app-facts.ts';
import { refuse, type Codemod, type CodemodContext, type CodemodEdit } from '../codemod.ts';
import { expressSameSite } from '../cookie-facts.ts';
import { appendArguments, argumentsOf, functionAround, replace } from '../edit-kit.ts';

// res.cookie(name, value[, options]) and session cookie options → the flags the app can take:
// - secure: true where the repository shows the app is served over HTTPS; otherwise `req.secure` for a
//   cookie set in a handler (Secure when the request came over HTTPS, as before over plain HTTP) and
//   express-session's documented "auto" for its cookie. cookie-session already sets Secure on HTTPS by
//   default and throws when told to over HTTP, so there it is left to the deployment.
// - httpOnly: true unless a script of the app's pages reads that cookie from document.cookie.
// - sameSite: "lax" where the declared express (4.14), express-session (1.14) or cookie-session (1.3) has it.
// Flags already set stay as written unless they turn protection off; each one added is named in the note.

const OFF = /^(false|!1|0)$/;
type Flag = 'secure' | 'httpOnly' | 'sameSite';

function pairNamed(object: SgNode, name: string): SgNode | undefined {
  return object.children().find((c) => kindOf(c) === 'pair' && fieldOf(c, 'key')?.text().replace(/['"]/g, '') === name);
}

function stringValue(node: SgNode | undefined | null): string | null {
  return node && kindOf(node) === 'string' ? node.text().slice(1, -1) : null;
}

interface Cookie {
  kind: 'response' | 'express-session' | 'cookie-session';
  /** The options object (null for res.cookie(name, value)), and the call that sets the cookie. */
  options: SgNode | null;
  call: SgNode;
  name: string | null;
}

function cookieOf(match: SgNode): Cookie | string {
  let node: SgNode | null = match;
  if (kindOf(node) === 'pair') node = node.parent(); // a flag inside the session's cookie: { … }
  if (node && kindOf(node) === 'call_expression') {
    const fn = fieldOf(node, 'function')!.text();
    if (/^(session|expressSession|cookieSession)$/.test(fn)) return 'the session middleware has no cookie options to set the flags in';
    if (argumentsOf(node).length !== 2) return 'the cookie call is not res.cookie(name, value)';
    return { kind: 'response', options: null, call: node, name: stringValue(argumentsOf(node)[0]) };
  }
  if (!node || kindOf(node) !== 'object') return 'the cookie options are not an object literal';
  const outer = node.parent()?.parent();
  if (outer && kindOf(outer) === 'call_expression') return { kind: 'response', options: node, call: outer, name: stringValue(argumentsOf(outer)[0]) };
  // cookie: { … } inside session({ … })
  const sessionOptions = node.parent()?.parent();
  const sessionCall = sessionOptions?.parent()?.parent();
  if (!sessionOptions || !sessionCall || kindOf(sessionCall) !== 'call_expression') return 'the cookie options are not passed to res.cookie() or a session middleware';
  const cookieSession = fieldOf(sessionCall, 'function')!.text() === 'cookieSession';
  const name = stringValue(pairNamed(sessionOptions, 'name') ? fieldOf(pairNamed(sessionOptions, 'name')!, 'value') : null);
  return { kind: cookieSession ? 'cookie-session' : 'express-session', options: node, call: sessionCall, name: name ?? (cookieSession ? 'session' : 'connect.sid') };
}

/** The request parameter of the Express handler around a call: `(req, res) => …`. */
function requestParameter(call: SgNode): string | null {
  const handler = functionAround(call);
  const params = handler ? (fieldOf(handler, 'parameters') ?? fieldOf(handler, 'parameter')) : null;
  const first = params ? (kindOf(params) === 'identifier' ? params : params.children().find((c) => c.isNamed())) : null;
  return first && kindOf(first) === 'identifier' && first.text() !== fieldOf(call, 'function')!.text().split('.')[0] ? first.text() : null;
}

async function secureValue(cookie: Cookie, context: CodemodContext): Promise<{ value: string; effect: string } | string> {
  const https = await httpsEvidence(context);
  if (https) return { value: 'true', effect: `secure: browsers send it over HTTPS only (the app is served over HTTPS: ${https})` };
  const why = 'nothing in the repository shows the app is served over HTTPS, and browsers drop a Secure cookie over plain HTTP';
  if (cookie.kind === 'express-session') return { value: '"auto"', effect: `secure: "auto": Secure when the request came over HTTPS, as before over plain HTTP (${why}; behind a TLS proxy, app.set("trust proxy", …) lets it see HTTPS)` };
  if (cookie.kind === 'cookie-session') return `${why}; cookie-session already marks its cookie Secure over HTTPS and throws when told to over HTTP, so remove secure: false once the site is served over HTTPS`;
  const request = requestParameter(cookie.call);
  if (!request) return `${why}, and the cookie is not set in a handler whose request tells whether it came over HTTPS`;
  return { value: `${request}.secure`, effect: `secure: ${request}.secure: Secure when the request came over HTTPS, as before over plain HTTP (${why}; behind a TLS proxy, app.set("trust proxy", …) lets Express see HTTPS)` };
}

export const javascriptCookieFlags: Codemod = {
  name: 'javascript/cookie-flags',
  rules: ['javascript.express.cookie.insecure-cookie', 'javascript.express.cookie.missing-httponly'],
  async rewrite(context) {
    const cookie = cookieOf(context.node!);
    if (typeof cookie === 'string') return refuse(cookie);
    const wanted: Flag = context.rule.endsWith('missing-httponly') ? 'httpOnly' : 'secure';
    const values: Partial<Record<Flag, { value: string; effect: string }>> = {};
    const left: string[] = [];

    const secure = await secureValue(cookie, context);
    if (typeof secure !== 'string') values.secure = secure;
    else if (wanted === 'secure') return refuse(secure);

    const reader = cookie.name ? await scriptReadingCookie(context, cookie.name) : null;
    if (!reader) values.httpOnly = { value: 'true', effect: 'httpOnly: scripts on the page can no longer read it' };
    else if (wanted === 'httpOnly') return refuse(`${reader} reads the ${cookie.name} cookie from document.cookie, which httpOnly would stop; move that value to a header or the page first`);
    else left.push(`httpOnly left off: ${reader} reads the ${cookie.name} cookie from document.cookie`);

    const current = (flag: Flag) => (cookie.options ? pairNamed(cookie.options, flag) : undefined);
    const sameSiteMissing = !current('sameSite') || OFF.test(fieldOf(current('sameSite')!, 'value')!.text());
    if (sameSiteMissing) {
      const support = await expressSameSite(context, cookie.kind === 'response' ? 'express' : cookie.kind);
      if (support.declaredBelow) return refuse(`the repository declares ${support.declaredBelow}, whose cookies have no sameSite option (added in ${support.framework} ${support.since}); upgrade it first or set the flags by hand`);
      values.sameSite = { value: '"lax"', effect: 'sameSite: "lax": other sites\' forms and requests no longer carry it, links to the app still do' };
    }

    const edits: CodemodEdit[] = [];
    const added: string[] = [];
    const effects: string[] = [];
    for (const flag of ['httpOnly', 'secure', 'sameSite'] as Flag[]) {
      const want = values[flag];
      if (!want) continue;
      const pair = current(flag);
      if (!pair) added.push(`${flag}: ${want.value}`);
      else if (OFF.test(fieldOf(pair, 'value')!.text())) edits.push(replace(fieldOf(pair, 'value')!, want.value));
      else continue;
      effects.push(want.effect);
    }
    if (!cookie.options) edits.push(appendArguments(cookie.call, [`{ ${added.join(', ')} }`], context.text));
    else if (added.length) {
      const pairs = cookie.options.children().filter((c) => c.isNamed() && kindOf(c) !== 'comment');
      if (!pairs.length) edits.push(replace(cookie.options, `{ ${added.join(', ')} }`));
      else {
        const last = pairs.at(-1)!;
        const end = last.range().end.index;
        // An object written one pair a line gets one added pair a line, at the same indentation.
        const multiline = cookie.options.range().start.line !== last.range().start.line;
        const indent = multiline ? /^[ \t]*/.exec(context.text.slice(context.text.lastIndexOf('\n', last.range().start.index) + 1))![0] : '';
        const trailingComma = context.text[end] === ',';
        const at = trailingComma ? end + 1 : end;
        const text = multiline ? `${trailingComma ? '' : ','}${added.map((a) => `\n${indent}${a}`).join(',')}${trailingComma ? ',' : ''}` : `, ${added.join(', ')}`;
        edits.push({ start: at, end: at, text });
      }
    }
    if (!edits.length) return refuse('the cookie already has every flag the app can take');
    const name = cookie.name ? ` ${cookie.name}` : '';
    return { edits, note: `Set the cookie${name} with ${effects.join('; ')}.${left.length ? ` ${left.join('; ')}.` : ''}` };
  },
};
