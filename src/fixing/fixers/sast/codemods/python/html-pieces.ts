import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { argumentsOf } from '../edit-kit.ts';
import { htmlContextAfter } from '../html-context.ts';

// The markup and the values of HTML built in Python, in document order: string literals (f-string text
// included) give their text, and each value put in by `+`, `%`, format() or an f-string field is a value
// piece. What markup precedes a value tells its HTML context (html-context.ts).

/** Text, a value put in, or a choice between branches (`a if c else b`), each read in the same place. */
export type Piece = { text: string } | { value: SgNode } | { branches: Piece[][] };

const BUILT = new Set(['string', 'concatenated_string', 'binary_operator', 'parenthesized_expression', 'conditional_expression']);

/** Whether a node builds a string from literal text (a literal, concatenation, %, format(), a conditional of them). */
function buildsText(node: SgNode): boolean {
  return BUILT.has(kindOf(node)) || (kindOf(node) === 'call' && /\.format$/.test(fieldOf(node, 'function')?.text() ?? ''));
}

/**
 * The string built inside a conversion that changes only its type: `bytes(s, "utf-8")`, `s.encode(…)`,
 * `str(s)`; null when the node is no such conversion of a built string.
 */
export function convertedText(node: SgNode): SgNode | null {
  if (kindOf(node) !== 'call') return null;
  const fn = fieldOf(node, 'function')!;
  const args = argumentsOf(node);
  let inner: SgNode | null | undefined = null;
  if ((fn.text() === 'bytes' || fn.text() === 'str') && args[0] && kindOf(args[0]) !== 'keyword_argument') inner = args[0];
  else if (kindOf(fn) === 'attribute' && fieldOf(fn, 'attribute')?.text() === 'encode') inner = fieldOf(fn, 'object');
  return inner && buildsText(inner) ? inner : null;
}

/** The branches of `a if c else b`, the condition left out. */
export function branchesOf(node: SgNode): [SgNode, SgNode] {
  const [first, , second] = node.children().filter((c) => c.isNamed());
  return [first!, second!];
}

const UNESCAPE: Record<string, string> = { n: '\n', t: '\t', '"': '"', "'": "'", '\\': '\\' };

function stringText(node: SgNode): Piece[] {
  const out: Piece[] = [];
  for (const child of node.children()) {
    const kind = kindOf(child);
    if (kind === 'string_content') out.push({ text: child.text() });
    else if (kind === 'escape_sequence') out.push({ text: UNESCAPE[child.text().slice(1)] ?? child.text() });
    else if (kind === 'interpolation') {
      const expression = fieldOf(child, 'expression') ?? child.children().find((c) => c.isNamed());
      if (expression) out.push({ value: expression });
    }
  }
  return out;
}

const PERCENT = /%(\([^)]*\))?[-#0 +]*(\d+|\*)?(\.\d+)?[sdrfixXeEgGcab%]/g;
const BRACES = /\{\{|\}\}|\{[^{}]*\}/g;

/** A template's text split at its placeholders, each filled by the value `fill` gives for it (null: keep the text). */
function splitTemplate(template: SgNode, pattern: RegExp, fill: (placeholder: string, index: number) => SgNode | null): Piece[] | null {
  const literal = stringText(template);
  if (literal.some((p) => 'value' in p)) return null;
  const text = literal.map((p) => ('text' in p ? p.text : '')).join('');
  const out: Piece[] = [];
  let last = 0;
  let index = 0;
  for (const m of text.matchAll(pattern)) {
    if (m[0] === '%%' || m[0] === '{{' || m[0] === '}}') continue;
    out.push({ text: text.slice(last, m.index) });
    const value = fill(m[0], index++);
    out.push(value ? { value } : { text: 'x' });
    last = m.index! + m[0].length;
  }
  out.push({ text: text.slice(last) });
  return out;
}

/** The pieces of an HTML builder, or null when its markup cannot be read (a template from elsewhere). */
export function htmlPieces(node: SgNode): Piece[] | null {
  const kind = kindOf(node);
  const converted = convertedText(node);
  if (converted) return htmlPieces(converted);
  if (kind === 'conditional_expression') {
    const branches = branchesOf(node).map(htmlPieces);
    return branches.every((b) => b) ? [{ branches: branches as Piece[][] }] : null;
  }
  if (kind === 'string') return stringText(node);
  if (kind === 'concatenated_string') return node.children().filter((c) => kindOf(c) === 'string').flatMap(stringText);
  if (kind === 'parenthesized_expression') {
    const inner = node.children().find((c) => c.isNamed());
    return inner ? htmlPieces(inner) : null;
  }
  if (kind === 'binary_operator' && fieldOf(node, 'operator')?.text() === '+') {
    const left = htmlPieces(fieldOf(node, 'left')!);
    const right = htmlPieces(fieldOf(node, 'right')!);
    return left && right ? [...left, ...right] : null;
  }
  if (kind === 'binary_operator' && fieldOf(node, 'operator')?.text() === '%') {
    const template = fieldOf(node, 'left')!;
    if (kindOf(template) !== 'string') return null;
    let values = fieldOf(node, 'right')!;
    while (kindOf(values) === 'parenthesized_expression') values = values.children().find((c) => c.isNamed())!;
    const list = kindOf(values) === 'tuple' ? values.children().filter((c) => c.isNamed()) : [values];
    return splitTemplate(template, PERCENT, (_p, i) => list[i] ?? null);
  }
  if (kind === 'call' && /\.format$/.test(fieldOf(node, 'function')?.text() ?? '')) {
    const template = fieldOf(fieldOf(node, 'function')!, 'object')!;
    if (kindOf(template) !== 'string') return null;
    const args = argumentsOf(node);
    const positional = args.filter((a) => kindOf(a) !== 'keyword_argument');
    return splitTemplate(template, BRACES, (placeholder, i) => {
      const field = placeholder.slice(1, -1).split(/[!:]/)[0]!;
      if (field === '') return positional[i] ?? null;
      if (/^\d+$/.test(field)) return positional[Number(field)] ?? null;
      const named = args.find((a) => kindOf(a) === 'keyword_argument' && fieldOf(a, 'name')?.text() === field);
      return named ? fieldOf(named, 'value') : null;
    });
  }
  return [{ value: node }];
}

/**
 * The markup before each value of the pieces, values in between read as plain text; null for a value after
 * branches that leave the HTML in different contexts, where which markup precedes it cannot be told.
 */
export function markupBeforeEach(pieces: Piece[], before = new Map<number, string | null>(), start: string | null = ''): { before: Map<number, string | null>; markup: string | null } {
  let markup = start;
  for (const piece of pieces) {
    if ('text' in piece) markup = markup === null ? null : markup + piece.text;
    else if ('value' in piece) {
      before.set(piece.value.range().start.index, markup);
      if (markup !== null) markup += 'x';
    } else {
      const ends = piece.branches.map((branch) => markupBeforeEach(branch, before, markup).markup);
      const contexts = new Set(ends.map((end) => (end === null ? null : htmlContextAfter(end))));
      markup = contexts.size === 1 && !contexts.has(null) ? ends[0]! : null;
    }
  }
  return { before, markup };
}
