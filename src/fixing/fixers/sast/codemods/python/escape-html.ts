import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { newlineOf } from '../../../shared/text-edits.ts';
import { refuse, type Codemod, type CodemodEdit } from '../codemod.ts';
import { argumentsOf, functionAround, keywordArgument, pythonImport, pythonImportsModule, replace } from '../edit-kit.ts';
import { pythonTwoEvidence } from '../app-facts.ts';
import { escapingFallsShort, htmlContextAfter } from '../html-context.ts';
import { branchesOf, convertedText, htmlPieces, markupBeforeEach, type Piece } from './html-pieces.ts';

// HTML built from values → the same HTML with each value escaped where it is put in (concatenation,
// % and format() arguments, f-string fields), with the framework's own escape (Django's, MarkupSafe's in
// Flask, else html.escape); Markup(x) / mark_safe(x) → escape(x). Text without markup renders the same.
// Escaping is what makes a value safe only as text in the body or in a quoted attribute: a value put inside
// <script> or <style>, into a URL, event-handler or unquoted attribute is refused with the reason
// (html-context.ts). Markup(x) of what looks like rich text the app renders on purpose (a post's content,
// rendered Markdown) is refused: escaping it would show its tags as text; it needs a sanitizer.
// The string is read through conversions of its type (bytes(s, "utf-8"), s.encode(), str(s)) and the
// branches of a conditional; text whose line breaks are turned into <br> (`str(v).replace("\n", "<br>")`)
// is escaped before the replacement, so the added <br> stays markup.

/** Values that look like markup or fixed text built elsewhere: escaping them would show tags as text. */
const MARKUP_NAME = /(^|_)(html|template|content|body|page|markup|header|footer|row|table)s?$/i;
const CONSTANT = /^[A-Z][A-Z0-9_]*$/;
const VALUE_KINDS = new Set(['identifier', 'attribute', 'subscript', 'call', 'integer', 'float']);

interface Escaper {
  /** `asText`: the result is concatenated to or replaced in as a plain str (MarkupSafe's Markup would escape the other side). */
  wrap(expression: string, asText?: boolean): string;
  imports(root: SgNode, text: string): CodemodEdit[];
}

function escaperFor(root: SgNode): Escaper {
  if (pythonImportsModule(root, 'django')) return { wrap: (e) => `escape(${e})`, imports: (r, t) => pythonImport(r, t, 'from django.utils.html import escape', 'escape') };
  if (pythonImportsModule(root, 'flask') || pythonImportsModule(root, 'markupsafe')) return { wrap: (e, asText) => (asText ? `str(escape(${e}))` : `escape(${e})`), imports: (r, t) => pythonImport(r, t, 'from markupsafe import escape', 'escape') };
  return { wrap: (e) => `html.escape(${/^str\(/.test(e) ? e : `str(${e})`})`, imports: (r, t) => pythonImport(r, t, 'import html', 'html') };
}

/** Python 2 has no html module: cgi.escape(…, True) escapes the same characters, quotes included (gone from 3.8). */
const PYTHON2_ESCAPER: Escaper = { wrap: (e) => `cgi.escape(${/^str\(/.test(e) ? e : `str(${e})`}, True)`, imports: (r, t) => pythonImport(r, t, 'import cgi', 'cgi') };
/** Code declared for Python 2 and 3 alike: html.escape where it exists, else cgi.escape; both take quote as the second argument. */
const EITHER_PYTHON_ESCAPER: Escaper = {
  wrap: (e) => `escape_html(${/^str\(/.test(e) ? e : `str(${e})`}, True)`,
  imports: (r, t) => {
    const nl = newlineOf(t);
    return pythonImport(r, t, `try:${nl}    from html import escape as escape_html${nl}except ImportError:  # Python 2${nl}    from cgi import escape as escape_html`, 'escape_html');
  },
};

