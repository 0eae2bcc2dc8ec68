import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import type { CodemodEdit } from '../codemod.ts';
import { removeStatement } from '../edit-kit.ts';

// Go refuses to compile a file that imports a package it does not use: codemods that stop using one
// drop its import with these.

export function importSpecOf(root: SgNode, path: string): SgNode | undefined {
  return root.findAll({ rule: { kind: 'import_spec' } } as never).find((spec) => fieldOf(spec, 'path')?.text() === `"${path}"`);
}

/** Whether the file refers to `pkg.` anywhere outside `except`. */
export function usedOutside(root: SgNode, pkg: string, except: SgNode): boolean {
  const start = except.range().start.index;
  const end = except.range().end.index;
  return root
    .findAll({ rule: { kind: 'selector_expression', has: { field: 'operand', regex: `^${pkg}$` } } } as never)
    .some((s) => s.range().start.index < start || s.range().end.index > end);
}

/** Removes an import: a lone `import "x"` whole, a spec of an import list with its line. */
export function removeImport(spec: SgNode, text: string): CodemodEdit {
  return removeStatement(kindOf(spec.parent()!) === 'import_declaration' ? spec.parent()! : spec, text);
}

/**
 * The edit that drops the import of `pkg` (a standard package, whose path is its name) when a codemod
 * replaces `replaced` with `written` and nothing
 * else in the file uses it; none otherwise.
 */
export function dropImportLeftUnused(root: SgNode, text: string, pkg: string, replaced: SgNode, written: string[]): CodemodEdit[] {
  const spec = importSpecOf(root, pkg);
  const mentions = new RegExp(`(^|[^\\w.])${pkg}\\.`);
  if (!spec || written.some((w) => mentions.test(w)) || usedOutside(root, pkg, replaced)) return [];
  return [{ ...removeImport(spec, text), related: spec }];
}
