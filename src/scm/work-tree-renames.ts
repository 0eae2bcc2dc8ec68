import fs from 'node:fs/promises';
import path from 'node:path';
import { git } from './git-command.ts';

// Comparing a commit with a work tree makes git read the work tree's files and index, which a repository's
// configuration can turn into commands run: a filter driver's clean command for every file whose recorded
// stat no longer matches, an fsmonitor hook, external diff and textconv programs. Each is switched off here,
// and git works on a copy of the index (it rewrites the index it reads to record fresh stat data), so the
// work tree and its index are left as they were.

/** Settings given on the command line, which outrank the repository's own. */
const OVERRIDES = ['core.hooksPath=/dev/null', 'core.fsmonitor=false', 'core.splitIndex=false'];

/** The filter drivers the repository's configuration defines (`filter.<driver>.clean` and so on). */
async function filterDrivers(workTree: string, timeoutMs: number): Promise<string[]> {
  let names: string;
  try {
    names = await git(['config', '-z', '--name-only', '--get-regexp', '^filter\\.'], { cwd: workTree, timeoutMs });
  } catch {
    return []; // none defined (git config exits 1)
  }
  const drivers = new Set<string>();
  for (const name of names.split('\0')) {
    const last = name.lastIndexOf('.');
    if (name.startsWith('filter.') && last > 'filter.'.length) drivers.add(name.slice('filter.'.length, last));
  }
  return [...drivers];
}

/**
 * Every filter driver turned into no filter: an empty `process` and command are never run, and a driver
 * marked required would otherwise fail. Passed as GIT_CONFIG_COUNT entries, which unlike `-c name=value`
 * keep a driver name holding `=` whole.
 */
function neutralizedFilters(drivers: string[]): Record<string, string> {
  const settings = drivers.flatMap((d) => [
    [`filter.${d}.process`, ''],
    [`filter.${d}.clean`, ''],
    [`filter.${d}.smudge`, ''],
    [`filter.${d}.required`, 'false'],
  ]);
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(settings.length) };
  settings.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/**
 * The files git's rename detection sees moved between `commit` and the work tree around `dir` (its tracked
 * files as they are on disk, staged or not), old path to new, both relative to `dir`; renames into or out of
 * `dir` when it is a folder inside the work tree are left out. `scratch` is an empty folder for the index copy.
 */
export async function renamedSinceCommit(dir: string, commit: string, options: { scratch: string; timeoutMs: number }): Promise<Map<string, string>> {
  const { timeoutMs } = options;
  const indexPath = path.resolve(dir, (await git(['rev-parse', '--git-path', 'index'], { cwd: dir, timeoutMs })).trim());
  const indexCopy = path.join(options.scratch, 'index');
  try {
    await fs.copyFile(indexPath, indexCopy);
  } catch (error) {
    // No index yet: git reads a missing index file as an empty one.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const output = await git(
    [
      ...OVERRIDES.flatMap((setting) => ['-c', setting]),
      'diff', '--no-ext-diff', '--no-textconv', '--relative', '-M', '--diff-filter=R', '--name-status', '-z', commit, '--',
    ],
    {
      cwd: dir,
      timeoutMs,
      env: { ...neutralizedFilters(await filterDrivers(dir, timeoutMs)), GIT_INDEX_FILE: indexCopy, GIT_OPTIONAL_LOCKS: '0', GIT_NO_LAZY_FETCH: '1' },
    },
  );
  const renames = new Map<string, string>();
  // -z: "R<score>\0<old>\0<new>\0" per rename.
  const fields = output.split('\0');
  for (let i = 0; i + 2 < fields.length; ) {
    if (fields[i].startsWith('R')) {
      renames.set(fields[i + 1], fields[i + 2]);
      i += 3;
    } else {
      i += 2;
    }
  }
  return renames;
}
