import { spawn } from 'node:child_process';
import readline from 'node:readline';

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
 * with edits yields the lines the edits added, under its new name.
 */
export async function* addedTextInHistory(
  gitDir: string,
  commit: string,
  depth: number,
  signal?: AbortSignal,
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
  let current: AddedText | undefined;
  let sha = '';
  let nextLine = 0;
  const lines = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (line.startsWith('\0')) {
        if (current?.lines.length) yield current;
        current = undefined;
        sha = line.slice(1).trim();
      } else if (line.startsWith('diff --git ')) {
        if (current?.lines.length) yield current;
        current = undefined;
      } else if (line.startsWith('+++ ')) {
        // Git ends the name with a tab when it holds a space (for patch(1)); the tab is not part of it.
        const target = line.slice(4).replace(/\t$/, '');
        current = target === '/dev/null' ? undefined : { commit: sha, path: target.replace(/^b\//, ''), text: '', lines: [] };
      } else if (line.startsWith('@@')) {
        nextLine = Number(/\+(\d+)/.exec(line)?.[1] ?? 0);
      } else if (current && line.startsWith('+')) {
        current.text += (current.lines.length ? '\n' : '') + line.slice(1);
        current.lines.push(nextLine++);
      }
    }
    if (current?.lines.length) yield current;
  } finally {
    lines.close();
    if (child.exitCode === null) child.kill();
    await exited;
  }
}
