import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { replace } from '../edit-kit.ts';

// SESSION_COOKIE_HTTPONLY = False, app.config["SESSION_COOKIE_SECURE"] = False, RedisStorage(…, httponly=False)
// → True: the session cookie is then sent over HTTPS only and kept from scripts. Pages keep working; only a
// site served over plain HTTP loses its session with Secure on, which the note says.

export const pythonSessionCookieFlags: Codemod = {
  name: 'python/session-cookie-flags',
  rules: ['python.lang.session.cookie-readable-by-scripts', 'python.lang.session.cookie-sent-without-tls'],
  rewrite({ node, rule }) {
    const match = node!;
    const value = kindOf(match) === 'keyword_argument' ? fieldOf(match, 'value') : fieldOf(match, 'right');
    if (!value || value.text() !== 'False') return refuse('the flag is not switched off with a plain False here');
    const secure = rule.endsWith('without-tls');
    return {
      edits: [replace(value, 'True')],
      note: secure
        ? 'The session cookie is now sent over HTTPS only: a deployment served over plain HTTP would lose its sessions.'
        : 'The session cookie is now kept from scripts (HttpOnly); code that read it from JavaScript can no longer.',
    };
  },
};
