import type { SgNode } from '@ast-grep/napi';

// A rule's `fix` is ast-grep-style: the replacement for the matched node, where `$NAME` stands for the
// node a metavariable captured and `$$$NAME` for the nodes a multi-metavariable captured (with the
// source text between them, so separators stay as written).

const METAVARIABLE = /\$\$\$([A-Z_][A-Z0-9_]*)|\$([A-Z_][A-Z0-9_]*)/g;

export type RenderedFix = { text: string } | { unbound: string };

export function renderFix(template: string, node: SgNode, source: string): RenderedFix {
  let unbound: string | undefined;
  const text = template.replace(METAVARIABLE, (whole, multi: string | undefined, single: string | undefined) => {
    if (multi) {
      const nodes = node.getMultipleMatches(multi);
      if (!nodes.length) return '';
      return source.slice(nodes[0].range().start.index, nodes.at(-1)!.range().end.index);
    }
    const captured = node.getMatch(single!);
    if (!captured) {
      unbound ??= whole;
      return whole;
    }
    return captured.text();
  });
  return unbound ? { unbound } : { text };
}
