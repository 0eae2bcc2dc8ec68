import { constants, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

// The one way into a checkout's files. A scanned repository is hostile: a symbolic link in it may point at
// the server's own files (its encryption key, /etc/passwd, /proc/self/environ) or at another organization's
// checkout, and a FIFO or device would block or stream forever. So no symbolic link inside the tree is ever
// followed, only regular files are read or written, and the file opened is checked to be the one that was
// looked at (O_NOFOLLOW, then the open descriptor's device and inode against the path's).

/** A path that is not read or written; the message says why, without the content of anything. */
export class PathRefused extends Error {}

export interface TreePath {
  /** Repository-relative POSIX path; `''` is the root. */
  rel: string;
  abs: string;
  /** False when the path (or a folder on the way to it) does not exist yet. */
  exists: boolean;
}

/** A folder name git itself reads (`.git`, and its 8.3 short name on Windows), compared as git compares it. */
function isGitFolderName(name: string): boolean {
  const plain = name.toLowerCase().replace(/[. ]+$/, '');
  return plain === '.git' || plain === 'git~1';
}

const GIT_CONTROL_FILES = new Set(['.gitattributes', '.gitmodules', '.gitconfig', '.lfsconfig']);

/**
 * Whether a repository path changes how git or a code host treats the repository: anything in `.git`
 * (or a `.git` file), attributes (filters, diff drivers, export rules), submodules, repository git/LFS
 * configuration. A fix never writes these.
 */
export function isGitControlPath(rel: string): boolean {
  const segments = rel.split('/');
  if (segments.some(isGitFolderName)) return true;
  return GIT_CONTROL_FILES.has((segments.at(-1) ?? '').toLowerCase().replace(/[. ]+$/, ''));
}

/**
 * Resolves a repository-relative path under `root` without following any symbolic link. Refuses non-strings,
 * NUL, absolute paths, `..` escapes, anything in `.git`, and every path with a symbolic link on the way.
 */
export async function resolveInTree(root: string, input: unknown, what = 'path', folders?: CheckedFolders): Promise<TreePath> {
  return (await resolveWithStat(root, input, what, folders)).path;
}

/**
 * Folders of one tree already found to be real folders (not links) during one operation over many of its
 * files (a scan's batch), so each file costs one look at itself rather than one per folder on its way.
 */
export type CheckedFolders = Set<string>;

async function resolveWithStat(root: string, input: unknown, what: string, folders?: CheckedFolders): Promise<{ path: TreePath; stat?: Stats }> {
  if (typeof input !== 'string') throw new PathRefused(`${what} must be a string`);
  if (input.includes('\0')) throw new PathRefused(`${what} must not contain NUL characters`);
  if (path.isAbsolute(input) || path.posix.isAbsolute(input) || /^[a-zA-Z]:[\\/]/.test(input)) {
    throw new PathRefused(`${what} "${input}" is absolute; give a path relative to the repository root`);
  }
  const normalized = path.posix.normalize(input === '' ? '.' : input.replaceAll('\\', '/'));
  if (normalized === '..' || normalized.startsWith('../')) throw new PathRefused(`${what} "${input}" leads outside the repository`);
  const segments = normalized.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.some(isGitFolderName)) throw new PathRefused(`${what} "${input}": the .git folder is not accessible`);
  const rel = segments.join('/');
  let current = root;
  let stat: Stats | undefined;
  for (let i = 0; i < segments.length; i++) {
    current = path.join(current, segments[i]);
    const last = i === segments.length - 1;
    if (!last && folders?.has(current)) continue;
    try {
      stat = await fs.lstat(current);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { path: { rel, abs: path.join(root, ...segments), exists: false } };
      if (code === 'ENOTDIR') throw new PathRefused(`${what} "${input}": ${segments.slice(0, i).join('/')} is a file, not a folder`);
      throw new PathRefused(`${what} "${input}" cannot be read (${code ?? 'error'})`);
    }
    if (stat.isSymbolicLink()) {
      throw new PathRefused(`${what} "${input}": ${segments.slice(0, i + 1).join('/')} is a symbolic link, which is not followed`);
    }
    if (!last && !stat.isDirectory()) {
      throw new PathRefused(`${what} "${input}": ${segments.slice(0, i + 1).join('/')} is a file, not a folder`);
    }
    if (!last) folders?.add(current);
  }
  return { path: { rel, abs: current, exists: true }, stat };
}

/**
 * Opens a resolved path if it is a regular file and still the one resolved (no link, no swap); `looked` is
 * what the resolution found there, when it looked at the path itself. Gives the open file's own stat too.
 */