/** Whether a value is escaped already (`escape(x)`, `html.escape(x)`). */
const escapedAlready = (value: SgNode) => /(^|\.)escape\(|^escape$/.test(value.text());

/** The last name a value is read by: `name` for `user.name` or `user.name(…)`. */
const lastNameOf = (value: SgNode) => value.text().replace(/\(.*$/s, '').split('.').at(-1)!;

/** Whether a value is data to escape; null when it looks like markup, which makes the rewrite unsafe. */
function isData(value: SgNode): boolean | null {
  if (['string', 'concatenated_string', 'none', 'true', 'false'].includes(kindOf(value))) return false;
  if (!VALUE_KINDS.has(kindOf(value))) return null;
  if (kindOf(value) === 'call' && !/^(str|int|float|request\.[\w.]+\.get|[\w.]+\.get|[\w.]+\.get_argument)$/.test(fieldOf(value, 'function')?.text() ?? '')) return null;
  if (escapedAlready(value)) return false;
  const name = lastNameOf(value);
  if (kindOf(value) === 'identifier' && CONSTANT.test(name)) return false;
  if (kindOf(value) === 'identifier' && assignedMarkup(value)) return null;
  return MARKUP_NAME.test(name) ? null : true;
}

/** Line breaks (or other white space) replaced by markup: `v.replace("\n", "<br>")`. */
const WHITESPACE_LITERAL = /^[rRuU]?(["'])(\\[nrt]|[ \t])+\1$/;

/**
 * The plain text in `text.replace("\n", "<br>\n")` (and chains of such replacements): what is replaced is
 * only white space, which escaping leaves as it is, so escaping `text` first keeps the added markup.
 */
function textWithBreaks(node: SgNode): SgNode | null {
  if (kindOf(node) !== 'call') return null;
  const fn = fieldOf(node, 'function')!;
  const args = argumentsOf(node);
  if (kindOf(fn) !== 'attribute' || fieldOf(fn, 'attribute')?.text() !== 'replace' || args.length !== 2) return null;
  if (!WHITESPACE_LITERAL.test(args[0]!.text()) || kindOf(args[1]!) !== 'string' || args[1]!.children().some((c) => kindOf(c) === 'interpolation')) return null;
  const text = fieldOf(fn, 'object')!;
  return textWithBreaks(text) ?? text;
}

/** Whether the escaped value is concatenated with + or has its line breaks replaced: it must stay a plain str. */
function usedAsText(value: SgNode): boolean {
  let node = value;
  while (kindOf(node.parent()!) === 'parenthesized_expression') node = node.parent()!;
  const parent = node.parent()!;
  if (kindOf(parent) === 'binary_operator' && fieldOf(parent, 'operator')?.text() === '+') return true;
  return kindOf(parent) === 'attribute' && fieldOf(parent, 'attribute')?.text() === 'replace';
}

/** Whether a variable was assigned HTML built in its function before this use (`name = "<b>%s</b>" % x`): it is markup, escaped where it is built. */
function assignedMarkup(variable: SgNode): boolean {
  return writesOf(variable, variable).some((write) => (htmlPieces(fieldOf(write, 'right')!) ?? []).some((piece) => 'text' in piece && /<[a-zA-Z\/!]/.test(piece.text)));
}

/** The values put into an HTML string, or null when one of them may be markup. */
function valuesOf(builder: SgNode): SgNode[] | null {
  const kind = kindOf(builder);
  let candidates: SgNode[] = [];
  if (kind === 'parenthesized_expression') return valuesOf(builder.children().find((c) => c.isNamed())!);
  const converted = convertedText(builder);
  if (converted) return valuesOf(converted);
  if (kind === 'conditional_expression') {
    const [yes, no] = branchesOf(builder).map(valuesOf);
    return yes && no ? [...yes, ...no] : null;
  }
  const text = textWithBreaks(builder);
  if (text) {
    if (kindOf(text) === 'string' || escapedAlready(text)) return [];
    return MARKUP_NAME.test(lastNameOf(text)) ? null : [text];
  }
  if (kind === 'binary_operator' && fieldOf(builder, 'operator')?.text() === '+') {
    const left = valuesOf(fieldOf(builder, 'left')!);
    const right = valuesOf(fieldOf(builder, 'right')!);
    return left && right ? [...left, ...right] : null;
  }
  if (kind === 'binary_operator' && fieldOf(builder, 'operator')?.text() === '%') {
    let values = fieldOf(builder, 'right')!;
    while (kindOf(values) === 'parenthesized_expression') values = values.children().find((c) => c.isNamed())!;
    candidates = kindOf(values) === 'tuple' ? values.children().filter((c) => c.isNamed()) : [values];
  } else if (kind === 'call' && /\.format$/.test(fieldOf(builder, 'function')?.text() ?? '')) {
    candidates = argumentsOf(builder).map((a) => (kindOf(a) === 'keyword_argument' ? fieldOf(a, 'value')! : a));
  } else if (kind === 'string') {
    candidates = builder.children().filter((c) => kindOf(c) === 'interpolation').map((i) => fieldOf(i, 'expression') ?? i.children().find((c) => c.isNamed())!);
  } else if (VALUE_KINDS.has(kind) || kind === 'none') candidates = [builder];
  else return null;
  const data: SgNode[] = [];
  for (const value of candidates) {
    if (kindOf(value) === 'conditional_expression' || textWithBreaks(value)) {
      const inner = valuesOf(value);
      if (inner === null) return null;
      data.push(...inner);
      continue;
    }
    const verdict = isData(value);
    if (verdict === null) return null;
    if (verdict) data.push(value);
  }
  return data;
}

/** Why escaping would not make one of the values safe where it is put, or null. */
function contextProblem(pieces: Piece[] | null, values: SgNode[]): string | null {
  if (!pieces) return null;
  const { before } = markupBeforeEach(pieces);
  for (const value of values) {
    const markup = before.get(value.range().start.index);
    if (markup === undefined) continue;
    if (markup === null) return `${value.text()}: the markup before it depends on which branch ran earlier, so its HTML context cannot be told`;
    const problem = escapingFallsShort(htmlContextAfter(markup));
    if (problem) return `${value.text()}: ${problem}`;
  }
  return null;
}

/** A name or call that says the value is rich text the app renders on purpose. */
const RICH_TEXT = /(^|[._])(html|markup|rendered|markdown|rich_?text|wysiwyg|content|body|description|bio|article|post_text)s?$|(^|\.)(markdown|markdown2\.markdown|mistune\.\w+|bleach\.\w+|render\w*)\(/i;

/** The expression that builds the HTML a sink sends. */
function builderOf(node: SgNode): SgNode | null {
  const kind = kindOf(node);
  if (kind === 'return_statement') return node.children().find((c) => c.isNamed()) ?? null;
  if (kind === 'call' && !/\.format$/.test(fieldOf(node, 'function')?.text() ?? '')) {
    const text = keywordArgument(node, 'text') ?? keywordArgument(node, 'content');
    const first = text ? fieldOf(text, 'value') : argumentsOf(node)[0];
    return first && kindOf(first) !== 'keyword_argument' ? first : null;
  }
  return node;
}

/** The assignments to a variable in the sink's function before the sink, in order. */
function writesOf(variable: SgNode, sink: SgNode): SgNode[] {
  const scope = functionAround(sink);
  if (!scope) return [];
  return scope
    .findAll({ rule: { any: [{ kind: 'assignment' }, { kind: 'augmented_assignment' }] } } as never)
    .filter((a) => fieldOf(a, 'left')?.text() === variable.text() && a.range().end.index <= sink.range().start.index);
}

/**
 * Whether a variable is assigned on each branch (if/else, try/except) and never appended to: whichever
 * assignment runs, it holds that one's HTML.
 */
const assignedOnBranches = (writes: SgNode[]) => writes.length > 1 && writes.every((w) => kindOf(w) === 'assignment');

/**
 * The statements of the function that assemble the HTML a variable holds before the sink sends it, with
 * the data values each puts in (`html += "<p>" + name + "</p>"`); the first assignment may be the page
 * itself (a template read, a fixed string). A reason when that cannot be told.
 */
function assembledIn(variable: SgNode, sink: SgNode): { statement: SgNode; values: SgNode[] }[] | string {
  const elsewhere = `the HTML in ${variable.text()} is built elsewhere; escape the values where it is assembled`;
  const scope = functionAround(sink);
  if (!scope) return elsewhere;
  const name = variable.text();
  const writes = writesOf(variable, sink);
  if (functionAround(writes[0] ?? sink)?.id() !== scope.id() || writes.some((w) => functionAround(w)?.id() !== scope.id())) return elsewhere;
  const assembled: { statement: SgNode; values: SgNode[] }[] = [];
  // On branches, whichever assignment runs has its values escaped.
  const alternatives = assignedOnBranches(writes);
  for (const [i, write] of writes.entries()) {
    const augmented = kindOf(write) === 'augmented_assignment';
    if (augmented && write.children().find((c) => !c.isNamed())?.text() !== '+=') return elsewhere;
    if (!augmented && i > 0 && !alternatives) return `${name} is assigned more than once before it is sent, so which HTML is sent cannot be told`;
    const right = fieldOf(write, 'right')!;
    const values = valuesOf(right);
    if (values === null && i === 0 && !alternatives && ['call', 'identifier', 'attribute'].includes(kindOf(right))) continue; // the page itself
    if (values === null) return 'a value added to the HTML may itself be markup (a helper call, a template or a fragment), so escaping it would change the page';
    if (values.length) assembled.push({ statement: write, values });
  }
  return assembled.length ? assembled : elsewhere;
}

export const pythonEscapeHtml: Codemod = {
  name: 'python/escape-html',
  rules: ['python.lang.xss.response-from-request'],
  async rewrite(context) {
    const { node, root, text } = context;
    let escaper = escaperFor(root!);
    const python2 = !pythonImportsModule(root!, 'django') && !pythonImportsModule(root!, 'flask') && !pythonImportsModule(root!, 'markupsafe') ? await pythonTwoEvidence(context, text) : null;
    if (python2) escaper = python2 === 'the file uses print statements' ? PYTHON2_ESCAPER : EITHER_PYTHON_ESCAPER;
    const sink = node!;
    const fn = kindOf(sink) === 'call' ? fieldOf(sink, 'function')!.text() : '';
    if (fn === 'Markup' || fn === 'mark_safe') {
      const django = fn === 'mark_safe';
      const argument = argumentsOf(sink)[0];
      if (argument && RICH_TEXT.test(argument.text())) {
        return refuse(`${argument.text()} looks like rich text the app renders on purpose, which escaping would show as tags; sanitize it with an HTML sanitizer (nh3, bleach) where it is stored or rendered`);
      }
      const imports = django ? pythonImport(root!, text, 'from django.utils.html import escape', 'escape') : pythonImport(root!, text, 'from markupsafe import escape', 'escape');
      return { edits: [replace(fieldOf(sink, 'function')!, 'escape'), ...imports], note: `Escaped the value instead of marking it safe (${fn}).` };
    }
    const builder = builderOf(sink);
    if (!builder) return refuse('the response body is not built in this statement');
    if (kindOf(builder) === 'identifier') {
      const assembled = assembledIn(builder, sink);
      if (typeof assembled === 'string') return refuse(assembled);
      const writes = writesOf(builder, sink);
      const written = writes.map((w) => htmlPieces(fieldOf(w, 'right')!) ?? [{ text: '' }]);
      const pieces: Piece[] = assignedOnBranches(writes) ? [{ branches: written }] : written.flat();
      const problem = contextProblem(pieces, assembled.flatMap((a) => a.values));
      if (problem) return refuse(problem);
      return {
        edits: [...assembled.flatMap(({ statement, values }) => values.map((v) => ({ ...replace(v, escaper.wrap(v.text(), usedAsText(v))), related: statement }))), ...escaper.imports(root!, text)],
        note: `Escaped ${assembled.reduce((n, a) => n + a.values.length, 0)} value(s) added to the HTML in ${builder.text()}, so markup in them is shown as text.`,
      };
    }
    const values = valuesOf(builder);
    if (values === null) return refuse('a value put into the HTML may itself be markup (a helper call, a template or a fragment), so escaping it would change the page');
    if (!values.length) return refuse('no value put into the HTML here can be told apart from the markup');
    const problem = contextProblem(htmlPieces(builder), values);
    if (problem) return refuse(problem);
    return {
      edits: [...values.map((v) => replace(v, escaper.wrap(v.text(), usedAsText(v)))), ...escaper.imports(root!, text)],
      note: `Escaped ${values.length} value(s) put into the HTML, so markup in them is shown as text.`,
    };
  },
};
