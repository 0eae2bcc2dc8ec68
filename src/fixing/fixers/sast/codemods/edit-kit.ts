import type { SgNode } from '@ast-grep/napi';
import type { ParserName } from '../../../../languages/index.ts';
import { fieldOf, kindOf } from '../../shared/syntax.ts';
import { lineStartOf, newlineOf } from '../../shared/text-edits.ts';
import type { CodemodEdit } from './codemod.ts';

// Small tree helpers the codemods share: the statement a node sits in, replacing a node, and adding an
// import or a helper function to a module without touching anything else. Every fix of a finding is a diff
// of its own that must merge with the other fixes of the file, so additions go where another fix's are
// unlikely to: an import at its sorted place among the imports, a helper above the statement using it.

const STATEMENT_PARENTS = new Set(['module', 'block', 'program', 'statement_block', 'switch_case', 'switch_default', 'else_clause', 'source_file', 'statement_list']);

/** The statement the node belongs to (itself when it is one). */
export function statementOf(node: SgNode): SgNode {
  let current = node;
  for (let parent = current.parent(); parent; current = parent, parent = parent.parent()) {
    if (STATEMENT_PARENTS.has(kindOf(parent))) return current;
  }
  return current;
}

/**
 * The lines a statement fills: from the start of its line when only indentation precedes it, through its
 * line break when nothing follows it on the line; otherwise the statement alone.
 */
export function statementLines(text: string, start: number, end: number): { start: number; end: number } {
  const lineStart = lineStartOf(text, start);
  const lineEnd = text.indexOf('\n', end);
  const to = lineEnd === -1 ? text.length : lineEnd + 1;
  if (!/^[ \t]*$/.test(text.slice(lineStart, start)) || !/^[ \t\r]*$/.test(text.slice(end, lineEnd === -1 ? text.length : lineEnd))) return { start, end };
  return { start: lineStart, end: to };
}

/** Removes a statement the finding's value was built in, with its line (an edit `related` to it). */
export function removeStatement(statement: SgNode, text: string): CodemodEdit {
  const range = statement.range();
  return { ...statementLines(text, range.start.index, range.end.index), text: '', related: statement };
}

export function replace(node: SgNode, text: string): CodemodEdit {
  const range = node.range();
  return { start: range.start.index, end: range.end.index, text };
}

export function insertAt(offset: number, text: string): CodemodEdit {
  return { start: offset, end: offset, text };
}

/** The arguments of a call, without the parentheses and commas. */
export function argumentsOf(call: SgNode): SgNode[] {
  const list = fieldOf(call, 'arguments');
  return list ? list.children().filter((c) => c.isNamed() && kindOf(c) !== 'comment') : [];
}

/** The keyword argument `name=` of a Python call. */
export function keywordArgument(call: SgNode, name: string): SgNode | undefined {
  return argumentsOf(call).find((a) => kindOf(a) === 'keyword_argument' && fieldOf(a, 'name')?.text() === name);
}

/** The nearest enclosing call (the node itself when it is one). */
export function callAround(node: SgNode, kinds = ['call', 'call_expression']): SgNode | null {
  for (let n: SgNode | null = node; n; n = n.parent()) if (kinds.includes(kindOf(n))) return n;
  return null;
}

/** The innermost function the node is in, or null at module level. */
export function functionAround(node: SgNode): SgNode | null {
  for (let n = node.parent(); n; n = n.parent()) {
    if (/^(function_definition|function_declaration|function_expression|arrow_function|method_definition|method_declaration|constructor_declaration|function)$/.test(kindOf(n))) return n;
  }
  return null;
}

/** Edit that deletes an argument with the comma that separates it from its neighbour. */
export function removeArgument(call: SgNode, argument: SgNode, text: string): CodemodEdit {
  const args = argumentsOf(call);
  const i = args.findIndex((a) => a.range().start.index === argument.range().start.index);
  const range = argument.range();
  if (i > 0) return { start: args[i - 1]!.range().end.index, end: range.end.index, text: '' };
  if (args.length > 1) return { start: range.start.index, end: args[1]!.range().start.index, text: '' };
  let end = range.end.index;
  while (text[end] === ',' || text[end] === ' ') end++;
  return { start: range.start.index, end, text: '' };
}

