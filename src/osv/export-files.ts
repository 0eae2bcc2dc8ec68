import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

/** One JSON document of an OSV export, read one at a time so an export of any size stays in bounded memory. */
export interface ExportEntry {
  name: string;
  text: string;
}

/** Larger than any real OSV record by far; a bigger entry is damaged or not an OSV record. */
const MAX_RECORD_BYTES = 16 * 1024 * 1024;

export class ExportReadError extends Error {}

/** Every `.json` record under a directory (recursively, zip archives inside included) or inside one `all.zip`. */
export async function* exportEntries(source: string): AsyncGenerator<ExportEntry> {
  const stat = await fs.stat(source).catch(() => null);
  if (!stat) throw new ExportReadError(`${source} does not exist`);
  if (stat.isDirectory()) {
    yield* directoryEntries(source);
  } else if (source.toLowerCase().endsWith('.zip')) {
    yield* zipEntries(source);
  } else if (source.toLowerCase().endsWith('.json')) {
    yield { name: path.basename(source), text: await fs.readFile(source, 'utf8') };
  } else {
    throw new ExportReadError(`${source} is neither a directory, a .zip export nor a .json record`);
  }
}

async function* directoryEntries(dir: string): AsyncGenerator<ExportEntry> {
  const names = (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of names) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* directoryEntries(full);
    else if (entry.isFile() && entry.name.endsWith('.json')) {
      const size = (await fs.stat(full)).size;
      if (size > MAX_RECORD_BYTES) throw new ExportReadError(`${full} is larger than an OSV record can be`);
      yield { name: full, text: await fs.readFile(full, 'utf8') };
    } else if (entry.isFile() && entry.name.toLowerCase().endsWith('.zip')) yield* zipEntries(full);
  }
}

async function* zipEntries(file: string): AsyncGenerator<ExportEntry> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (error, opened) => (error ? reject(new ExportReadError(`${file}: ${error.message}`)) : resolve(opened))),
  );
  try {
    for (;;) {
      const entry = await nextEntry(zip);
      if (!entry) return;
      if (entry.fileName.endsWith('/') || !entry.fileName.endsWith('.json')) continue;
      if (entry.uncompressedSize > MAX_RECORD_BYTES) throw new ExportReadError(`${file}: ${entry.fileName} is larger than an OSV record can be`);
      const stream = await zip.openReadStreamPromise(entry);
      yield { name: `${file}:${entry.fileName}`, text: await readAll(stream) };
    }
  } finally {
    zip.close();
  }
}

function nextEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | null> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', onError);
    };
    const onEntry = (entry: yauzl.Entry) => (cleanup(), resolve(entry));
    const onEnd = () => (cleanup(), resolve(null));
    const onError = (error: Error) => (cleanup(), reject(new ExportReadError(error.message)));
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
