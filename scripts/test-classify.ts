// Which test files need a database: a file that imports test/support/store.ts (itself or through other test
// modules, e.g. test/support/api.ts) opens one and runs once per database; every other file runs once.
// Type-only imports are erased before a file runs, so they do not count. test/support/store.ts refuses to
// load in the database-free pass, so a file this reading misses fails loudly instead of losing a database run.
import fs from 'node:fs';
import path from 'node:path';
import { moduleImports } from './module-imports.ts';

/** The one way a test file gets the database of the run. */
export const DATABASE_OPENER = 'test/support/store.ts';

/** The setting naming a pass's database; scripts/test.ts sets it to `none` for the database-free files. */
export const DATABASE_SETTING_NAME = 'BULWARK_TEST_DB';
export const DATABASE_FREE = 'none';

/** A file that reads the run's database settings itself uses a database too. */
const DATABASE_SETTING = /\bBULWARK_TEST_(?:DB|POSTGRES_URL)\b/;

/** The project files a module loads at run time (relative imports only: packages never open the test database). */
export function runtimeImports(file: string): string[] {
  return moduleImports(file, fs.readFileSync(file, 'utf8'))
    .filter((i) => !i.typeOnly && i.specifier.startsWith('.'))
    .map((i) => path.relative(process.cwd(), path.resolve(path.dirname(file), i.specifier)));
}

/** Whether `file` (a path relative to the repository root) opens a database, following its imports. */
export function opensDatabase(file: string, seen = new Set<string>()): boolean {
  const normalized = path.normalize(file);
  if (normalized === path.normalize(DATABASE_OPENER)) return true;
  // src/ never imports the test helpers, so the walk stays in test/ (and the file itself).
  if (seen.has(normalized) || (seen.size > 0 && !normalized.startsWith(`test${path.sep}`))) return false;
  seen.add(normalized);
  if (!fs.existsSync(normalized)) return false;
  if (DATABASE_SETTING.test(fs.readFileSync(normalized, 'utf8'))) return true;
  return runtimeImports(normalized).some((imported) => opensDatabase(imported, seen));
}

/** Splits test files into those run on every database and those run once without one. */
export function classifyTestFiles(files: string[]): { database: string[]; databaseFree: string[] } {
  const database: string[] = [];
  const databaseFree: string[] = [];
  for (const file of files) (opensDatabase(file) ? database : databaseFree).push(file);
  return { database, databaseFree };
}
