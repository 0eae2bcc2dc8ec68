import { parse, type SgNode } from '@ast-grep/napi';
import { astGrepLang, parserFor, registerLanguages, type ParserName } from '../../../languages/index.ts';

/** A language ast-grep parses into a tree (not the regex-read templates). */
export type CodeParser = Exclude<ParserName, 'template'>;

export function codeParserFor(file: string): CodeParser | undefined {
  if (file.endsWith('.d.ts')) return 'typescript';
  const parser = parserFor(file);
  return parser === 'template' ? undefined : parser;
}

export function parseCode(parser: CodeParser, text: string): SgNode {
  registerLanguages();
  return parse(astGrepLang(parser) as never, text).root();
}

export interface SyntaxErrors {
  count: number;
  /** 1-based line of the first one. */
  firstLine: number | null;
}

/**
 * Where tree-sitter could not read the text: ERROR nodes, and the zero-width nodes it inserts for a
 * missing token (a `)` that is not there). Valid code in the supported grammars has neither.
 */
export function syntaxErrors(root: SgNode): SyntaxErrors {
  let count = 0;
  let firstLine: number | null = null;
  const visit = (node: SgNode, isRoot: boolean) => {
    const range = node.range();
    const missing = !isRoot && range.start.index === range.end.index;
    if (node.kind() === 'ERROR' || missing) {
      count++;
      firstLine ??= range.start.line + 1;
      if (node.kind() === 'ERROR') return;
    }
    for (const child of node.children()) visit(child, false);
  };
  visit(root, true);
  return { count, firstLine };
}

/** The deepest node whose range contains [start, end). */
export function deepestNodeCovering(root: SgNode, start: number, end: number): SgNode {
  let node = root;
  for (;;) {
    const child = node.children().find((c) => {
      const range = c.range();
      return range.start.index <= start && end <= range.end.index && range.end.index > range.start.index;
    });
    if (!child) return node;
    node = child;
  }
}

/** Nodes whose range is exactly [start, end), outermost first. */
export function nodesSpanning(root: SgNode, start: number, end: number): SgNode[] {
  const found: SgNode[] = [];
  let node: SgNode | undefined = root;
  while (node) {
    const range = node.range();
    if (range.start.index === start && range.end.index === end) found.push(node);
    node = node.children().find((c) => c.range().start.index <= start && end <= c.range().end.index);
  }
  return found;
}

/** A node's kind as a plain string (ast-grep types it against each grammar's generated kinds). */
export function kindOf(node: SgNode): string {
  return String(node.kind());
}

/** Whether two handles name the same node (ast-grep hands out a new object each time). */
export function sameNode(a: SgNode | null | undefined, b: SgNode): boolean {
  return !!a && kindOf(a) === kindOf(b) && a.range().start.index === b.range().start.index && a.range().end.index === b.range().end.index;
}

/** The child in a grammar field, for a field named at run time. */
export function fieldOf(node: SgNode, name: string): SgNode | null {
  return (node.field as (name: string) => SgNode | null)(name);
}
