import { untrustedBlock } from '../untrusted.ts';
import { resolveInTree, walkTree } from '../../scm/work-tree.ts';
import { isFolder, TOOL_LIMITS, ToolRefused, type Args, type RepoToolContext } from './context.ts';

/** `list_files`: the files under a folder, recursively in name order, up to the listing limit. */
export async function listFiles(ctx: RepoToolContext, args: Args): Promise<string> {
  const folder = await resolveInTree(ctx.root, args.optionalString('path') ?? '');
  if (!folder.exists) throw new ToolRefused(`"${folder.rel}" does not exist`);
  if (!(await isFolder(folder))) throw new ToolRefused(`"${folder.rel}" is a file; use read_file to read it`);
  const names: string[] = [];
  let more = false;
  for await (const entry of walkTree(ctx.root, folder.rel, { maxEntries: TOOL_LIMITS.listEntries + 1 })) {
    if (names.length === TOOL_LIMITS.listEntries) {
      more = true;
      break;
    }
    names.push(entry.kind === 'symlink' ? `${entry.rel} (symbolic link)` : entry.rel);
  }
  const where = folder.rel || '.';
  if (names.length === 0) return `No files under ${where}.`;
  const note = more
    ? `\nShowing the first ${TOOL_LIMITS.listEntries} files under ${where}; list a subfolder to see the rest.`
    : `\n${names.length} file${names.length === 1 ? '' : 's'} under ${where}.`;
  return untrustedBlock('listing', { path: where }, names.join('\n'), ctx.boundary) + note;
}
