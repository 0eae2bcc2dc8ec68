import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import type { FixWorkspace } from '../../src/fixing/types.ts';

const roots: string[] = [];
after(() => roots.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** A fixer's workspace holding `files` (paths may name folders), in a temporary folder removed when the test file ends. */
export function workTree(files: Record<string, string>): FixWorkspace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-fix-'));
  roots.push(dir);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return { dir, signal: new AbortController().signal, step: async () => {} };
}

/** A file of the workspace as the fixer left it. */
export const read = (workspace: FixWorkspace, file: string) => fs.readFileSync(path.join(workspace.dir, file), 'utf8');
