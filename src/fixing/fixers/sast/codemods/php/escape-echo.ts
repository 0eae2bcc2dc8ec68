import type { SgNode } from '@ast-grep/napi';
import { kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { replace } from '../edit-kit.ts';

// Request data echoed into a page → htmlspecialchars($value, ENT_QUOTES, 'UTF-8'): text without markup
// characters prints as before; <, >, &, and quotes print as text instead of being read as HTML.

/** The whole value read from the superglobal: `$_GET['a']['b']`, not just `$_GET`. */
function valueRead(variable: SgNode): SgNode {
  let value = variable;
  for (let parent = value.parent(); parent && kindOf(parent) === 'subscript_expression'; parent = parent.parent()) value = parent;
  return value;
}

export const phpEscapeEcho: Codemod = {
  name: 'php/escape-echo',
  rules: ['php.lang.xss.echo-superglobal'],
  rewrite({ node }) {
    const value = valueRead(node!);
    for (let n = value.parent(); n; n = n.parent()) {
      if (kindOf(n) === 'encapsed_string' || kindOf(n) === 'heredoc') {
        return refuse('the value is interpolated inside a string; concatenate htmlspecialchars() of it instead');
      }
    }
    return {
      edits: [replace(value, `htmlspecialchars(${value.text()}, ENT_QUOTES, 'UTF-8')`)],
      note: 'Escaped the request value for HTML with htmlspecialchars(..., ENT_QUOTES, \'UTF-8\').',
    };
  },
};
