import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../syntax.ts';
import { isLiteral, normalizeParts, parameterize, type Part } from '../built-string.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { argumentsOf, replace } from '../edit-kit.ts';

// ActiveRecord SQL fragments built with interpolation or + → `?` placeholders and the values passed
// beside them, which Active Record quotes for the database: where/not/rewhere/having/find_by take them
// as further arguments, find_by_sql/count_by_sql as an array. Methods that take no values (order,
// group, select, joins, pluck, the connection's execute) are refused: a value there is a name.

const BINDS_AS_ARGUMENTS = /^(where|not|rewhere|having|find_by|exists\?)$/;
const BINDS_AS_ARRAY = /^(find_by_sql|count_by_sql)$/;
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", '#': '#' };

/** A Ruby string (double- or single-quoted, with interpolations) or + concatenation as parts. */
function builtParts(node: SgNode): Part[] | null {
  const kind = kindOf(node);
  if (kind === 'parenthesized_statements') return builtParts(node.children().find((c) => c.isNamed())!);
  if (kind === 'string') {
    const quote = node.text()[0];
    if (quote !== '"' && quote !== "'") return null;
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
    const left = fieldOf(node, 'left')!;
    const right = fieldOf(node, 'right')!;
    const a = builtParts(left) ?? [{ expr: left.text() }];
    const b = builtParts(right) ?? [{ expr: right.text() }];
    if (!a.some(isLiteral) && !b.some(isLiteral)) return null;
    return normalizeParts([...a, ...b]);
  }
  return null;
}

/** Literal text as a Ruby string: single-quoted when it can be, else double-quoted with escapes. */
function rubyString(text: string): string {
  if (!/['\\\n]/.test(text)) return `'${text}'`;
  return `"${text.replace(/[\\"#]/g, (c) => `\\${c}`).replaceAll('\n', '\\n')}"`;
}

/** One bound value: the expression, or an interpolated string of its text and values. */
function rubyValue(pieces: Part[]): string {
  if (pieces.length === 1 && !isLiteral(pieces[0]!)) return pieces[0]!.expr;
  return `"${pieces.map((p) => (isLiteral(p) ? p.literal.replace(/[\\"#]/g, (c) => `\\${c}`).replaceAll('\n', '\\n') : `#{${p.expr}}`)).join('')}"`;
}

export const rubyParameterizedSql: Codemod = {
  name: 'ruby/parameterized-sql',
  rules: ['ruby.rails.sqli.string-built-query'],
  rewrite({ node }) {
    const call = node!;
    const method = fieldOf(call, 'method')?.text() ?? '';
    const asArray = BINDS_AS_ARRAY.test(method);
    if (!asArray && !BINDS_AS_ARGUMENTS.test(method)) return refuse(`${method} takes no bound values; a value there is a name: check it against an allow-list of names`);
    const args = argumentsOf(call);
    if (args.length !== 1) return refuse(`${method} already gets more than the fragment; merge the values into placeholders by hand`);
    const fragment = args[0]!;
    const parts = builtParts(fragment);
    if (!parts) return refuse('the fragment is not built in a way this codemod reads (interpolation or +)');
    const parameterized = parameterize(parts, 'qmark');
    if ('refuse' in parameterized) return refuse(parameterized.refuse);
    const items = [rubyString(parameterized.sql), ...parameterized.params.map((p) => rubyValue(p.pieces))];
    return {
      edits: [replace(fragment, asArray ? `[${items.join(', ')}]` : items.join(', '))],
      note: `Passed the fragment's ${parameterized.params.length} value(s) as ? placeholders, which Active Record quotes, instead of building them into the SQL.`,
    };
  },
};
