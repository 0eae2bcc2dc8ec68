import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { MAX_FILE_BYTES } from '../source-files.ts';

export interface AddedText {
  commit: string;
  path: string;
  /** The lines a commit added to a file, joined with newlines. */
  text: string;
  /** For each line of `text`, its line number in the file as of that commit. */
  lines: number[];
}

/**
 * Streams the lines each of the last `depth` commits reachable from `commit` added, file by file
 * (`git log -p -U0`), so secrets committed and later deleted are still found. A file renamed or copied
 * with edits yields the lines the edits added, under its new name. A file to which one commit adds more
 * than `maxFileChars` is passed over in that commit, as the tree's files over that size are.
 */
export async function* addedTextInHistory(
  gitDir: string,
  commit: string,
  depth: number,
  signal?: AbortSignal,
  maxFileChars = MAX_FILE_BYTES,
): AsyncGenerator<AddedText> {
  if (depth <= 0) return;
  const child = spawn(
    'git',
    [
      '--git-dir', gitDir, '-c', 'core.quotePath=false', 'log', '--no-color', '--no-merges', '--no-ext-diff', '--no-textconv',
      // Renames and copies count (-M, -C, R and C kept): a commit that moves a file and edits it adds lines too.
      '-M', '-C', '--diff-filter=AMRC', '--src-prefix=a/', '--dst-prefix=b/', '--format=%x00%H', '-p', '-U0', `--max-count=${depth}`, commit, '--',
    ],
    { stdio: ['ignore', 'pipe', 'ignore'], signal, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C' } },
  );
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.once('error', () => {});
  // The file being read. Its added lines are joined once it is complete: one flat string, rather than a
  // rope of slices that would keep every chunk git wrote alive until the text is scanned.
  let current: { commit: string; path: string; added: string[]; lines: number[]; chars: number } | undefined;
  const finish = (): AddedText | undefined => {
    const file = current;
    current = undefined;
    return file?.lines.length ? { commit: file.commit, path: file.path, text: file.added.join('\n'), lines: file.lines } : undefined;
  };
  let sha = '';
  let nextLine = 0;
  const lines = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (line.startsWith('\0') || line.startsWith('diff --git ')) {
        const done = finish();
        if (done) yield done;
        if (line.startsWith('\0')) sha = line.slice(1).trim();
      } else if (line.startsWith('+++ ')) {
        // Git ends the name with a tab when it holds a space (for patch(1)); the tab is not part of it.
        const target = line.slice(4).replace(/\t$/, '');
        current = target === '/dev/null' ? undefined : { commit: sha, path: target.replace(/^b\//, ''), added: [], lines: [], chars: 0 };
      } else if (line.startsWith('@@')) {
        nextLine = Number(/\+(\d+)/.exec(line)?.[1] ?? 0);
      } else if (current && line.startsWith('+')) {
        current.added.push(line.slice(1));
        current.lines.push(nextLine++);
        current.chars += line.length;
        // Like a file of the tree that large (generated, a data dump), the rest of this one is passed over.
        if (current.chars > maxFileChars) current = undefined;
      }
    }
    const done = finish();
    if (done) yield done;
  } finally {
    lines.close();
    if (child.exitCode === null) child.kill();
    await exited;
  }
}
