import { parse as parseYaml } from 'yaml';
import type { Component, Ecosystem } from '../component.ts';

export interface ManifestFile {
  /** Repository-relative POSIX path. */
  path: string;
  text: string;
}

export interface ExtractContext {
  /**
   * Reads another file of the same tree by a path relative to the tree's root (for `-r` includes and
   * the like); null when it does not exist or would leave the tree.
   */
  readFile(path: string): Promise<string | null>;
}

export type FileNamePattern = string | RegExp;

/**
 * Whether a file is the extractor's format: its base name is one of `fileNames`, or its whole
 * repository-relative path matches one of `filePaths`. Given a base name alone, only `fileNames` can match.
 */
export function claims(extractor: Pick<Extractor, 'fileNames' | 'filePaths'>, filePath: string): boolean {
  const fileName = filePath.slice(filePath.lastIndexOf('/') + 1);
  return (
    extractor.fileNames.some((name) => (typeof name === 'string' ? name === fileName : name.test(fileName))) ||
    (extractor.filePaths ?? []).some((pattern) => pattern.test(filePath))
  );
}

/** Turns one kind of manifest or lockfile into components; one module per format. */
export interface Extractor {
  /** Short stable name, e.g. `npm-lock`. */
  readonly id: string;
  readonly ecosystem: Ecosystem;
  /** The files it reads as the README's table of formats shows them (scripts/docs-tables.ts writes it). */
  readonly docs: string;
  /** The base names of this format's files: exact names, or a pattern for a family of names. */
  readonly fileNames: readonly FileNamePattern[];
  /** Formats told by where a file sits rather than its name (`.github/workflows/*.yml`): repository-relative paths. */
  readonly filePaths?: readonly RegExp[];
  /** Written by a package manager rather than by hand; the secrets and SAST scanners skip lockfiles. */
  readonly lockfile: boolean;
  /** Throws ExtractError for a file that cannot be read as its format. */
  extract(file: ManifestFile, context: ExtractContext): Promise<Component[]> | Component[];
}

/** A manifest that is not valid for its format; the scan reports it as a note and goes on. */
export class ExtractError extends Error {
  constructor(path: string, reason: string) {
    super(`${path}: ${reason}`);
    this.name = 'ExtractError';
  }
}

/**
 * A parser's reason for refusing a file: its first line, without the excerpts of the file some parsers
 * quote (JSON.parse does), since a manifest line may carry a credential and notes reach logs.
 */
export function parserReason(error: unknown): string {
  const first = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
  return first
    .replace(/,? (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/, ' (not valid JSON)')
    .replace(/"(?:[^"\\\n]|\\.)*"/g, '"…"')
    .replace(/:$/, '');
}

export type JsonObject = Record<string, unknown>;

/** A plain object as JSON and YAML parsers return one: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A YAML manifest's document; ExtractError when the file is not YAML. `failsafe` reads every scalar as a
 * string, so a version such as `1.10` is not read as the number 1.1.
 */
export function parseYamlDocument(file: ManifestFile, options: { failsafe?: boolean } = {}): unknown {
  try {
    return parseYaml(file.text, { logLevel: 'error', ...(options.failsafe ? { schema: 'failsafe' as const } : {}) });
  } catch (error) {
    throw new ExtractError(file.path, `not valid YAML: ${parserReason(error)}`);
  }
}

/** A JSON manifest's top-level object; ExtractError when the file is not JSON or not an object. */
export function parseJsonObject(file: ManifestFile): JsonObject {
  let document: unknown;
  try {
    document = JSON.parse(file.text);
  } catch (error) {
    throw new ExtractError(file.path, `not valid JSON: ${parserReason(error)}`);
  }
  if (!isJsonObject(document)) throw new ExtractError(file.path, 'not a JSON object');
  return document;
}
