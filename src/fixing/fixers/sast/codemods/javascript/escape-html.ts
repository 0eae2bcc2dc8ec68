import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { argumentsOf, jsHelper, replace } from '../edit-kit.ts';
import { soleDeclaration } from './strings.ts';

// HTML built from values and sent (res.send("<p>" + q + "</p>"), a template literal with ${q}) → the same
// HTML with each value escaped where it is put in, through an escapeHtml() helper added to the module.
// Text without markup characters renders the same. A value that may itself be markup (a helper call, a
// variable named like a fragment) is refused: escaping it would show its tags as text.

export const ESCAPE_HELPER = 'escapeHtml';

const helperSource = (typed: boolean) => String.raw`
function ${ESCAPE_HELPER}(value${typed ? ': unknown' : ''})${typed ? ': string' : ''} {
  // The value as text in HTML: markup characters become entities, so it cannot add tags or attributes.
  return String(value).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");
}
`;

/** Names of values that hold markup or fixed text built elsewhere. */
const MARKUP_NAME = /(^|[_.])(html|template|content|body|page|markup|header|footer|row|rows|table|layout|partial|fragment)s?$|(Html|Template|Markup|Fragment|Row|Rows|Table|Page|Layout|Partial)$/;
/** Calls whose result is text: conversions and reads of request data. */
const TEXT_CALL = /^(String|Number|parseInt|parseFloat|encodeURIComponent|(req|request)\.(get|header|param)|[\w.]+\.(toString|toFixed|trim|toLowerCase|toUpperCase))$/;
const VALUE_KINDS = new Set(['identifier', 'member_expression', 'subscript_expression', 'call_expression', 'number']);

/** Whether a value is data to escape (true), already text-safe (false), or may be markup (null). */
function isData(value: SgNode): boolean | null {
  const kind = kindOf(value);
  if (kind === 'number') return false;
  if (!VALUE_KINDS.has(kind)) return null;
  if (kind === 'call_expression') {
    const callee = fieldOf(value, 'function')?.text() ?? '';
    if (/(^|\.)(escape|escapeHtml|escapeHTML|htmlEscape|encode)$/.test(callee)) return false;
    if (!TEXT_CALL.test(callee)) return null;
    return true;
  }
  return MARKUP_NAME.test(value.text()) ? null : true;
}

/** The values put into the HTML an expression builds, or why they cannot be told apart from its markup. */
function valuesOf(builder: SgNode): SgNode[] | string {
  const kind = kindOf(builder);
  if (kind === 'parenthesized_expression') return valuesOf(builder.namedChildren()[0]!);
  if (kind === 'string') return [];
  if (kind === 'template_string') {
    const values: SgNode[] = [];
    for (const substitution of builder.namedChildren().filter((c) => kindOf(c) === 'template_substitution')) {
      const value = substitution.namedChildren()[0]!;
      const verdict = isData(value);
      if (verdict === null) return MAY_BE_MARKUP;
      if (verdict) values.push(value);
    }
    return values;
  }
  if (kind === 'binary_expression' && fieldOf(builder, 'operator')?.text() === '+') {
    const left = valuesOf(fieldOf(builder, 'left')!);
    if (typeof left === 'string') return left;
    const right = valuesOf(fieldOf(builder, 'right')!);
    return typeof right === 'string' ? right : [...left, ...right];
  }
  const verdict = isData(builder);
  if (verdict === null) return MAY_BE_MARKUP;
  return verdict ? [builder] : [];
}

const MAY_BE_MARKUP = 'a value put into the HTML may itself be markup (a helper call, a template or a fragment), so escaping it would change the page';

/** The expression whose HTML the reported sink sends or builds. */
function builderOf(node: SgNode): SgNode | null {
  if (kindOf(node) !== 'call_expression') return node;
  const body = argumentsOf(node)[0];
  return body ?? null;
}

export const javascriptEscapeHtml: Codemod = {
  name: 'javascript/escape-html',
  rules: ['javascript.express.xss.response-from-request'],
  rewrite({ node, root, text, parser }) {
    const builder = builderOf(node!);
    if (!builder) return refuse('the response body is not an argument of the call');
    let values: SgNode[] | string;
    let related: SgNode | undefined;
    if (kindOf(builder) === 'identifier') {
      // `const page = "<p>" + q + "</p>"; res.send(page)`: the values are escaped where the HTML is built;
      // `const q = req.query.q; res.send(q)`: the value itself is escaped where it is sent.
      const declared = soleDeclaration(builder, node!);
      if (!declared) return refuse(`the HTML in ${builder.text()} is built elsewhere; escape the values where it is assembled`);
      const buildsHtml = ['binary_expression', 'template_string', 'parenthesized_expression'].includes(kindOf(declared.value));
      values = buildsHtml ? valuesOf(declared.value) : isData(declared.value) === true ? [builder] : MAY_BE_MARKUP;
      if (buildsHtml) related = declared.declaration;
    } else values = valuesOf(builder);
    if (typeof values === 'string') return refuse(values);
    if (!values.length) return refuse('no value put into the HTML here can be told apart from the markup');
    return {
      edits: [
        ...values.map((v) => ({ ...replace(v, `${ESCAPE_HELPER}(${v.text()})`), ...(related ? { related } : {}) })),
        ...jsHelper(root!, text, parser, ESCAPE_HELPER, helperSource, node!),
      ],
      note: `Escaped ${values.length} value(s) put into the HTML (${ESCAPE_HELPER}), so markup in them is shown as text.`,
    };
  },
};
