import fs from 'node:fs/promises';
import path from 'node:path';

// The files of a work tree, for fixers that look at what the app does elsewhere (its settings, its
// templates' scripts). Symbolic links are not followed; folders of installed dependencies, virtual
// environments and version control are left out, and the walk stops after a bounded number of files.

const SKIPPED = new Set(['.git', 'node_modules', 'venv', '.venv', 'env', 'site-packages', '__pycache__', 'bower_components', '.tox', '.mypy_cache']);
const MAX_FILES = 20_000;

export async function treeFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    const entries = await fs.readdir(path.join(dir, relative), { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (found.length >= MAX_FILES) return;
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory() && !SKIPPED.has(entry.name)) await walk(child);
      else if (entry.isFile()) found.push(child);
    }
  };
  await walk('');
  return found;
}