/** Edit that appends arguments at the end of a call's argument list, in its parentheses when it has them (Ruby's may not). */
export function appendArguments(call: SgNode, added: string[], text: string): CodemodEdit {
  const list = fieldOf(call, 'arguments')!;
  if (!list.text().startsWith('(')) return { start: list.range().end.index, end: list.range().end.index, text: `, ${added.join(', ')}` };
  const close = list.range().end.index - 1;
  let before = close;
  while (/\s/.test(text[before - 1] ?? '')) before--;
  const empty = argumentsOf(call).length === 0;
  const trailingComma = text[before - 1] === ',';
  const separator = empty ? '' : trailingComma ? ' ' : ', ';
  return { start: before, end: before, text: separator + added.join(', ') };
}

// ---------------------------------------------------------------------------------------------------------
// Python modules

const PY_IMPORTS = new Set(['import_statement', 'import_from_statement', 'future_import_statement']);

/** Whether the module binds `name` through a top-level or nested import (`import os`, `from x import name`). */
export function pythonImports(root: SgNode, name: string): boolean {
  return root.findAll({ rule: { any: [{ kind: 'import_statement' }, { kind: 'import_from_statement' }] } as never }).some((statement) => {
    const names = statement.findAll({ rule: { any: [{ kind: 'dotted_name' }, { kind: 'aliased_import' }] } as never }).filter((n) => n.parent()?.range().start.index === statement.range().start.index);
    const isFrom = kindOf(statement) === 'import_from_statement';
    return names.some((n, i) => {
      if (isFrom && i === 0) return false; // the module of a from-import
      const alias = kindOf(n) === 'aliased_import' ? fieldOf(n, 'alias')?.text() : undefined;
      const bound = alias ?? (isFrom ? n.text() : n.text().split('.')[0]);
      return bound === name;
    });
  });
}

/** Whether any import of the module names `module` (`import lxml.etree`, `from flask import …`). */
export function pythonImportsModule(root: SgNode, module: string): boolean {
  const pattern = new RegExp(`^\\s*(from\\s+${module.replace('.', '\\.')}(\\.|\\s)|import\\s+([\\w.]+\\s*,\\s*)*${module.replace('.', '\\.')}\\b)`, 'm');
  return pattern.test(root.text());
}

/**
 * A Python import's sort keys, in the two orders files keep: `__future__` first and relative imports
 * (`from . import x`) last, then either every `import x` before the `from x import …` lines (isort's
 * default) or both by module name alone; the imported names break ties.
 */
const PYTHON_IMPORT_ORDERS = [true, false].map((importsFirst) => (statement: string): string | undefined => {
  const m = /^\s*(?:from\s+(\.*)([\w.]*)\s+import\b|import\s+([\w.]+))/.exec(statement);
  if (!m) return undefined;
  const module = (m[3] ?? m[2] ?? '').toLowerCase();
  const section = module === '__future__' ? '0' : m[1] ? '2' : '1';
  const kind = m[3] === undefined ? '1' : '0';
  return `${section}${importsFirst ? kind : ''}${m[1] ?? ''}${module}\u0000${kind}\u0000${statement.trim().toLowerCase()}`;
});

