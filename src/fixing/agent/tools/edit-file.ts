import type { ToolDefinition } from '../../../llm/provider.ts';
import { isFolder, readText, splitLines, ToolRefused, type Args, type RepoToolContext } from '../../../llm/repo-tools/context.ts';
import { isGitControlPath, resolveInTree, writeTreeFile, type TreePath } from '../../../scm/work-tree.ts';
import { untrustedBlock } from '../prompt.ts';

/** What edit_file works with: the run's repository tool context and the set of paths the tools wrote. */
export interface EditContext extends RepoToolContext {
  /** Repository-relative POSIX paths the tools wrote. */
  changed: Set<string>;
}

export const EDIT_FILE_TOOL: ToolDefinition = {
  name: 'edit_file',
  description:
    'Replaces old_text with new_text in a file. old_text must match the file exactly (whitespace and indentation included, ' +
    'without read_file\'s line-number prefixes) and occur exactly once; add surrounding lines to make it unique. ' +
    'To create a new file, give an empty old_text and the whole content as new_text.',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path relative to the repository root.' },
      old_text: { type: 'string', description: 'The exact text to replace; empty only to create a file that does not exist.' },
      new_text: { type: 'string', description: 'The replacement text.' },
    },
    required: ['path', 'old_text', 'new_text'],
    additionalProperties: false,
  },
};

/**
 * CI pipelines and hooks run with the repository's secrets when the fix branch is pushed, which makes
 * them what instructions planted in repository content would aim for; the agent may read them, not edit.
 */
const PIPELINE_FILES =
  /^(?:\.github\/|\.gitlab\/|\.gitlab-ci\.ya?ml$|\.circleci\/|\.buildkite\/|\.azure-pipelines\/|azure-pipelines\.ya?ml$|\.travis\.ya?ml$|bitbucket-pipelines\.ya?ml$|Jenkinsfile|\.husky\/|\.githooks\/|\.pre-commit-config\.ya?ml$)/i;

/** Lines shown around an edit, and at most this many in all. */
const CONTEXT_LINES = 2;
const MAX_SNIPPET_LINES = 60;

/** `edit_file`: replaces one exact occurrence of old_text, or creates a file when old_text is empty. */
export async function editFile(ctx: EditContext, args: Args): Promise<string> {
  const target = await resolveInTree(ctx.root, args.string('path'));
  const { oldText, newText } = revealedTexts(ctx, args.string('old_text'), args.string('new_text'));
  if (target.rel === '') throw new ToolRefused('path must name a file');
  if (PIPELINE_FILES.test(target.rel)) {
    throw new ToolRefused(`"${target.rel}" configures CI or git hooks, which a fix never changes; leave it as it is`);
  }
  if (isGitControlPath(target.rel)) {
    throw new ToolRefused(`"${target.rel}" controls how git treats the repository, which a fix never changes; leave it as it is`);
  }
  if (!target.exists) return createFile(ctx, target, oldText, newText);
  if (await isFolder(target)) throw new ToolRefused(`"${target.rel}" is not a file`);
  if (oldText === '') throw new ToolRefused(`"${target.rel}" already exists; give the exact text to replace as old_text`);
  const edit = replaceExactlyOnce(await readText(ctx, target), oldText, newText, target.rel);
  await writeTreeFile(ctx.root, target.rel, edit.updated, { create: false });
  ctx.changed.add(target.rel);
  return editReport(ctx, target.rel, edit);
}

/**
 * The model's texts with the secrets it saw as placeholders put back. A placeholder may stay only where
 * old_text has it: copying a secret elsewhere is refused.
 */
export function revealedTexts(ctx: Pick<RepoToolContext, 'veil'>, rawOld: string, rawNew: string): { oldText: string; newText: string } {
  const kept = ctx.veil.placeholdersIn(rawOld);
  if (ctx.veil.placeholdersIn(rawNew).some((placeholder) => !kept.includes(placeholder))) {
    throw new ToolRefused('new_text may keep a secret placeholder only where old_text has it; a secret must not be copied elsewhere. Nothing was changed.');
  }
  return { oldText: ctx.veil.reveal(rawOld), newText: ctx.veil.reveal(rawNew) };
}

async function createFile(ctx: EditContext, target: TreePath, oldText: string, newText: string): Promise<string> {
  if (oldText !== '') throw new ToolRefused(`"${target.rel}" does not exist; to create it, give an empty old_text`);
  await writeTreeFile(ctx.root, target.rel, newText, { create: true });
  ctx.changed.add(target.rel);
  return `Created ${target.rel} (${splitLines(newText).length} lines).`;
}

export interface TextEdit {
  updated: string;
  /** Offset of the replacement in `updated`. */
  at: number;
  /** The replacement as written (with the file's line ends). */
  written: string;
}

/** Replaces the one occurrence of `oldText`; refuses none or several, with what to do instead. */
export function replaceExactlyOnce(text: string, oldText: string, newText: string, rel: string): TextEdit {
  let from = oldText;
  let to = newText;
  let positions = occurrences(text, from);
  if (positions.length === 0 && text.includes('\r\n') && from.includes('\n') && !from.includes('\r\n')) {
    // read_file shows lines without their \r; match the file's CRLF line ends and keep them.
    from = oldText.replace(/\n/g, '\r\n');
    to = newText.replace(/\r?\n/g, '\r\n');
    positions = occurrences(text, from);
  }
  if (positions.length === 0) {
    throw new ToolRefused(
      `old_text was not found in "${rel}". It must match the file exactly, including whitespace and indentation, ` +
        'without the line-number prefixes read_file adds; read the lines again and copy them.',
    );
  }
  if (positions.length > 1) {
    const lineNumbers = positions.slice(0, 10).map((p) => lineOf(text, p));
    throw new ToolRefused(
      `old_text occurs ${positions.length} times in "${rel}" (starting at lines ${lineNumbers.join(', ')}${positions.length > 10 ? ', …' : ''}); ` +
        'include more surrounding lines so that it occurs exactly once. Nothing was changed.',
    );
  }
  if (from === to) throw new ToolRefused('old_text and new_text are the same; nothing to change');
  const at = positions[0];
  return { updated: text.slice(0, at) + to + text.slice(at + from.length), at, written: to };
}

/** Where the new text landed, with a few lines around it (secrets hidden) so the model can check the edit. */
function editReport(ctx: EditContext, rel: string, edit: TextEdit): string {
  const firstLine = lineOf(edit.updated, edit.at);
  const lastLine = Math.max(firstLine, lineOf(edit.updated, edit.at + Math.max(edit.written.length - 1, 0)));
  const lines = splitLines(ctx.veil.hide(edit.updated));
  const from = Math.max(1, firstLine - CONTEXT_LINES);
  const to = Math.min(lines.length, lastLine + CONTEXT_LINES, from + MAX_SNIPPET_LINES);
  const width = String(to).length;
  const snippet = lines.slice(from - 1, to).map((line, i) => `${String(from + i).padStart(width)}\t${line}`).join('\n');
  return (
    `Edited ${rel}: replaced 1 occurrence; the new text is at lines ${firstLine}-${lastLine}.` +
    (snippet ? `\n${untrustedBlock('file', { path: rel, lines: `${from}-${to}`, total_lines: lines.length }, snippet, ctx.boundary)}` : '')
  );
}

/** Start offsets of every occurrence, overlapping ones included. */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) found.push(at);
  return found;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
