// A string assembled from literal text and values (concatenation, %-formatting, str.format, f-strings,
// template literals), read into parts so a codemod can rebuild it another way: SQL with placeholders
// and the values passed beside it, or a command as an argument list.

import type { SgNode } from '@ast-grep/napi';
import { fieldOf } from '../../shared/syntax.ts';

export type Part = { literal: string } | { expr: string };

export const isLiteral = (part: Part): part is { literal: string } => 'literal' in part;

/** Merges neighbouring literals and drops empty ones. */
export function normalizeParts(parts: Part[]): Part[] {
  const out: Part[] = [];
  for (const part of parts) {
    const last = out.at(-1);
    if (isLiteral(part)) {
      if (!part.literal) continue;
      if (last && isLiteral(last)) last.literal += part.literal;
      else out.push({ literal: part.literal });
    } else out.push({ expr: part.expr });
  }
  return out;
}

/**
 * `left + right` as parts, each side read by `read` (null: a value as a whole); null when neither side
 * holds text, where + adds numbers.
 */
export function concatenationParts(node: SgNode, read: (side: SgNode) => Part[] | null): Part[] | null {
  const left = fieldOf(node, 'left')!;
  const right = fieldOf(node, 'right')!;
  const a = read(left) ?? [{ expr: left.text() }];
  const b = read(right) ?? [{ expr: right.text() }];
  if (!a.some(isLiteral) && !b.some(isLiteral)) return null;
  return normalizeParts([...a, ...b]);
}

/** The statement a query call runs, read into parts: built in the call, or in the one declaration of the variable it gets. */
export interface BuiltStatement {
  parts: Part[];
  /** The node the statement was built in (the argument, or the variable's value). */
  target: SgNode;
  /** The variable's declaration, when the statement was built there. */
  related?: SgNode;
}

/**
 * Reads a query argument with `read`; an identifier is followed to its sole declaration (`origin`). A
 * string says why the statement cannot be rebuilt; `how` names the ways `read` understands.
 */
export function builtStatement(
  query: SgNode,
  read: (node: SgNode) => Part[] | null,
  origin: () => { declaration: SgNode; value: SgNode } | null,
  how: string,
): BuiltStatement | string {
  const parts = read(query);
  if (parts) return { parts, target: query };
  if (query.kind() === 'identifier') {
    const found = origin();
    if (!found) return `${query.text()} is assigned more than once or used elsewhere, so the statement cannot be rebuilt safely`;
    const declared = read(found.value);
    if (declared) return { parts: declared, target: found.value, related: found.declaration };
  }
  return `the statement is not built in a way this codemod reads (${how})`;
}

export type PlaceholderStyle = 'qmark' | 'format' | 'numeric' | 'named';

export interface Parameterized {
  /** The statement; with `keepNames`, a value kept as an SQL name stands at a NAME_SLOT mark (its index in `names`). */
  sql: string;
  /** Each placeholder's value: a name (for `named`) and the expression, or pieces to join into a string. */
  params: { name: string; pieces: Part[] }[];
  /** Values written into the statement as names (`keepNames`), in order. */
  names: string[];
}

const NAME_SLOT = '\u0000';

/** The statement as parts: its text, and the values kept as names where they stand. */
export function statementParts(parameterized: Parameterized): Part[] {
  const pieces = parameterized.sql.split(NAME_SLOT);
  return normalizeParts(pieces.flatMap((literal, i) => (i < parameterized.names.length ? [{ literal }, { expr: parameterized.names[i]! }] : [{ literal }])));
}

/** SQL words after which a value would be a table or column name, which no placeholder can stand for. */
const NAME_CONTEXT = /(\b(from|join|into|update|table|by|select|exists|index|database|schema)\s*|[.`"\[])$/i;

/**
 * The statement with a placeholder for every value, and the values in order. A value inside a quoted SQL
 * string becomes one parameter holding the whole quoted text (`'%' + term + '%'` → `?` with `%term%`).
 */
export function parameterize(parts: Part[], style: PlaceholderStyle, options: { keepNames?: boolean } = {}): Parameterized | { refuse: string } {
  const names: string[] = [];
  const params: Parameterized['params'] = [];
  if (!parts.some((p) => !isLiteral(p))) return { refuse: 'the statement is not built from values' };
  let sql = '';
  let quoted: Part[] | null = null;
  const placeholder = (name: string) =>
    style === 'qmark' ? '?' : style === 'format' ? '%s' : style === 'numeric' ? `$${params.length}` : `:${name}`;
  const push = (pieces: Part[]) => {
    const single = pieces.length === 1 && !isLiteral(pieces[0]!) ? pieces[0]!.expr : null;
    const base = single && /^[A-Za-z_][\w]*$/.test(single) ? single : `p${params.length + 1}`;
    let name = base;
    for (let n = 2; params.some((p) => p.name === name); n++) name = `${base}_${n}`;
    params.push({ name, pieces });
    sql += placeholder(name);
  };
  let afterValue = false;
  for (const part of parts) {
    if (!isLiteral(part)) {
      if (quoted) quoted.push(part);
      else if (NAME_CONTEXT.test(sql) || /[\w.]$/.test(sql)) {
        // A value that names a table or column stays in the text; the caller's check that the rule no
        // longer fires is what tells it is not the untrusted one.
        if (!options.keepNames) return { refuse: 'a value is part of an SQL name or keyword there, which no placeholder can stand for' };
        names.push(part.expr);
        sql += NAME_SLOT;
      }
      else {
        push([part]);
        afterValue = true;
      }
      continue;
    }
    const text = part.literal;
    if (afterValue && /^[\w.]/.test(text)) return { refuse: 'a value is glued to SQL text there, so it is part of a name or keyword' };
    afterValue = false;
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (quoted) {
        if (c === "'" && text[i + 1] === "'") {
          quoted.push({ literal: "'" });
          i++;
        } else if (c === "'") {
          const pieces = normalizeParts(quoted);
          quoted = null;
          if (pieces.every(isLiteral)) {
            const literal = pieces.map((p) => (p as { literal: string }).literal.replaceAll("'", "''")).join('');
            sql += `'${style === 'format' ? literal.replaceAll('%', '%%') : literal}'`;
          } else push(pieces);
        } else quoted.push({ literal: c });
      } else if (c === "'") quoted = [];
      else sql += style === 'format' && c === '%' ? '%%' : c;
    }
  }
  if (quoted) return { refuse: 'the statement has an unbalanced quote' };
  if (!params.length) return { refuse: 'every value is part of an SQL name or keyword there, which no placeholder can stand for' };
  return { sql, params, names };
}

/** Splits a command line into arguments when its literal text needs no shell (no quotes, pipes, globs…). */
export function argumentList(parts: Part[]): Part[][] | { refuse: string } {
  const args: Part[][] = [];
  let current: Part[] = [];
  for (const part of parts) {
    if (!isLiteral(part)) {
      current.push(part);
      continue;
    }
    if (/[|&;<>()$`\\"'*?[\]{}~#!\n]/.test(part.literal)) return { refuse: 'the command uses shell syntax (quotes, pipes, redirections, globs or variables), so it needs a shell' };
    const words = part.literal.split(/([ \t]+)/);
    for (const word of words) {
      if (/^[ \t]+$/.test(word)) {
        if (current.length) args.push(current);
        current = [];
      } else if (word) current.push({ literal: word });
    }
  }
  if (current.length) args.push(current);
  if (!args.length || !isLiteral(args[0]![0]!) || args[0]!.length !== 1) return { refuse: 'the program to run is not a fixed name' };
  return args.map(normalizeParts);
}