/** Where the module's header ends: its shebang and encoding lines, then its docstring. */
function pythonHeaderEnd(root: SgNode, text: string): number {
  let end = 0;
  for (const child of root.children()) {
    const kind = kindOf(child);
    if (kind === 'comment' && /^#!|coding[:=]/.test(child.text()) && child.range().start.line <= 1) end = lineEnd(text, child.range().end.index);
    else if (kind === 'expression_statement' && kindOf(child.child(0)!) === 'string') return lineEnd(text, child.range().end.index);
    else if (kind !== 'comment') break;
  }
  return end;
}

/**
 * The module's first run of top-level imports (comments may stand between them): the ones a new import
 * is sorted among. Imports after other code, or inside try/if blocks, are left where they are.
 */
function importBlock(root: SgNode, isImport: (statement: SgNode) => boolean): SgNode[] {
  const block: SgNode[] = [];
  for (const child of root.children()) {
    if (isImport(child)) block.push(child);
    else if (block.length && kindOf(child) !== 'comment') break;
  }
  return block;
}

/** How many pairs of the keys are out of order. */
function inversions(keys: string[]): number {
  let count = 0;
  keys.forEach((a, i) => keys.slice(i + 1).forEach((b) => (count += a > b ? 1 : 0)));
  return count;
}

/**
 * Where a new import line goes among the block: in the order the block keeps best (of `orders`), at the gap
 * that leaves it least out of order: for a sorted block, right before the first import that sorts after
 * it. Between two groups of imports (a blank or comment line apart), it joins the group above when it is
 * written like that group's last import (`import x` or `from x import`), else the group below. With no
 * block, it goes at `headerEnd`; a statement that sorts nowhere (a try/except import) after the block.
 * Two fixes that add different imports thus mostly change different gaps of the block, and merge.
 */
function importSlot(block: SgNode[], text: string, orders: ((statement: string) => string | undefined)[], statement: string, headerEnd: number): number {
  const last = block.at(-1);
  if (!last) return headerEnd;
  const keyed = orders.map((order) => ({ own: order(statement), keys: block.map((b) => order(b.text()) ?? '') }));
  const { own, keys } = keyed.reduce((best, k) => (inversions(k.keys) < inversions(best.keys) ? k : best));
  if (own === undefined) return lineEnd(text, last.range().end.index);
  let gap = 0;
  let fewest = Infinity;
  for (let g = 0; g <= keys.length; g++) {
    const misplaced = keys.slice(0, g).filter((k) => k > own).length + keys.slice(g).filter((k) => k < own).length;
    if (misplaced < fewest) [gap, fewest] = [g, misplaced];
  }
  const above = block[gap - 1];
  const below = block[gap];
  if (!below) return lineEnd(text, above!.range().end.index);
  if (!above) return lineStartOf(text, below.range().start.index);
  const style = (s: string) => /^\s*from\s/.test(s);
  return style(above.text()) === style(statement) || style(below.text()) !== style(statement) ? lineEnd(text, above.range().end.index) : lineStartOf(text, below.range().start.index);
}

function lineEnd(text: string, offset: number): number {
  const i = text.indexOf('\n', offset);
  return i === -1 ? text.length : i + 1;
}

/** An inserted line at `offset`, with a line break before it when it goes after a last line that has none. */
function lineAt(text: string, offset: number, line: string): CodemodEdit {
  const nl = newlineOf(text);
  const needsBreak = offset === text.length && offset > 0 && !text.endsWith('\n');
  return { start: offset, end: offset, text: `${needsBreak ? nl : ''}${line}${nl}`, topLevel: true };
}

/**
 * Where a helper function goes: right before the top-level statement that uses it (with the comment lines
 * just above that statement), so helpers of fixes in different functions, and imports, land apart; after
 * the imports when that statement comes before their end.
 */
function helperSlot(root: SgNode, text: string, usedBy: SgNode, importsEnd: number): number {
  let top = usedBy;
  while (top.parent()?.parent()) top = top.parent()!;
  let offset = lineStartOf(text, top.range().start.index);
  const comment = kindOf(root) === 'module' ? /^[ \t]*#/ : /^[ \t]*(\/\/|\/\*|\*)/;
  while (offset > importsEnd) {
    const above = lineStartOf(text, offset - 1);
    if (!comment.test(text.slice(above, offset))) break;
    offset = above;
  }
  return Math.max(offset, importsEnd);
}

/** A helper's text for `offset`: `blankLines` empty lines above it (counting those already there) and below it. */
function helperText(text: string, offset: number, body: string, blankLines: number): string {
  const nl = newlineOf(text);
  let blanksAbove = 0;
  for (let at = offset; at > 0 && blanksAbove < blankLines; blanksAbove++) {
    const above = lineStartOf(text, at - 1);
    if (!/^[ \t]*\r?\n$/.test(text.slice(above, at))) break;
    at = above;
  }
  const lead = offset === 0 ? '' : nl.repeat(blankLines - blanksAbove);
  const trail = offset === text.length ? nl : nl.repeat(blankLines + 1);
  return `${lead}${body}${trail}`;
}

/** Adds `statement` (e.g. `import secrets`) at its sorted place among the module's imports, unless `binds` is already imported. */
export function pythonImport(root: SgNode, text: string, statement: string, binds: string): CodemodEdit[] {
  if (pythonImports(root, binds)) return [];
  const block = importBlock(root, (c) => PY_IMPORTS.has(kindOf(c)));
  const offset = importSlot(block, text, PYTHON_IMPORT_ORDERS, statement, pythonHeaderEnd(root, text));
  const edit = lineAt(text, offset, statement);
  // The module's first import: PEP 8's blank lines between it and the code below (two before a definition).
  if (!block.length && /^[ \t]*[^\s#]/.test(text.slice(offset))) {
    const next = root.children().find((c) => c.range().start.index >= offset);
    edit.text += newlineOf(text).repeat(next && /^(function|class|decorated)_definition$/.test(kindOf(next)) ? 2 : 1);
  }
  return [edit];
}

/** Adds a top-level helper function above the statement that uses it (`usedBy`), unless one of that name exists already. */
export function pythonHelper(root: SgNode, text: string, name: string, source: string, usedBy: SgNode): CodemodEdit[] {
  if (root.children().some((c) => kindOf(c) === 'function_definition' && fieldOf(c, 'name')?.text() === name)) return [];
  const block = importBlock(root, (c) => PY_IMPORTS.has(kindOf(c)));
  const importsEnd = block.length ? lineEnd(text, block.at(-1)!.range().end.index) : pythonHeaderEnd(root, text);
  const offset = helperSlot(root, text, usedBy, importsEnd);
  const body = source.trim().split('\n').join(newlineOf(text));
  return [{ start: offset, end: offset, text: helperText(text, offset, body, 2), topLevel: true }];
}

// ---------------------------------------------------------------------------------------------------------
// JavaScript modules

const JS_IMPORT = /^\s*(import\s|(const|let|var)\s+[^=]+=\s*require\()/;

/** Whether the file uses ES module imports (else CommonJS). */
export function isEsModule(root: SgNode): boolean {
  return root.children().some((c) => kindOf(c) === 'import_statement' || kindOf(c) === 'export_statement');
}

/** A JavaScript import's sort key: its module specifier (`import … from "x"`, `require("x")`). */
function jsImportKey(statement: string): string | undefined {
  return /(?:\bfrom\s*|\brequire\(\s*|^\s*import\s*)(['"`])(.*?)\1/.exec(statement)?.[2]!.toLowerCase();
}

/** Where the module's header ends: its `#!` line, then a "use strict" / "use client" / "use server" directive. */
function jsHeaderEnd(root: SgNode, text: string): number {
  let end = 0;
  for (const child of root.children()) {
    if (kindOf(child) === 'hash_bang_line' || (kindOf(child) === 'expression_statement' && /^['"]use (strict|client|server)['"]/.test(child.text()))) end = lineEnd(text, child.range().end.index);
    else if (kindOf(child) !== 'comment') break;
  }
  return end;
}

const jsImportBlock = (root: SgNode) => importBlock(root, (c) => JS_IMPORT.test(c.text()));

/** Adds `import name from "module"` or `const name = require("module")` at its sorted place among the imports, unless `name` is bound at the top already. */
export function jsImport(root: SgNode, text: string, name: string, module: string): CodemodEdit[] {
  if (boundByImport(text, name)) return [];
  const statement = isEsModule(root) ? `import ${name} from "${module}";` : `const ${name} = require("${module}");`;
  return [lineAt(text, importSlot(jsImportBlock(root), text, [jsImportKey], statement, jsHeaderEnd(root, text)), statement)];
}

/** Whether a line of the file binds `name` by an import, a require or a destructuring of one. */
function boundByImport(text: string, name: string): boolean {
  const bound = new RegExp(`^\\s*(import\\s+(\\*\\s+as\\s+)?${name}\\b|import\\s*\\{[^}]*\\b${name}\\b[^}]*\\}|(const|let|var)\\s+${name}\\s*=|(const|let|var)\\s*\\{[^}]*\\b${name}\\b[^}]*\\}\\s*=)`, 'm');
  return bound.test(text);
}

/**
 * Adds a top-level helper function above the statement that uses it (`usedBy`) unless the module declares
 * or imports that name already. `source` writes it with TypeScript annotations or without, as the file's
 * parser reads.
 */
export function jsHelper(root: SgNode, text: string, parser: ParserName, name: string, source: (typed: boolean) => string, usedBy: SgNode): CodemodEdit[] {
  const declared = (c: SgNode) => kindOf(c) === 'function_declaration' && fieldOf(c, 'name')?.text() === name;
  if (boundByImport(text, name) || root.children().some((c) => declared(c) || (kindOf(c) === 'export_statement' && c.children().some(declared)))) return [];
  const block = jsImportBlock(root);
  const importsEnd = block.length ? lineEnd(text, block.at(-1)!.range().end.index) : jsHeaderEnd(root, text);
  const offset = helperSlot(root, text, usedBy, importsEnd);
  const body = source(parser === 'typescript' || parser === 'tsx').trim().split('\n').join(newlineOf(text));
  return [{ start: offset, end: offset, text: helperText(text, offset, body, 1), topLevel: true }];
}
