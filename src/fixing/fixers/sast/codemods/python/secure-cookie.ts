import { fieldOf } from '../../../shared/syntax.ts';
import type { Codemod, CodemodEdit } from '../codemod.ts';
import { appendArguments, keywordArgument, replace } from '../edit-kit.ts';

// set_cookie(name, value, …) → the same cookie with secure=True, httponly=True and samesite="Lax"
// (flags already set stay as written unless they turn protection off). Browsers keep sending it on
// HTTPS, to the server only, and on top-level navigation from other sites.

const FLAGS: [name: string, value: string][] = [
  ['secure', 'True'],
  ['httponly', 'True'],
  ['samesite', '"Lax"'],
];

export const pythonSecureCookie: Codemod = {
  name: 'python/secure-cookie',
  rules: ['python.flask.cookie.insecure-cookie'],
  rewrite({ node, text }) {
    const call = node!;
    const edits: CodemodEdit[] = [];
    const added: string[] = [];
    for (const [name, value] of FLAGS) {
      const existing = keywordArgument(call, name);
      const current = existing ? fieldOf(existing, 'value') : null;
      if (!current) added.push(`${name}=${value}`);
      else if (current.text() === 'False' || current.text() === 'None') edits.push(replace(current, value));
    }
    if (added.length) edits.push(appendArguments(call, added, text));
    return { edits, note: 'Set the cookie with Secure, HttpOnly and SameSite=Lax, so it travels over HTTPS only and scripts cannot read it.' };
  },
};
