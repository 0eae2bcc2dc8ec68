import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../shared/syntax.ts';
import { lineIndent, lineStartOf, type TextEdit } from '../shared/text-edits.ts';

// The imports an environment lookup needs: `import os` in Python, the "os" package in Go. Each function
// answers the name to call through and the edit that adds the import, if one is missing.

export interface ImportNeed {
  /** The name the module is bound to in the file. */
  binding: string;
  edit: TextEdit | null;
}

/** Python: `import os` (or `import os.path`, which binds `os` too) at module level, else one added. */
export function pythonOsImport(module: SgNode, source: string, newline: string): ImportNeed {
  const statements = module.children().filter((c) => c.isNamed());
  const bindsOs = (s: SgNode) =>
    kindOf(s) === 'import_statement' &&
    s.children().some((c) => kindOf(c) === 'dotted_name' && (c.text() === 'os' || c.text().startsWith('os.')));
  if (statements.some(bindsOs)) return { binding: 'os', edit: null };

  // After the module docstring and `from __future__` imports, which must come first.
  const docstring = statements.find((s) => kindOf(s) !== 'comment');
  const isDocstring = (s: SgNode) => s === docstring && kindOf(s) === 'expression_statement' && s.namedChildren().length === 1 && kindOf(s.namedChildren()[0]) === 'string';
  let index = 0;
  while (index < statements.length && (['comment', 'future_import_statement'].includes(kindOf(statements[index])) || isDocstring(statements[index]))) index++;
  const next = statements[index];
  if (!next) {
    const end = source.length;
    const lead = source.length === 0 || source.endsWith('\n') ? '' : newline;
    return { binding: 'os', edit: { start: end, end, text: `${lead}import os${newline}` } };
  }
  const lineStart = lineStartOf(source, next.range().start.index);
  const isImport = kindOf(next) === 'import_statement' || kindOf(next) === 'import_from_statement';
  return { binding: 'os', edit: { start: lineStart, end: lineStart, text: `import os${newline}${isImport ? '' : newline}` } };
}

/** Go: the "os" package under whatever name the file imports it, else added to the imports. */
export function goOsImport(sourceFile: SgNode, source: string, newline: string): ImportNeed {
  const specs = sourceFile.findAll({ rule: { kind: 'import_spec' } });
  for (const spec of specs) {
    if (importPath(spec) !== 'os') continue;
    const alias = fieldOf(spec, 'name');
    if (!alias) return { binding: 'os', edit: null };
    if (kindOf(alias) === 'package_identifier') return { binding: alias.text(), edit: null };
  }

  const declaration = sourceFile.children().find((c) => kindOf(c) === 'import_declaration');
  if (!declaration) {
    const pkg = sourceFile.children().find((c) => kindOf(c) === 'package_clause');
    const at = pkg ? pkg.range().end.index : 0;
    return { binding: 'os', edit: { start: at, end: at, text: `${newline}${newline}import "os"` } };
  }
  const list = declaration.children().find((c) => kindOf(c) === 'import_spec_list');
  if (!list) {
    // `import "fmt"` becomes a list, in order.
    const single = declaration.children().find((c) => kindOf(c) === 'import_spec')!;
    const lines = [single.text(), '"os"'].sort((a, b) => importPathOfText(a).localeCompare(importPathOfText(b)));
    const range = declaration.range();
    return {
      binding: 'os',
      edit: { start: range.start.index, end: range.end.index, text: `import (${newline}${lines.map((l) => `\t${l}${newline}`).join('')})` },
    };
  }
  // Into the first group (specs up to the first blank line), where gofmt's sort order puts it.
  const listSpecs = list.children().filter((c) => kindOf(c) === 'import_spec');
  if (!listSpecs.length) {
    const open = list.range().start.index + 1;
    return { binding: 'os', edit: { start: open, end: open, text: `${newline}\t"os"` } };
  }
  const group: SgNode[] = [];
  for (const spec of listSpecs) {
    const previous = group.at(-1);
    if (previous && spec.range().start.line - previous.range().end.line > 1) break;
    group.push(spec);
  }
  const after = group.find((spec) => importPath(spec) > 'os');
  const indent = lineIndent(source, group[0].range().start.index);
  if (after) {
    const lineStart = lineStartOf(source, after.range().start.index);
    return { binding: 'os', edit: { start: lineStart, end: lineStart, text: `${indent}"os"${newline}` } };
  }
  const last = group.at(-1)!;
  const end = last.range().end.index;
  return { binding: 'os', edit: { start: end, end, text: `${newline}${indent}"os"` } };
}

function importPath(spec: SgNode): string {
  const path = fieldOf(spec, 'path') ?? spec.children().find((c) => kindOf(c).endsWith('string_literal'));
  return path ? importPathOfText(path.text()) : '';
}

function importPathOfText(text: string): string {
  return /["`]([^"`]*)["`]/.exec(text)?.[1] ?? text;
}

