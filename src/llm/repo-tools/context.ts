import { lstat } from 'node:fs/promises';
import type { SecretVeil } from '../secret-veil.ts';
import { readTreeBytes, resolveInTree, type TreePath } from '../../scm/work-tree.ts';

// What every repository tool works with, and the checks and text helpers they share. Each tool is a function
// (ctx, args) => answer in a module of its own: the read-only ones beside this one (index.ts assembles them),
// the fix agent's write tools under src/fixing/agent/tools/.

export const TOOL_LIMITS = {
  listEntries: 400,
  readLines: 400,
  readChars: 40_000,
  lineChars: 2_000,
  readFileBytes: 10 * 1024 * 1024,
  searchResults: 100,
  searchFiles: 20_000,
  searchFileBytes: 1024 * 1024,
  searchLineChars: 240,
  searchTimeoutMs: 10_000,
  resultChars: 60_000,
} as const;

/** One run's checkout and what its tools share. */
export interface RepoToolContext {
  /** The work tree's real path. */
  root: string;
  /** The random boundary that delimits untrusted blocks in this run. */
  boundary: string;
  /** Hides secrets from the model and restores them in what it writes. */
  veil: SecretVeil;
  signal?: AbortSignal;
  searchTimeoutMs: number;
}

/** A problem with a tool call that the model can fix by calling again differently. */
export class ToolRefused extends Error {}

/** Typed access to a tool call's arguments, refusing wrong types with a message the model can act on. */
export class Args {
  readonly #tool: string;
  readonly #values: Record<string, unknown>;

  constructor(tool: string, input: unknown) {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new ToolRefused(`the arguments of ${tool} must be a JSON object`);
    }
    this.#tool = tool;
    this.#values = input as Record<string, unknown>;
  }

  string(name: string): string {
    const value = this.#values[name];
    if (typeof value !== 'string') throw new ToolRefused(`${this.#tool} needs "${name}" as a string`);
    return value;
  }

  optionalString(name: string): string | undefined {
    return this.#values[name] == null ? undefined : this.string(name);
  }

  optionalInteger(name: string): number | undefined {
    const value = this.#values[name];
    if (value == null) return undefined;
    const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isInteger(number) || number < 1) {
      throw new ToolRefused(`${this.#tool} needs "${name}" as a whole number from 1`);
    }
    return number;
  }

  optionalBoolean(name: string): boolean | undefined {
    const value = this.#values[name];
    if (value == null) return undefined;
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    throw new ToolRefused(`${this.#tool} needs "${name}" as true or false`);
  }

  stringArray(name: string): string[] {
    const value = this.#values[name];
    if (typeof value === 'string') return [value];
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
      throw new ToolRefused(`${this.#tool} needs "${name}" as an array of strings`);
    }
    return value;
  }
}

/** A regular file of the tree, or a refusal that says what the path is instead. */
export async function existingFile(ctx: RepoToolContext, value: unknown): Promise<TreePath> {
  const file = await resolveInTree(ctx.root, value);
  if (file.rel === '') throw new ToolRefused('path must name a file');
  if (!file.exists) throw new ToolRefused(`"${file.rel}" does not exist`);
  if (await isFolder(file)) throw new ToolRefused(`"${file.rel}" is a folder; use list_files to see what it holds`);
  return file;
}

/** A file's text: refused when too large, binary or not UTF-8. */
export async function readText(ctx: RepoToolContext, file: TreePath): Promise<string> {
  const read = await readTreeBytes(ctx.root, file.rel, TOOL_LIMITS.readFileBytes);
  if (!read) throw new ToolRefused(`"${file.rel}" does not exist`);
  const bytes = read.bytes;
  if (!bytes) throw new ToolRefused(`"${file.rel}" is too large (${read.size} bytes) to read or edit`);
  if (bytes.subarray(0, 8192).includes(0)) throw new ToolRefused(`"${file.rel}" is a binary file`);
  try {
    // ignoreBOM keeps a byte-order mark in the text, so that an edit writes it back.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new ToolRefused(`"${file.rel}" is not UTF-8 text`);
  }
}

/** Whether a resolved path is a folder (resolving never passes a symbolic link, so this is the folder itself). */
export async function isFolder(file: TreePath): Promise<boolean> {
  return (await lstat(file.abs)).isDirectory();
}

/** Lines of a text as read_file numbers them: a final newline does not start another line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}
