import path from 'node:path';
import { createOrWriteTreeFile, isTreeFile, readTreeFile } from '../shared/tree-files.ts';

// The committed list of the environment variables an app needs, without values: the nearest
// `.env.example` (or `.env.sample`, `.env.template`, `.env.dist`) above the changed file, else a new
// `.env.example` at the repository's root. Each variable a fix introduces gets a `NAME=` line.

const TEMPLATES = ['.env.example', '.env.sample', '.env.template', '.env.dist'];

/** Adds the variables the template lacks; returns its repository-relative path when it changed. */
export async function listInEnvTemplate(dir: string, file: string, names: string[]): Promise<string | null> {
  const template = (await nearestTemplate(dir, file)) ?? '.env.example';
  const text = (await readTreeFile(dir, template)) ?? '';
  const missing = [...new Set(names)].filter((name) => !new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=`, 'm').test(text));
  if (!missing.length) return null;
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  const lead = text === '' || text.endsWith('\n') ? '' : newline;
  await createOrWriteTreeFile(dir, template, `${text}${lead}${missing.map((name) => `${name}=${newline}`).join('')}`);
  return template;
}

async function nearestTemplate(dir: string, file: string): Promise<string | null> {
  for (let folder = path.posix.dirname(file); ; folder = path.posix.dirname(folder)) {
    for (const name of TEMPLATES) {
      const candidate = folder === '.' ? name : `${folder}/${name}`;
      if (await isTreeFile(dir, candidate)) return candidate;
    }
    if (folder === '.' || folder === '/' || folder === '') return null;
  }
}
