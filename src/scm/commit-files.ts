import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { GitError, gitRecords, scrub } from './git-command.ts';

// A commit's files written to a folder straight from the object database: nothing of the repository is run
// or obeyed (no checkout, so no filters, hooks or attributes), its work tree and index are never read, and
// only regular files are written. Symbolic links and submodules are left out (the scanners pass over links
// in a work tree too), as is any path that is not a plain relative one or that names a `.git` folder.

export interface CommitFiles {
  written: number;
  /** Files whose content the repository does not hold (a partial clone); none of them was written. */
  missing: number;
}

export interface CommitFilesOptions {
  /** Only the files under this folder of the commit (`sub/dir/`, as `git rev-parse --show-prefix` says it), written relative to it. */
  prefix?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

const REGULAR_FILE_MODES: Record<string, number> = { '100644': 0o644, '100664': 0o644, '100755': 0o755 };

/** The environment every git run gets (git-command.ts): no prompts, no system or user configuration. */
const GIT_ENV: Record<string, string> = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_ASKPASS: 'true',
  SSH_ASKPASS: 'true',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  LC_ALL: 'C',
  // A partial clone would otherwise fetch what it lacks from its remote.
  GIT_NO_LAZY_FETCH: '1',
};

function isGitFolderName(name: string): boolean {
  const plain = name.toLowerCase().replace(/[. ]+$/, '');
  return plain === '.git' || plain === 'git~1';
}

/** The path's names, or null when it would not stay a plain path inside the destination. */
function safeSegments(rel: string): string[] | null {
  const segments = rel.split('/');
  return segments.every((s) => s !== '' && s !== '.' && s !== '..' && !isGitFolderName(s)) ? segments : null;
}

interface Entry {
  object: string;
  mode: number;
  segments: string[];
}

/** The commit's regular files under `prefix`, in the order git lists them. */
async function listEntries(gitDir: string, commit: string, options: CommitFilesOptions): Promise<Entry[]> {
  const prefix = options.prefix ?? '';
  const entries: Entry[] = [];
  await gitRecords(['--git-dir', gitDir, 'ls-tree', '-r', '-z', '--full-tree', commit], options, (record) => {
    const tab = record.indexOf('\t');
    const [mode, type, object] = record.slice(0, tab).split(' ');
    const rel = record.slice(tab + 1);
    if (type !== 'blob' || !(mode in REGULAR_FILE_MODES) || !rel.startsWith(prefix)) return true;
    const segments = safeSegments(rel.slice(prefix.length));
    if (segments) entries.push({ object, mode: REGULAR_FILE_MODES[mode], segments });
    return true;
  });
  return entries;
}

/**
 * Writes one file under `dest`, which this module alone fills: every folder on the way was made here, so
 * none is a link. A name used twice (a crafted tree) keeps its first file. Folders are made one at a time,
 * never recursively, so once `dest` is removed (an interrupted scan) nothing in flight can bring it back.
 */
async function writeEntry(dest: string, entry: Entry, content: Buffer, folders: Set<string>): Promise<boolean> {
  let folder = dest;
  try {
    for (const name of entry.segments.slice(0, -1)) {
      folder = path.join(folder, name);
      if (folders.has(folder)) continue;
      await fs.mkdir(folder);
      folders.add(folder);
    }
    const handle = await fs.open(path.join(folder, entry.segments.at(-1)!), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, entry.mode);
    try {
      await handle.writeFile(content);
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') return false;
    throw error;
  }
}

/**
 * Writes the regular files of `commit` (under `options.prefix`) into `dest`, an empty folder, reading each
 * file's content with one `git cat-file --batch`. `gitDir` is the repository's git directory.
 */
export async function writeCommitFiles(gitDir: string, commit: string, dest: string, options: CommitFilesOptions): Promise<CommitFiles> {
  const entries = await listEntries(gitDir, commit, options);
  const result: CommitFiles = { written: 0, missing: 0 };
  if (!entries.length) return result;

  const child = spawn('git', ['--git-dir', gitDir, 'cat-file', '--batch'], {
    env: { ...process.env, ...GIT_ENV },
    signal: options.signal,
    timeout: options.timeoutMs,
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 4096) stderr += chunk.toString('utf8');
  });
  const closed = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  // git stops reading when it fails; the reason comes from its exit, not from the broken pipe.
  child.stdin.on('error', () => {});
  child.stdin.end(entries.map((e) => `${e.object}\n`).join(''));

  const folders = new Set<string>();
  let next = 0;
  // Output per object: "<oid> <type> <size>\n<content>\n", or "<oid> missing\n".
  let chunks: Buffer[] = [];
  let buffered = 0;
  let size = -1;
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      buffered += chunk.length;
      for (;;) {
        if (size < 0) {
          const joined = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
          chunks = [joined];
          const newline = joined.indexOf(10);
          if (newline < 0) break;
          const header = joined.subarray(0, newline).toString('utf8').split(' ');
          chunks = [joined.subarray(newline + 1)];
          buffered = chunks[0].length;
          if (header[1] === 'missing') {
            result.missing++;
            next++;
            continue;
          }
          size = Number(header[2]);
          if (!Number.isInteger(size) || size < 0) throw new GitError(`git cat-file: unexpected output "${header.join(' ')}"`);
        }
        if (buffered < size + 1) break;
        const joined = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        const entry = entries[next++];
        if (!entry) throw new GitError('git cat-file: more objects than were asked for');
        if (await writeEntry(dest, entry, joined.subarray(0, size), folders)) result.written++;
        chunks = [joined.subarray(size + 1)];
        buffered = chunks[0].length;
        size = -1;
      }
    }
  } catch (error) {
    child.kill();
    await closed.catch(() => {});
    throw error;
  }
  const code = await closed;
  if (code !== 0 || next !== entries.length) {
    const detail = stderr.trim().split('\n').filter(Boolean).slice(-3).join(' ') || `git cat-file exited with ${code}`;
    throw new GitError(scrub(detail));
  }
  return result;
}
