import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { concatenationParts, isLiteral, normalizeParts, type Part } from '../built-string.ts';

// Ruby strings as the codemods read and write them: literals with interpolations, backtick commands and
// + concatenations into parts, and text and values back into a literal.

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", '#': '#' };

/** A Ruby string (double- or single-quoted, with interpolations), a backtick command or a + concatenation as parts. */
export function builtParts(node: SgNode): Part[] | null {
  const kind = kindOf(node);
  if (kind === 'parenthesized_statements') return builtParts(node.children().find((c) => c.isNamed())!);
  if (kind === 'string' || kind === 'subshell') {
    const quote = node.text()[0];
    if (quote !== '"' && quote !== "'" && quote !== '`') return null;
    const parts: Part[] = [];
    for (const child of node.children()) {
      const k = kindOf(child);
      if (k === 'string_content') parts.push({ literal: child.text() });
      else if (k === 'escape_sequence') {
        const decoded = ESCAPES[child.text().slice(1)];
        if (decoded === undefined) return null;
        parts.push({ literal: decoded });
      } else if (k === 'interpolation') {
        const inner = child.children().filter((c) => c.isNamed());
        if (inner.length !== 1) return null;
        parts.push({ expr: inner[0]!.text() });
      }
    }
    return normalizeParts(parts);
  }
  if (kind === 'binary' && fieldOf(node, 'operator')?.text() === '+') {
    return concatenationParts(node, (side) => builtParts(side));
  }
  return null;
}

/** Literal text as a Ruby string: single-quoted when it can be, else double-quoted with escapes. */
export function rubyString(text: string): string {
  if (!/['\\\n]/.test(text)) return `'${text}'`;
  return `"${inDoubleQuotes(text)}"`;
}

/** Text as it is written inside a double-quoted Ruby string: backslashes, quotes, `#` and line breaks escaped. */
function inDoubleQuotes(text: string): string {
  return text.replace(/[\\"#]/g, (c) => `\\${c}`).replaceAll('\n', '\\n');
}

/** One bound value: the expression, or an interpolated string of its text and values. */
export function rubyValue(pieces: Part[]): string {
  if (pieces.length === 1 && !isLiteral(pieces[0]!)) return pieces[0]!.expr;
  return `"${pieces.map((p) => (isLiteral(p) ? inDoubleQuotes(p.literal) : `#{${p.expr}}`)).join('')}"`;
}
