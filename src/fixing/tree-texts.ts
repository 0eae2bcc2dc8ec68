import path from 'node:path';
import type { ExtractContext } from '../inventory/extractors/extractor.ts';
import { readTreeFile } from './fixers/shared/tree-files.ts';

/** The tree's files now and, where known, before the fix. */
export class TreeTexts {
  readonly #dir: string;
  readonly #changed: Set<string>;
  readonly #originals: ReadonlyMap<string, string | null>;
  readonly #cache = new Map<string, Promise<string | null>>();
  readonly context: ExtractContext;

  constructor(dir: string, changed: string[], originals: ReadonlyMap<string, string | null>) {
    this.#dir = dir;
    this.#changed = new Set(changed);
    this.#originals = originals;
    this.context = { readFile: (file) => this.current(path.posix.normalize(file)) };
  }

  current(file: string): Promise<string | null> {
    let text = this.#cache.get(file);
    if (!text) {
      text = readTreeFile(this.#dir, file).catch(() => null);
      this.#cache.set(file, text);
    }
    return text;
  }

  /** The file before the fix as the caller gave it (null: the fix added it); undefined when not given. */
  original(file: string): string | null | undefined {
    if (this.#originals.has(file)) return this.#originals.get(file);
    return undefined;
  }

  /** As `original`, or the current text of a file the fix did not change; undefined when unknown. */
  async originalOrUnchanged(file: string): Promise<string | null | undefined> {
    const given = this.original(file);
    if (given !== undefined) return given;
    return this.#changed.has(file) ? undefined : this.current(file);
  }

  isChanged(file: string): boolean {
    return this.#changed.has(file);
  }

  changedFiles(): string[] {
    return [...this.#changed];
  }
}
