import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { replace } from '../edit-kit.ts';

// Request data marked HTML-safe (raw(...), ....html_safe, render html: ....html_safe) → each request value
// in it passed through ERB::Util.html_escape: the markup written in the code stays markup, and a value
// without <, >, &, or quotes prints as before; one with them prints as text instead of becoming HTML.

const INPUT_READ = /^(params|cookies|request\.(params|GET|POST|query_parameters|request_parameters|path_parameters|headers|cookies|env))\b/;
const INPUT_CALL = /^(params\.(fetch|require|dig|to_unsafe_h|values_at)|request\.(params|query_parameters|request_parameters|raw_post|body|query_string|fullpath|original_url|url|referer|referrer)\b)/;

function isInput(node: SgNode): boolean {
  const kind = kindOf(node);
  return (kind === 'element_reference' && INPUT_READ.test(node.text())) || (kind === 'call' && INPUT_CALL.test(node.text()));
}

/** The method or block around the node, where the rule looks for variables assigned from request data. */
function methodAround(node: SgNode): SgNode | null {
  for (let n = node.parent(); n; n = n.parent()) if (/^(method|singleton_method|block|do_block)$/.test(kindOf(n))) return n;
  return null;
}

/** Local variables of the method assigned from request data, as the rule's `input-var` sees them. */
function inputVariables(method: SgNode | null): Set<string> {
  const names = new Set<string>();
  if (!method) return names;
  for (const assignment of method.findAll({ rule: { kind: 'assignment' } } as never)) {
    const left = fieldOf(assignment, 'left');
    const right = fieldOf(assignment, 'right');
    if (left && kindOf(left) === 'identifier' && right && /\b(params|cookies|request)\b/.test(right.text())) names.add(left.text());
  }
  return names;
}

/** Whether the identifier names the method of a call (`x.name`) rather than a variable. */
function isMethodName(identifier: SgNode): boolean {
  const parent = identifier.parent();
  return parent !== null && kindOf(parent) === 'call' && fieldOf(parent, 'method')?.range().start.index === identifier.range().start.index;
}

/** The outermost request values inside `node`, in text order. */
function requestValues(node: SgNode, variables: Set<string>): SgNode[] {
  const found: SgNode[] = [];
  const visit = (n: SgNode) => {
    if (isInput(n) || (kindOf(n) === 'identifier' && variables.has(n.text()) && !isMethodName(n))) {
      found.push(n);
      return;
    }
    for (const child of n.children()) visit(child);
  };
  visit(node);
  return found;
}

export const rubyEscapeHtml: Codemod = {
  name: 'ruby/escape-html',
  rules: ['ruby.rails.xss.unescaped-output'],
  rewrite({ node }) {
    let site = node!;
    if (kindOf(site) === 'pair') {
      const value = fieldOf(site, 'value');
      if (!value || !/\.html_safe$/.test(value.text())) return refuse('render html: escapes a string that is not marked html_safe; nothing to change here');
      site = value;
    }
    const values = requestValues(site, inputVariables(methodAround(site)));
    if (!values.length) return refuse('no request value was found inside the HTML-safe output');
    return {
      edits: values.map((value) => replace(value, `ERB::Util.html_escape(${value.text()})`)),
      note: 'Escaped each request value with ERB::Util.html_escape before the output is marked HTML-safe.',
    };
  },
};
