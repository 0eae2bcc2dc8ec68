import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { argumentsOf } from '../edit-kit.ts';

// The markup and the values of HTML built in Python, in document order: string literals (f-string text
// included) give their text, and each value put in by `+`, `%`, format() or an f-string field is a value
// piece. What markup precedes a value tells its HTML context (html-context.ts).

export type Piece = { text: string } | { value: SgNode };

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

/** The markup before each value of the pieces, values in between read as plain text. */
export function markupBeforeEach(pieces: Piece[]): Map<number, string> {
  const before = new Map<number, string>();
  let markup = '';
  for (const piece of pieces) {
    if ('text' in piece) markup += piece.text;
    else {
      before.set(piece.value.range().start.index, markup);
      markup += 'x';
    }
  }
  return before;
}
