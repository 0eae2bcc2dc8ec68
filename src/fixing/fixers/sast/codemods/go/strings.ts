import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { concatenationParts, isLiteral, normalizeParts, type Part } from '../built-string.ts';
import { argumentsOf } from '../edit-kit.ts';

// Go strings as the codemods read and write them: literals, + concatenations and fmt.Sprintf calls into
// parts, and text back into a literal.

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'" };

/** A Go string literal's text, or null for escapes this codemod does not read. */
export function stringValue(node: SgNode): string | null {
  const text = node.text();
  if (kindOf(node) === 'raw_string_literal') return text.slice(1, -1);
  if (kindOf(node) !== 'interpreted_string_literal') return null;
  const body = text.slice(1, -1);
  if (/\\[^ntr\\"']/.test(body)) return null;
  return body.replace(/\\(.)/g, (_, e: string) => ESCAPES[e]!);
}

/**
 * fmt.Sprintf's format and arguments as parts; null for verbs other than a plain %s, %d or %v. With
 * `asText`, a %d or %v value is read as fmt.Sprint of it, the text Sprintf wrote for it.
 */
function sprintfParts(call: SgNode, asText: boolean): Part[] | null {
  const [format, ...values] = argumentsOf(call);
  const text = format ? stringValue(format) : null;
  if (text === null) return null;
  const parts: Part[] = [];
  let next = 0;
  for (const piece of text.split(/(%[%sdv]|%)/)) {
    if (piece === '%%') parts.push({ literal: '%' });
    else if (piece === '%s' || piece === '%d' || piece === '%v') {
      const value = values[next++];
      if (!value) return null;
      parts.push({ expr: asText && piece !== '%s' ? `fmt.Sprint(${value.text()})` : value.text() });
    } else if (piece === '%') return null;
    else parts.push({ literal: piece });
  }
  return next === values.length ? normalizeParts(parts) : null;
}

/** A string built from literal text and values: a string literal, a + concatenation or an fmt.Sprintf call (see sprintfParts for `asText`). */
export function builtParts(node: SgNode, asText = false): Part[] | null {
  const kind = kindOf(node);
  if (kind === 'parenthesized_expression') return builtParts(node.children().find((c) => c.isNamed())!, asText);
  if (kind === 'interpreted_string_literal' || kind === 'raw_string_literal') {
    const text = stringValue(node);
    return text === null ? null : [{ literal: text }];
  }
  if (kind === 'call_expression' && fieldOf(node, 'function')?.text() === 'fmt.Sprintf') return sprintfParts(node, asText);
  if (kind === 'binary_expression' && fieldOf(node, 'operator')?.text() === '+') {
    return concatenationParts(node, (side) => builtParts(side, asText));
  }
  return null;
}

/**
 * Literal text and values as one Go expression: a lone value as it is, a lone text as a literal, else
 * joined with fmt.Sprint where the string was built with fmt.Sprintf (values of any type; fmt is
 * imported), with + where it was built with + (every value is a string there).
 */
export function goJoin(pieces: Part[], builtWithSprintf: boolean): string {
  const items = pieces.map((p) => (isLiteral(p) ? goString(p.literal) : p.expr));
  if (items.length === 1) return items[0]!;
  return builtWithSprintf ? `fmt.Sprint(${items.join(', ')})` : items.join(' + ');
}

/** A Go literal for `text`: a raw string when it has quotes, backslashes or lines, else an interpreted one. */
export function goString(text: string): string {
  if (/["\\\n]/.test(text) && !text.includes('`')) return `\`${text}\``;
  return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')}"`;
}