async function openRegular(file: TreePath, flags: number, looked?: Stats): Promise<{ handle: fs.FileHandle; stat: Stats }> {
  const before = looked ?? (await fs.lstat(file.abs).catch(() => null));
  if (!before?.isFile()) throw new PathRefused(`"${file.rel}" is not a regular file`);
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file.abs, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    throw new PathRefused(`"${file.rel}" cannot be opened (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const after = await handle.stat();
  if (!after.isFile() || after.ino !== before.ino || after.dev !== before.dev) {
    await handle.close();
    throw new PathRefused(`"${file.rel}" changed while it was opened`);
  }
  return { handle, stat: after };
}

export interface TreeFileBytes {
  path: TreePath;
  size: number;
  /** The content; undefined when the file is larger than the limit (nothing is read then). */
  bytes?: Buffer;
}

/**
 * A regular file of the tree, read only when at most `maxBytes`; null when it does not exist. Throws
 * PathRefused for everything else (a link on the way, a folder, a FIFO or device, an escape).
 */
export async function readTreeBytes(root: string, input: unknown, maxBytes: number, folders?: CheckedFolders): Promise<TreeFileBytes | null> {
  const { path: file, stat: looked } = await resolveWithStat(root, input, 'path', folders);
  if (!file.exists) return null;
  if (file.rel === '') throw new PathRefused('path must name a file');
  const { handle, stat } = await openRegular(file, constants.O_RDONLY, looked);
  try {
    const { size } = stat;
    if (size > maxBytes) return { path: file, size };
    const bytes = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const { bytesRead } = await handle.read(bytes, read, size - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { path: file, size, bytes: bytes.subarray(0, read) };
  } finally {
    await handle.close();
  }
}

/** Whether a file's bytes are binary rather than text: a NUL among its first 8,000 bytes, as git judges. */
export function looksBinary(buffer: Buffer): boolean {
  return buffer.subarray(0, 8000).includes(0);
}

/** A file's UTF-8 text, or null when it is missing, refused, larger than `maxBytes`, or binary (a NUL early on). */
export async function readTreeText(root: string, input: unknown, maxBytes: number): Promise<string | null> {
  const read = await readTreeBytes(root, input, maxBytes).catch((err: unknown) => {
    if (err instanceof PathRefused) return null;
    throw err;
  });
  if (!read?.bytes || looksBinary(read.bytes)) return null;
  return read.bytes.toString('utf8');
}

/**
 * Writes a regular file of the tree: replaces an existing one, or, with `create`, makes it and any missing
 * folders. Refuses links, non-regular files and what changes how git treats the repository.
 */
export async function writeTreeFile(root: string, input: unknown, text: string, options: { create: boolean }): Promise<TreePath> {
  const file = await resolveInTree(root, input);
  if (file.rel === '') throw new PathRefused('path must name a file');
  if (isGitControlPath(file.rel)) throw new PathRefused(`"${file.rel}" controls how git treats the repository, which a fix never changes`);
  if (file.exists) {
    const { handle } = await openRegular(file, constants.O_WRONLY);
    try {
      await handle.truncate(0);
      await handle.write(text, 0, 'utf8');
    } finally {
      await handle.close();
    }
    return file;
  }
  if (!options.create) throw new PathRefused(`"${file.rel}" does not exist`);
  await fs.mkdir(path.dirname(file.abs), { recursive: true });
  // The folders made must be real folders of the tree: resolving again refuses a link raced into the way.
  const again = await resolveInTree(root, file.rel);
  if (again.exists) throw new PathRefused(`"${file.rel}" appeared while it was created`);
  const handle = await fs.open(file.abs, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666);
  try {
    await handle.write(text, 0, 'utf8');
  } finally {
    await handle.close();
  }
  return file;
}

export interface TreeEntry {
  rel: string;
  abs: string;
  /** A regular file, or a symbolic link (listed by name, never followed). FIFOs, sockets and devices are left out. */
  kind: 'file' | 'symlink';
}

export interface WalkOptions {
  /** Whether to go into a folder (by repository path and name); `.git` and links are never entered. */
  enter?: (rel: string, name: string) => boolean;
  maxEntries?: number;
}

/**
 * Files under a folder of the tree, depth first in name order, files of a folder before its subfolders,
 * without `.git` and without descending into symbolic links. Unreadable folders are passed over.
 */
export async function* walkTree(root: string, start: string, options: WalkOptions = {}): AsyncGenerator<TreeEntry> {
  const maxEntries = options.maxEntries ?? Infinity;
  let yielded = 0;
  const stack: string[] = [start];
  while (stack.length > 0) {
    const relative = stack.pop()!;
    let entries;
    try {
      entries = await fs.readdir(path.join(root, relative), { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const folders: string[] = [];
    for (const entry of entries) {
      if (isGitFolderName(entry.name)) continue;
      const rel = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!options.enter || options.enter(rel, entry.name)) folders.push(rel);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        yield { rel, abs: path.join(root, rel), kind: entry.isFile() ? 'file' : 'symlink' };
        if (++yielded >= maxEntries) return;
      }
    }
    for (let i = folders.length - 1; i >= 0; i--) stack.push(folders[i]);
  }
}
