import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * What a model answered, kept on disk under a key that names the model and the exact input (file contents
 * by hash), so an unchanged input costs nothing on the next scan. No folder: nothing is kept.
 */
export class ModelCache<T> {
  private readonly dir: string | null;

  constructor(dir: string | null) {
    this.dir = dir;
  }

  private file(key: string): string | undefined {
    return this.dir ? path.join(this.dir, key.slice(0, 2), `${key}.json`) : undefined;
  }

  async get(key: string): Promise<T | undefined> {
    const file = this.file(key);
    if (!file) return undefined;
    try {
      return JSON.parse(await fs.readFile(file, 'utf8')) as T;
    } catch {
      return undefined;
    }
  }

  async put(key: string, value: T): Promise<void> {
    const file = this.file(key);
    if (!file) return;
    await fs.mkdir(path.dirname(file), { recursive: true });
    // Written whole or not at all: a reader never sees half an answer.
    const partial = `${file}.${process.pid}.tmp`;
    await fs.writeFile(partial, JSON.stringify(value));
    await fs.rename(partial, file);
  }
}
