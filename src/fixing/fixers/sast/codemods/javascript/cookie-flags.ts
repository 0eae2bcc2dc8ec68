import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod, type CodemodEdit } from '../codemod.ts';
import { appendArguments, argumentsOf, replace } from '../edit-kit.ts';

// res.cookie(name, value[, options]) and session cookie options → secure: true, httpOnly: true and
// sameSite: "lax" (flags already set stay as written unless they turn protection off). The cookie keeps
// its name, value and lifetime; browsers send it over HTTPS only and scripts cannot read it.

const FLAGS: [string, string][] = [
  ['secure', 'true'],
  ['httpOnly', 'true'],
  ['sameSite', '"lax"'],
];
const OFF = /^(false|!1|0)$/;

function pairNamed(object: ReturnType<typeof fieldOf>, name: string) {
  return object?.children().find((c) => kindOf(c) === 'pair' && fieldOf(c, 'key')?.text().replace(/['"]/g, '') === name);
}

export const javascriptCookieFlags: Codemod = {
  name: 'javascript/cookie-flags',
  rules: ['javascript.express.cookie.insecure-cookie', 'javascript.express.cookie.missing-httponly'],
  rewrite({ node, text }) {
    const match = node!;
    if (kindOf(match) === 'pair') {
      const value = fieldOf(match, 'value')!;
      return { edits: [replace(value, 'true')], note: `Turned the session cookie's ${fieldOf(match, 'key')!.text()} flag on.` };
    }
    const object = kindOf(match) === 'object' ? match : null;
    if (!object) {
      if (kindOf(match) !== 'call_expression' || argumentsOf(match).length !== 2) return refuse('the cookie call is not res.cookie(name, value)');
      return {
        edits: [appendArguments(match, ['{ httpOnly: true, secure: true, sameSite: "lax" }'], text)],
        note: 'Set the cookie with Secure, HttpOnly and SameSite=Lax, so it travels over HTTPS only and scripts cannot read it.',
      };
    }
    const edits: CodemodEdit[] = [];
    const added: string[] = [];
    for (const [name, value] of FLAGS) {
      const pair = pairNamed(object, name);
      if (!pair) added.push(`${name}: ${value}`);
      else if (OFF.test(fieldOf(pair, 'value')!.text())) edits.push(replace(fieldOf(pair, 'value')!, value));
    }
    if (added.length) {
      const pairs = object.children().filter((c) => c.isNamed() && kindOf(c) !== 'comment');
      const close = object.range().end.index - 1;
      if (!pairs.length) edits.push(replace(object, `{ ${added.join(', ')} }`));
      else {
        const end = pairs.at(-1)!.range().end.index;
        edits.push({ start: end, end, text: `, ${added.join(', ')}` });
        void close;
      }
    }
    return { edits, note: 'Set the cookie with Secure, HttpOnly and SameSite=Lax, so it travels over HTTPS only and scripts cannot read it.' };
  },
};
