import fs from 'node:fs';
import path from 'node:path';

/** The work-tree folders this process's checkout caches keep under a checkout root. */
export function ownWorkTreeFolders(root: string): string[] {
  const base = path.join(root, 'worktrees');
  if (!fs.existsSync(base)) return [];
  return fs.readdirSync(base).map((name) => path.join(base, name)).filter((dir) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(dir, 'owner.json'), 'utf8')).pid === process.pid;
    } catch {
      return false;
    }
  });
}

/** Whether a work tree named `workId` of this process exists under the root. */
export function workTreeExists(root: string, workId: string): boolean {
  return ownWorkTreeFolders(root).some((dir) => fs.existsSync(path.join(dir, workId)));
}

/** Every work tree under the root, of any process, as `<process folder>/<work id>`. */
export function workTreesUnder(root: string): string[] {
  const base = path.join(root, 'worktrees');
  if (!fs.existsSync(base)) return [];
  return fs.readdirSync(base).flatMap((owner) =>
    fs.readdirSync(path.join(base, owner)).filter((name) => name !== 'owner.json').map((name) => `${owner}/${name}`),
  );
}
