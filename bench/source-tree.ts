import type { Dirent } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

/**
 * Every regular file below `dir`, as paths relative to it. `descend` decides, per folder, whether to
 * enter it; unreadable folders are passed over and symlinks are not followed (their targets are listed
 * where they live).
 */
export async function* filesBelow(dir: string, descend: (name: string, relative: string) => boolean): AsyncGenerator<string> {
  const pending = [''];
  while (pending.length) {
    const relative = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = await fsp.readdir(path.join(dir, relative), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const child = relative ? path.join(relative, entry.name) : entry.name;
      if (entry.isDirectory()) {
        if (descend(entry.name, child)) pending.push(child);
      } else if (entry.isFile()) {
        yield child;
      }
    }
  }
}
