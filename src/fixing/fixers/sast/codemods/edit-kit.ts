import type { SgNode } from '@ast-grep/napi';
import type { ParserName } from '../../../../languages/index.ts';
import { fieldOf, kindOf } from '../../shared/syntax.ts';
import { lineStartOf, newlineOf } from '../../shared/text-edits.ts';
import type { CodemodEdit } from './codemod.ts';

// Small tree helpers the codemods share: the statement a node sits in, replacing a node, and adding an
// import or a helper function at the top of a module without touching anything else.

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

/** Where a new top-level line goes: after the last top-level import, else after a docstring, else at the top. */
function pythonImportOffset(root: SgNode, text: string): { offset: number; lead: string } {
  const nl = newlineOf(text);
  const top = root.children();
  const imports = top.filter((c) => PY_IMPORTS.has(kindOf(c)));
  const last = imports.at(-1) ?? (top[0] && kindOf(top[0]) === 'expression_statement' && kindOf(top[0].child(0)!) === 'string' ? top[0] : undefined);
  if (!last) return { offset: 0, lead: '' };
  return { offset: lineEnd(text, last.range().end.index), lead: nl };
}

function lineEnd(text: string, offset: number): number {
  const i = text.indexOf('\n', offset);
  return i === -1 ? text.length : i + 1;
}

/** Adds `statement` (e.g. `import secrets`) unless `binds` is already imported. */
export function pythonImport(root: SgNode, text: string, statement: string, binds: string): CodemodEdit[] {
  if (pythonImports(root, binds)) return [];
  const nl = newlineOf(text);
  const { offset } = pythonImportOffset(root, text);
  const needsBreak = offset === text.length && !text.endsWith('\n') && offset > 0;
  return [{ start: offset, end: offset, text: `${needsBreak ? nl : ''}${statement}${nl}`, topLevel: true }];
}

/** Adds a top-level helper function after the imports unless one of that name exists already. */
export function pythonHelper(root: SgNode, text: string, name: string, source: string): CodemodEdit[] {
  if (root.children().some((c) => kindOf(c) === 'function_definition' && fieldOf(c, 'name')?.text() === name)) return [];
  const nl = newlineOf(text);
  const { offset } = pythonImportOffset(root, text);
  const body = source.trim().split('\n').join(nl);
  return [{ start: offset, end: offset, text: `${nl}${nl}${body}${nl}${offset === 0 ? nl + nl : nl}`, topLevel: true }];
}

// ---------------------------------------------------------------------------------------------------------
// JavaScript modules

const JS_IMPORT = /^\s*(import\s|(const|let|var)\s+[^=]+=\s*require\()/;

/** Whether the file uses ES module imports (else CommonJS). */
export function isEsModule(root: SgNode): boolean {
  return root.children().some((c) => kindOf(c) === 'import_statement' || kindOf(c) === 'export_statement');
}

/** Adds `import name from "module"` or `const name = require("module")` unless `name` is bound at the top already. */
export function jsImport(root: SgNode, text: string, name: string, module: string): CodemodEdit[] {
  if (boundByImport(text, name)) return [];
  const nl = newlineOf(text);
  const statement = isEsModule(root) ? `import ${name} from "${module}";` : `const ${name} = require("${module}");`;
  const offset = jsImportOffset(root, text);
  return [{ start: offset, end: offset, text: `${statement}${nl}`, topLevel: true }];
}

/** Where a line goes after a JavaScript module's imports (and its "use …" directive): the start of a line. */
function jsImportOffset(root: SgNode, text: string): number {
  const imports = root.children().filter((c) => JS_IMPORT.test(c.text()));
  const directive = root.children().find((c) => kindOf(c) === 'expression_statement' && /^['"]use (strict|client|server)['"]/.test(c.text()));
  const after = imports.at(-1) ?? directive;
  return after ? lineEnd(text, after.range().end.index) : 0;
}

/** Whether a line of the file binds `name` by an import, a require or a destructuring of one. */
function boundByImport(text: string, name: string): boolean {
  const bound = new RegExp(`^\\s*(import\\s+(\\*\\s+as\\s+)?${name}\\b|import\\s*\\{[^}]*\\b${name}\\b[^}]*\\}|(const|let|var)\\s+${name}\\s*=|(const|let|var)\\s*\\{[^}]*\\b${name}\\b[^}]*\\}\\s*=)`, 'm');
  return bound.test(text);
}

/**
 * Adds a top-level helper function after the imports unless the module declares or imports that name
 * already. `source` writes it with TypeScript annotations or without, as the file's parser reads.
 */
export function jsHelper(root: SgNode, text: string, parser: ParserName, name: string, source: (typed: boolean) => string): CodemodEdit[] {
  const declared = (c: SgNode) => kindOf(c) === 'function_declaration' && fieldOf(c, 'name')?.text() === name;
  if (boundByImport(text, name) || root.children().some((c) => declared(c) || (kindOf(c) === 'export_statement' && c.children().some(declared)))) return [];
  const nl = newlineOf(text);
  const offset = jsImportOffset(root, text);
  const body = source(parser === 'typescript' || parser === 'tsx').trim().split('\n').join(nl);
  // One blank line on each side: the line after the imports may be blank already.
  const after = /^\r?\n/.test(text.slice(offset)) ? nl : `${nl}${nl}`;
  return [{ start: offset, end: offset, text: offset === 0 ? `${body}${nl}${nl}` : `${nl}${body}${after}`, topLevel: true }];
}
