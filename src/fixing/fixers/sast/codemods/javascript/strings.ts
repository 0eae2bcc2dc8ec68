import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { functionAround } from '../edit-kit.ts';
import { concatenationParts, isLiteral, normalizeParts, type Part } from '../built-string.ts';

// JavaScript strings as the codemods read and write them: concatenations and template literals into
// parts, a `const` back to where it was built, and text back into a literal.

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '`': '`', $: '$', '0': '\0' };
const decode = (raw: string) => raw.replace(/\\(.)/gs, (_, e: string) => ESCAPES[e] ?? e);

export function builtParts(node: SgNode): Part[] | null {
  const kind = kindOf(node);
  if (kind === 'parenthesized_expression') return builtParts(node.children().find((c) => c.isNamed())!);
  if (kind === 'string') return [{ literal: decode(node.text().slice(1, -1)) }];
  if (kind === 'template_string') {
    const parts: Part[] = [];
    for (const child of node.children()) {
      const k = kindOf(child);
      if (k === 'string_fragment') parts.push({ literal: child.text() });
      else if (k === 'escape_sequence') parts.push({ literal: decode(child.text()) });
      else if (k === 'template_substitution') parts.push({ expr: child.children().find((c) => c.isNamed())!.text() });
    }
    return normalizeParts(parts);
  }
  if (kind === 'binary_expression' && fieldOf(node, 'operator')?.text() === '+') {
    return concatenationParts(node, builtParts);
  }
  return null;
}

/** The one `const`/`let` declaration that gave a variable its value in the same function, when nothing else uses it. */
export function soleDeclaration(variable: SgNode, use: SgNode): { declaration: SgNode; value: SgNode } | null {
  const scope = functionAround(use);
  if (!scope) return null;
  const name = variable.text();
  const mentions = scope.findAll({ rule: { kind: 'identifier', regex: `^${name.replace(/\$/g, '\\$')}$` } as never });
  if (mentions.length !== 2) return null;
  const declarator = mentions[0]!.parent();
  if (!declarator || kindOf(declarator) !== 'variable_declarator' || fieldOf(declarator, 'name')?.text() !== name) return null;
  const value = fieldOf(declarator, 'value');
  return value ? { declaration: declarator, value } : null;
}

export function jsString(text: string, like = '"'): string {
  const preferred = like === "'" ? "'" : '"';
  const other = preferred === '"' ? "'" : '"';
  const quote = text.includes(preferred) && !text.includes(other) ? other : preferred;
  if (text.includes('\n')) return `\`${text.replaceAll('\\', '\\\\').replaceAll('`', '\\`').replaceAll('${', '\\${')}\``;
  return `${quote}${text.replaceAll('\\', '\\\\').replaceAll(quote, `\\${quote}`)}${quote}`;
}

/** An expression joining literal text and values (a template literal when it has both). */
export function jsJoin(pieces: Part[], like = '"'): string {
  if (pieces.length === 1 && !isLiteral(pieces[0]!)) return pieces[0]!.expr;
  if (pieces.every(isLiteral)) return jsString(pieces.map((p) => (p as { literal: string }).literal).join(''), like);
  return `\`${pieces.map((p) => (isLiteral(p) ? p.literal.replaceAll('\\', '\\\\').replaceAll('`', '\\`').replaceAll('${', '\\${') : `\${${p.expr}}`)).join('')}\``;
}
