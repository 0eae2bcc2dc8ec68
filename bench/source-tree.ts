import fs, { type Dirent } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { MAX_FILE_BYTES, skipReason } from '../src/scanning/source-files.ts';

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

const SOURCE_EXTENSIONS = new Set(
  'js ts mjs cjs mts cts jsx tsx json md py pyi go java rb yml yaml sh bash toml ini cfg rst txt html css'.split(' '),
);
const SKIP_DIRS = new Set(['.git', '.bin', '.cache', '.npm']);

export interface SourceFile {
  source: string;
  /** Relative to a corpus root. */
  dest: string;
  size: number;
}

/** Source trees already on the machine, never downloaded: this project's node_modules, the global npm, /usr/lib/python3*. */
function sourceRoots(project: string): { label: string; dir: string }[] {
  const roots = [
    { label: 'npm', dir: path.join(project, 'node_modules') },
    { label: 'npm-global', dir: '/usr/lib/node_modules' },
  ];
  try {
    for (const name of fs.readdirSync('/usr/lib').sort()) {
      if (/^python3(?:\.\d+)?$/.test(name)) roots.push({ label: name, dir: path.join('/usr/lib', name) });
    }
  } catch {
    // no /usr/lib
  }
  return roots.filter((r) => fs.existsSync(r.dir));
}

/** Renames folders the engine would not enter (vendored, fixtures) and hidden names, which ripgrep skips. */
function corpusPath(label: string, relative: string): string | undefined {
  const parts = relative.split(path.sep);
  const base = parts.pop()!;
  if (base.startsWith('.')) return undefined;
  const dirs = parts.map((p) => {
    let name = p.startsWith('.') ? `_${p.slice(1)}` : p;
    const reason = skipReason(`${name}/file.txt`);
    if (reason === 'vendored' || reason === 'fixture') name = `x_${name}`;
    return name;
  });
  const dest = [label, ...dirs, base].join('/');
  return skipReason(dest) ? undefined : dest;
}

/**
 * The machine's source files an engine would scan, each with a corpus path (a source label in front, and
 * folder names the engine skips renamed so every copy is scanned), sorted by that path.
 */
export async function listCorpusSources(project: string): Promise<SourceFile[]> {
  const files: SourceFile[] = [];
  for (const { label, dir } of sourceRoots(project)) {
    // node_modules/node is the Node.js binary package, not source.
    const descend = (name: string, child: string) => !SKIP_DIRS.has(name) && !(label.startsWith('npm') && child === 'node');
    for await (const child of filesBelow(dir, descend)) {
      const base = path.basename(child);
      const ext = base.includes('.') ? base.split('.').pop()!.toLowerCase() : '';
      if (!SOURCE_EXTENSIONS.has(ext)) continue;
      const dest = corpusPath(label, child);
      if (!dest) continue;
      const { size } = await fsp.stat(path.join(dir, child));
      if (size === 0 || size > MAX_FILE_BYTES) continue;
      files.push({ source: path.join(dir, child), dest, size });
    }
  }
  return files.sort((a, b) => (a.dest < b.dest ? -1 : a.dest > b.dest ? 1 : 0));
}
