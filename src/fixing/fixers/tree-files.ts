import fs from 'node:fs/promises';
import path from 'node:path';
import { FixError } from '../types.ts';

// Fixers read and write files the scan named. A checkout may hold symbolic links, so a path is resolved
// and must stay a regular file inside the work tree: a link must never let a fix write elsewhere.

async function resolveInTree(dir: string, relative: string): Promise<string | null> {
  const normalized = path.posix.normalize(relative.replaceAll('\\', '/'));
  if (normalized.startsWith('../') || normalized === '..' || path.posix.isAbsolute(normalized)) {
    throw new FixError(`${relative} is outside the repository`);
  }
  const root = await fs.realpath(dir);
  const absolute = path.join(root, normalized);
  let stat;
  try {
    stat = await fs.lstat(absolute);
  } catch {
    return null;
  }
  if (stat.isSymbolicLink() || !stat.isFile()) throw new FixError(`${normalized} is not a regular file, so it is not changed`);
  const real = await fs.realpath(absolute);
  if (!real.startsWith(root + path.sep)) throw new FixError(`${normalized} is outside the repository`);
  return real;
}

/** A file of the work tree by repository path; null when it does not exist. */
export async function readTreeFile(dir: string, relative: string): Promise<string | null> {
  const absolute = await resolveInTree(dir, relative);
  return absolute === null ? null : fs.readFile(absolute, 'utf8');
}

/** Replaces an existing file of the work tree. */
export async function writeTreeFile(dir: string, relative: string, text: string): Promise<void> {
  const absolute = await resolveInTree(dir, relative);
  if (absolute === null) throw new FixError(`${relative} does not exist`);
  await fs.writeFile(absolute, text);
}


/** Writes a file of the work tree, creating it when it does not exist (its folder must). */
export async function createOrWriteTreeFile(dir: string, relative: string, text: string): Promise<void> {
  const absolute = await resolveInTree(dir, relative);
  if (absolute !== null) return fs.writeFile(absolute, text);
  const root = await fs.realpath(dir);
  const target = path.join(root, path.posix.normalize(relative));
  const folder = await fs.realpath(path.dirname(target));
  if (folder !== root && !folder.startsWith(root + path.sep)) throw new FixError(`${relative} is outside the repository`);
  await fs.writeFile(target, text, { flag: 'wx' });
}
