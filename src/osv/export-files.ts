import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
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
  const stat = await fsp.stat(source).catch(() => null);
  if (!stat) throw new ExportReadError(`${source} does not exist`);
  if (stat.isDirectory()) {
    yield* directoryEntries(source);
  } else if (source.toLowerCase().endsWith('.zip')) {
    yield* zipEntries(source);
  } else if (source.toLowerCase().endsWith('.json')) {
    yield { name: path.basename(source), text: await fsp.readFile(source, 'utf8') };
  } else {
    throw new ExportReadError(`${source} is neither a directory, a .zip export nor a .json record`);
  }
}

async function* directoryEntries(dir: string): AsyncGenerator<ExportEntry> {
  const names = (await fsp.readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of names) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* directoryEntries(full);
    else if (entry.isFile() && entry.name.endsWith('.json')) {
      const size = (await fsp.stat(full)).size;
      if (size > MAX_RECORD_BYTES) throw new ExportReadError(`${full} is larger than an OSV record can be`);
      yield { name: full, text: await fsp.readFile(full, 'utf8') };
    } else if (entry.isFile() && entry.name.toLowerCase().endsWith('.zip')) yield* zipEntries(full);
  }
}

async function* zipEntries(file: string): AsyncGenerator<ExportEntry> {
  const reader = new SyncFileReader(file);
  const zip = await yauzl
    .fromRandomAccessReaderPromise(reader, reader.size, { lazyEntries: true, autoClose: false })
    .catch((error: Error) => {
      reader.close(() => {});
      throw new ExportReadError(`${file}: ${error.message}`);
    });
  try {
    for (;;) {
      const entry = await nextEntry(zip);
      if (!entry) return;
      if (entry.fileName.endsWith('/') || !entry.fileName.endsWith('.json')) continue;
      if (entry.uncompressedSize > MAX_RECORD_BYTES || entry.compressedSize > MAX_RECORD_BYTES) {
        throw new ExportReadError(`${file}: ${entry.fileName} is larger than an OSV record can be`);
      }
      yield { name: `${file}:${entry.fileName}`, text: await readEntry(zip, entry, file) };
    }
  } finally {
    zip.close();
  }
}

/**
 * yauzl's own file reader asks the thread pool for every small read, two per entry, which caps an
 * export of tens of thousands of records at about a thousand a second. Entries are read one at a time
 * and are at most MAX_RECORD_BYTES, so reading each range synchronously keeps memory bounded and is
 * several times faster.
 */
class SyncFileReader extends yauzl.RandomAccessReader {
  readonly size: number;
  #fd: number | null;

  constructor(file: string) {
    super();
    this.#fd = fs.openSync(file, 'r');
    this.size = fs.fstatSync(this.#fd).size;
  }

  #readRange(buffer: Buffer, offset: number, length: number, position: number): void {
    if (this.#fd === null) throw new Error('the export file is closed');
    for (let done = 0; done < length; ) {
      const read = fs.readSync(this.#fd, buffer, offset + done, length - done, position + done);
      if (read === 0) throw new Error('unexpected end of the export file');
      done += read;
    }
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (error: Error | null) => void): void {
    try {
      this.#readRange(buffer, offset, length, position);
      queueMicrotask(() => callback(null));
    } catch (error) {
      queueMicrotask(() => callback(error as Error));
    }
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const buffer = Buffer.allocUnsafe(end - start);
    this.#readRange(buffer, 0, buffer.length, start);
    return Readable.from([buffer], { objectMode: false });
  }

  override close(callback: (error: Error | null) => void): void {
    if (this.#fd !== null) fs.closeSync(this.#fd);
    this.#fd = null;
    queueMicrotask(() => callback(null));
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

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * An entry's text, inflated in one call rather than through a stream per entry (most of the cost of
 * small entries), with the size and CRC-32 checks yauzl would otherwise make.
 */
async function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, file: string): Promise<string> {
  const stored = await readAll(await zip.openReadStreamPromise(entry, { decompress: false }));
  let data: Buffer;
  if (entry.compressionMethod === 0) data = stored;
  else if (entry.compressionMethod === 8) data = zlib.inflateRawSync(stored, { maxOutputLength: MAX_RECORD_BYTES });
  else throw new ExportReadError(`${file}: ${entry.fileName} uses an unsupported compression method (${entry.compressionMethod})`);
  if (data.length !== entry.uncompressedSize || zlib.crc32(data) !== entry.crc32) {
    throw new ExportReadError(`${file}: ${entry.fileName} is damaged (size or checksum mismatch)`);
  }
  return data.toString('utf8');
}
