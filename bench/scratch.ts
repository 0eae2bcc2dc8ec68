import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * A temporary folder for one bench run and the function that removes it; unless `keep`, it is removed
 * too when the run is interrupted (Ctrl-C, SIGTERM).
 */
export async function scratchFolder(prefix: string, keep: boolean): Promise<{ dir: string; cleanup: () => void }> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), prefix));
  const cleanup = () => {
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      cleanup();
      process.exit(130);
    });
  }
  return { dir, cleanup };
}
