import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { httpsEvidence, scriptReadingCookie } from '../app-facts.ts';
import { refuse, type Codemod, type CodemodEdit } from '../codemod.ts';
import { pythonSameSite } from '../cookie-facts.ts';
import { appendArguments, argumentsOf, keywordArgument, replace } from '../edit-kit.ts';

// set_cookie(name, value, …) of a cookie that authenticates → the same cookie with the flags the app can
// take: secure=True where the repository shows the app is served over HTTPS (Secure on plain HTTP makes
// browsers drop the cookie, which logs everyone out); httponly=True unless a script of the app's pages
// reads that cookie from document.cookie; samesite="Lax" where the framework version declared takes it
// (Django 2.1, Werkzeug 0.14, aiohttp 3.7). Flags already set stay as written unless they turn
// protection off. Each flag added is named in the note with what it changes.

/** The cookie's name when it is written as a string literal. */
function cookieName(call: ReturnType<typeof fieldOf>): string | null {
  const named = keywordArgument(call!, 'key');
  const first = named ? fieldOf(named, 'value') : argumentsOf(call!)[0];
  if (!first || kindOf(first) !== 'string' || first.find({ rule: { kind: 'interpolation' } } as never)) return null;
  return first.text().replace(/^[rbuRBU]*(['"])(.*)\1$/s, '$2');
}

export const pythonSecureCookie: Codemod = {
  name: 'python/secure-cookie',
  rules: ['python.flask.cookie.insecure-cookie'],
  async rewrite(context) {
    const call = context.node!;
    const https = await httpsEvidence(context);
    if (!https) {
      return refuse(
        'nothing in the repository shows the app is served over HTTPS (no HTTPS redirect, HSTS, Secure session setting or TLS configuration), ' +
          'and browsers drop a Secure cookie over plain HTTP, which would sign every user out; pass secure=True (or secure=request.is_secure) once the site is served over HTTPS',
      );
    }
    const samesite = await pythonSameSite(context, context.text);
    const wantsSameSite = !keywordArgument(call, 'samesite') || /^(None|False)$/.test(fieldOf(keywordArgument(call, 'samesite')!, 'value')?.text() ?? '');
    if (wantsSameSite && samesite.declaredBelow) {
      return refuse(`the repository declares ${samesite.declaredBelow}, whose set_cookie() has no samesite argument (added in ${samesite.framework} ${samesite.since}); upgrade it first or set the flags by hand`);
    }
    const name = cookieName(call);
    const reader = name ? await scriptReadingCookie(context, name) : null;
    const flags: [flag: string, value: string, effect: string][] = [
      ['secure', 'True', `Secure: browsers send it over HTTPS only (the app is served over HTTPS: ${https})`],
      ...(reader ? [] : [['httponly', 'True', 'HttpOnly: scripts on the page can no longer read it'] as [string, string, string]]),
      ['samesite', '"Lax"', 'SameSite=Lax: other sites\' forms and requests no longer carry it, links to the app still do'],
    ];
    const edits: CodemodEdit[] = [];
    const added: string[] = [];
    const effects: string[] = [];
    for (const [flag, value, effect] of flags) {
      const existing = keywordArgument(call, flag);
      const current = existing ? fieldOf(existing, 'value') : null;
      if (!current) added.push(`${flag}=${value}`);
      else if (current.text() === 'False' || current.text() === 'None') edits.push(replace(current, value));
      else continue;
      effects.push(effect);
    }
    if (added.length) edits.push(appendArguments(call, added, context.text));
    const kept = reader ? ` HttpOnly left off: ${reader} reads the ${name} cookie from document.cookie.` : '';
    return { edits, note: `Set the cookie${name ? ` ${name}` : ''} with ${effects.join('; ')}.${kept}` };
  },
};
