import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { ExtractError, parserReason } from '../extractor.ts';
import type { ExtractContext, ManifestFile } from '../extractor.ts';

export type Table = Record<string, unknown>;

export function isTable(value: unknown): value is Table {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** Parses a TOML lockfile, throwing ExtractError with the parser's reason when it is not TOML. */
export function parseTomlFile(file: ManifestFile): Table {
  try {
    return parseToml(file.text);
  } catch (error) {
    throw new ExtractError(file.path, `not valid TOML: ${parserReason(error)}`);
  }
}

/** The `[[package]]` array of a TOML lockfile; throws when it is there but not an array of tables. */
export function packageTables(file: ManifestFile, document: Table): Table[] {
  const packages = document.package ?? [];
  if (!Array.isArray(packages) || !packages.every(isTable)) {
    throw new ExtractError(file.path, '`package` is not an array of tables');
  }
  return packages;
}

/** Path of a file next to the given one, e.g. the pyproject.toml beside a poetry.lock. */
export function siblingPath(file: ManifestFile, name: string): string {
  return path.posix.join(path.posix.dirname(file.path), name);
}

/**
 * A TOML file next to the given one, or null when it is missing or not TOML: a broken manifest only
 * costs the lockfile its direct/development detail, not its components.
 */
export async function readSiblingToml(file: ManifestFile, name: string, context: ExtractContext): Promise<Table | null> {
  const text = await context.readFile(siblingPath(file, name));
  if (text === null) return null;
  try {
    return parseToml(text);
  } catch {
    return null;
  }
}
