import { PathRefused, readTreeBytes, writeTreeFile as writeTree } from '../../../scm/work-tree.ts';
import { FixError } from '../../types.ts';

// Fixers read and write files the scan named, through src/scm/work-tree.ts: no symbolic link is followed,
// only regular files inside the work tree are touched. Its refusals become the fix's error.

const MAX_TREE_FILE_BYTES = 64 * 1024 * 1024;

async function refusedAsFixError<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof PathRefused) throw new FixError(error.message);
    throw error;
  }
}

/** A file of the work tree by repository path; null when it does not exist. */
export async function readTreeFile(dir: string, relative: string): Promise<string | null> {
  const read = await refusedAsFixError(readTreeBytes(dir, relative, MAX_TREE_FILE_BYTES));
  if (read && !read.bytes) throw new FixError(`${relative} is too large (${read.size} bytes) to change`);
  return read ? read.bytes!.toString('utf8') : null;
}

/** Whether a regular file is at that repository path (reached without a symbolic link). */
export async function isTreeFile(dir: string, relative: string): Promise<boolean> {
  return readTreeBytes(dir, relative, 0).then((read) => read !== null, () => false);
}

/** Replaces an existing file of the work tree. */
export async function writeTreeFile(dir: string, relative: string, text: string): Promise<void> {
  await refusedAsFixError(writeTree(dir, relative, text, { create: false }));
}

/** Writes a file of the work tree, creating it (and its folders) when it does not exist. */
export async function createOrWriteTreeFile(dir: string, relative: string, text: string): Promise<void> {
  await refusedAsFixError(writeTree(dir, relative, text, { create: true }));
}
