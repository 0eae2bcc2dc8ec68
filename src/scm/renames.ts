import { git } from './git-command.ts';

/**
 * The files git's rename detection (`git diff -M`) sees moved between two commits of a repository, as a
 * map from the old path to the new one. Read from the repository's git directory (the bare mirror); no
 * work tree or network is needed. Renames with edits count while git finds the files similar enough.
 */
export async function renamedFiles(
  gitDir: string,
  fromCommit: string,
  toCommit: string,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<Map<string, string>> {
  const renames = new Map<string, string>();
  if (fromCommit === toCommit) return renames;
  const output = await git(
    ['--git-dir', gitDir, 'diff', '--no-ext-diff', '-M', '--diff-filter=R', '--name-status', '-z', fromCommit, toCommit],
    { timeoutMs: options.timeoutMs, signal: options.signal },
  );
  // -z: "R<score>\0<old>\0<new>\0" per rename.
  const fields = output.split('\0');
  for (let i = 0; i + 2 < fields.length; ) {
    const status = fields[i];
    if (status.startsWith('R')) {
      renames.set(fields[i + 1], fields[i + 2]);
      i += 3;
    } else {
      i += 2;
    }
  }
  return renames;
}
