import fs from 'node:fs/promises';
import path from 'node:path';

/** A path the model gave that the tools will not touch; the message goes back to the model as the tool's answer. */
export class PathRefused extends Error {}

export interface TreePath {
  /** Repository-relative POSIX path after following symbolic links inside the tree; `''` is the root. */
  rel: string;
  abs: string;
  /** False when the path (or a folder on the way to it) does not exist yet. */
  exists: boolean;
}

/** Whether `abs` is `root` or lies under it; both must be real paths. */
export function isInside(root: string, abs: string): boolean {
  return abs === root || abs.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

export function toRel(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join('/');
}

/**
 * Resolves a path the model gave against the work tree whose real path is `root`. Refuses absolute paths,
 * `..` escapes, anything in `.git`, and symbolic links whose target lies outside the tree; links inside the
 * tree are followed, so `rel` names the file that is really read or written.
 */
export async function resolveInTree(root: string, input: unknown, what = 'path'): Promise<TreePath> {
  if (typeof input !== 'string') throw new PathRefused(`${what} must be a string`);
  if (input.includes('\0')) throw new PathRefused(`${what} must not contain NUL characters`);
  if (path.isAbsolute(input) || path.posix.isAbsolute(input) || /^[a-zA-Z]:[\\/]/.test(input)) {
    throw new PathRefused(`${what} "${input}" is absolute; give a path relative to the repository root`);
  }
  const normalized = path.posix.normalize(input === '' ? '.' : input);
  if (normalized === '..' || normalized.startsWith('../')) {
    throw new PathRefused(`${what} "${input}" leads outside the repository`);
  }
  const segments = normalized.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('.git')) throw new PathRefused(`${what} "${input}": the .git folder is not accessible`);

  let current = root;
  for (let i = 0; i < segments.length; i++) {
    const next = path.join(current, segments[i]);
    let stat;
    try {
      stat = await fs.lstat(next);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { rel: toRel(root, path.join(current, ...segments.slice(i))), abs: path.join(current, ...segments.slice(i)), exists: false };
      if (code === 'ENOTDIR') throw new PathRefused(`${what} "${input}": ${segments.slice(0, i).join('/')} is a file, not a folder`);
      throw new PathRefused(`${what} "${input}" cannot be read (${code ?? 'error'})`);
    }
    if (stat.isSymbolicLink()) {
      let target: string;
      try {
        target = await fs.realpath(next);
      } catch {
        throw new PathRefused(`${what} "${input}" is a broken symbolic link`);
      }
      if (!isInside(root, target)) throw new PathRefused(`${what} "${input}" is a symbolic link that leads outside the repository`);
      if (toRel(root, target).split('/').includes('.git')) throw new PathRefused(`${what} "${input}": the .git folder is not accessible`);
      current = target;
    } else {
      current = next;
    }
  }
  return { rel: toRel(root, current), abs: current, exists: true };
}

export interface TreeEntry {
  rel: string;
  abs: string;
  kind: 'file' | 'symlink';
}

/**
 * Files under a folder of the tree, depth first in name order, without `.git` and without descending
 * into symbolic links (they are listed, not followed). Unreadable folders are passed over. Stops after
 * `maxEntries` entries.
 */
export async function* walkTree(root: string, start: TreePath, maxEntries: number): AsyncGenerator<TreeEntry> {
  let yielded = 0;
  const stack: string[] = [start.abs];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const folders: string[] = [];
    for (const entry of entries) {
      if (entry.name === '.git') continue;
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) folders.push(abs);
      else if (entry.isFile() || entry.isSymbolicLink()) {
        yield { rel: toRel(root, abs), abs, kind: entry.isFile() ? 'file' : 'symlink' };
        if (++yielded >= maxEntries) return;
      }
    }
    // Files of a folder come before its subfolders; subfolders in name order.
    for (let i = folders.length - 1; i >= 0; i--) stack.push(folders[i]);
  }
}
