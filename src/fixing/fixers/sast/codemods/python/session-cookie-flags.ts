import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { httpsEvidence, scriptReadingCookie } from '../app-facts.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { keywordArgument, pythonImport, replace } from '../edit-kit.ts';

// SESSION_COOKIE_HTTPONLY = False, app.config["SESSION_COOKIE_SECURE"] = False, RedisStorage(…, httponly=False)
// → the flag on, where the app can take it:
// - HttpOnly → True, unless a script of the app's pages reads that cookie from document.cookie (Django's
//   documented AJAX pattern reads csrftoken so): HttpOnly would break that script, so the codemod refuses.
// - Secure → True where the repository shows the app is served over HTTPS; otherwise the flag is read from
//   an environment variable of the same name, off unless set to "true", so a site served over plain HTTP
//   keeps its sessions and an HTTPS deployment turns it on without a code change. The note says which.

/** The setting's name: the assigned name or config key, or the keyword (httponly) of a session storage. */
function settingName(match: SgNode): string {
  if (kindOf(match) === 'keyword_argument') return fieldOf(match, 'name')!.text();
  const left = fieldOf(match, 'left')!;
  if (kindOf(left) === 'subscript') return fieldOf(left, 'subscript')?.text().replace(/^['"]|['"]$/g, '') ?? left.text();
  return left.text().split('.').at(-1)!;
}

/** The names the cookie a setting governs goes by: the one the file sets, else the frameworks' defaults. */
function cookieNames(setting: string, match: SgNode): string[] {
  const text = match.getRoot().root().text();
  const prefix = setting.replace(/_(HTTPONLY|SECURE)$/i, '');
  const configured = new RegExp(`${prefix}_NAME['"]?\\]?\\s*=\\s*['"]([^'"]+)['"]`).exec(text)?.[1];
  if (configured) return [configured];
  if (kindOf(match) === 'keyword_argument') {
    const named = match.parent() && keywordArgument(match.parent()!.parent()!, 'cookie_name');
    const value = named ? fieldOf(named, 'value')?.text().replace(/^['"]|['"]$/g, '') : null;
    return [value ?? 'AIOHTTP_SESSION'];
  }
  if (/^CSRF/.test(setting)) return ['csrftoken'];
  if (/^REMEMBER/.test(setting)) return ['remember_token'];
  return ['sessionid', 'session'];
}

export const pythonSessionCookieFlags: Codemod = {
  name: 'python/session-cookie-flags',
  rules: ['python.lang.session.cookie-readable-by-scripts', 'python.lang.session.cookie-sent-without-tls'],
  async rewrite(context) {
    const match = context.node!;
    const value = kindOf(match) === 'keyword_argument' ? fieldOf(match, 'value') : fieldOf(match, 'right');
    if (!value || value.text() !== 'False') return refuse('the flag is not switched off with a plain False here');
    const setting = settingName(match);

    if (!context.rule.endsWith('without-tls')) {
      for (const name of cookieNames(setting, match)) {
        const reader = await scriptReadingCookie(context, name);
        if (reader) return refuse(`${reader} reads the ${name} cookie from document.cookie, which HttpOnly would stop; move that value to a header or the page before turning HttpOnly on`);
      }
      return { edits: [replace(value, 'True')], note: `Turned ${setting} on: the cookie is kept from scripts (HttpOnly); no script of the app reads it.` };
    }

    const https = await httpsEvidence(context);
    if (https) {
      return { edits: [replace(value, 'True')], note: `Turned ${setting} on: browsers send the cookie over HTTPS only (the app is served over HTTPS: ${https}).` };
    }
    if (!/^[A-Z][A-Z0-9_]*$/.test(setting)) return refuse('the setting has no name an environment variable could carry');
    return {
      edits: [replace(value, `os.environ.get("${setting}", "false").lower() == "true"`), ...pythonImport(context.root!, context.text, 'import os', 'os')],
      note:
        `${setting} now comes from the environment variable of that name and stays off unless it is "true": nothing in the repository shows ` +
        `the app is served over HTTPS, and browsers drop a Secure cookie over plain HTTP. Set ${setting}=true where the site is served over HTTPS ` +
        'so the cookie travels over HTTPS only.',
    };
  },
};
