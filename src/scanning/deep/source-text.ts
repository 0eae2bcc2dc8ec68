import type { SgNode } from '@ast-grep/napi';

/**
 * `text` with every comment of its tree replaced by spaces (lines and offsets kept), for project-wide word
 * tests that a commented-out line must not pass.
 */
export function withoutComments(root: SgNode, text: string): string {
  const comments = root.findAll({ rule: { kind: 'comment' } } as never);
  if (!comments.length) return text;
  let out = '';
  let at = 0;
  for (const comment of comments) {
    const { start, end } = comment.range();
    out += text.slice(at, start.index) + ' '.repeat(end.index - start.index);
    at = end.index;
  }
  return out + text.slice(at);
}
