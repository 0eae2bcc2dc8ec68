import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Kysely } from 'kysely';
import { nowIso } from '../ids.ts';
import { ECOSYSTEMS } from '../inventory/component.ts';
import { markEcosystemRefreshed, osvEcosystems, type OsvEcosystemRow } from '../store/osv.ts';
import type { Database } from '../store/schema.ts';
import { importOsv, type ImportReport } from './import.ts';

/** The public OSV bucket: `<base>/<ecosystem>/all.zip`, `<base>/<ecosystem>/modified_id.csv`, `<base>/ecosystems.txt`. */
export const DEFAULT_OSV_URL = 'https://osv-vulnerabilities.storage.googleapis.com';

/** More changed records than this since the last sync are taken from the whole export rather than one by one. */
const INCREMENTAL_MAX = 1000;
/** Changed records fetched at once during an incremental sync. */
const RECORD_FETCHES = 8;
/** Longest wait for a server to start answering one request. */
const RESPONSE_TIMEOUT_MS = 60_000;

export class OsvSyncError extends Error {}

export interface SyncProgress {
  ecosystem: string;
  phase: 'checking' | 'downloading' | 'fetching changes' | 'importing';
  /** Bytes of the export downloaded so far, and its size when the server said. */
  bytes?: number;
  totalBytes?: number;
  /** Changed records fetched so far of how many (incremental), or records read by the importer. */
  done?: number;
  total?: number;
}

export interface EcosystemSyncReport {
  ecosystem: string;
  /** unchanged: the server said nothing changed; incremental: changed records fetched one by one; full: the whole export. */
  mode: 'unchanged' | 'incremental' | 'full';
  /** Bytes downloaded for this ecosystem (exports and records; not the index lines read). */
  bytes: number;
  import: ImportReport | null;
}

export interface SyncReport {
  ecosystems: EcosystemSyncReport[];
  /** Ecosystems asked for that the source does not publish (per its ecosystems.txt); nothing is fetched for them. */
  unpublished: string[];
  /** Ecosystems whose sync failed, with why; their stored records are as they were. */
  failed: { ecosystem: string; error: string }[];
}

export interface SyncOptions {
  baseUrl: string;
  /** Default: every ecosystem the SBOM extractors produce that the source publishes. */
  ecosystems?: string[];
  onProgress?: (progress: SyncProgress) => void;
  signal?: AbortSignal;
  /** Where exports are downloaded to before import; default the system's temporary folder. */
  tempDir?: string;
  fetch?: typeof fetch;
}

/**
 * The base URL, checked: HTTPS, or plain HTTP only to this machine (a mirror or a test stand-in), since
 * the records decide what scans call vulnerable.
 */
export function osvBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OsvSyncError(`BULWARK_OSV_URL is not a URL: "${raw}"`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new OsvSyncError(`BULWARK_OSV_URL must be an https:// URL (plain http only to localhost); got "${raw}"`);
  }
  return url.toString().replace(/\/+$/, '');
}

/**
 * Brings the stored OSV records of each ecosystem up to date from an OSV bucket. Each ecosystem is asked
 * conditionally (ETag, Last-Modified): an unchanged one downloads nothing; one synced before takes only
 * the records modified since (modified_id.csv, newest first), unless there are many; otherwise the
 * whole all.zip is streamed to a temporary file and imported. An ecosystem that fails is reported and
 * left as it was (records are only imported once fully downloaded); the others still sync.
 */
export async function syncOsv(db: Kysely<Database>, options: SyncOptions): Promise<SyncReport> {
  const base = osvBaseUrl(options.baseUrl);
  const http = new Http(options.fetch ?? fetch, options.signal);
  const published = await publishedEcosystems(http, base);
  const wanted = options.ecosystems?.length ? [...new Set(options.ecosystems)] : [...ECOSYSTEMS].filter((e) => !published || published.has(e));
  const unpublished = published ? wanted.filter((e) => !published.has(e)) : [];
  const report: SyncReport = { ecosystems: [], unpublished, failed: [] };
  const states = await osvEcosystems(db, wanted);
  const work = await fsp.mkdtemp(path.join(options.tempDir ?? os.tmpdir(), 'bulwark-osv-sync-'));
  try {
    for (const ecosystem of wanted.filter((e) => !unpublished.includes(e))) {
      options.signal?.throwIfAborted();
      try {
        const dir = await fsp.mkdtemp(path.join(work, 'e-'));
        report.ecosystems.push(await syncEcosystem(db, http, base, ecosystem, states.get(ecosystem), dir, options.onProgress));
        await fsp.rm(dir, { recursive: true, force: true });
      } catch (error) {
        if (options.signal?.aborted) throw error;
        report.failed.push({ ecosystem, error: (error as Error).message });
      }
    }
  } finally {
    await fsp.rm(work, { recursive: true, force: true });
  }
  return report;
}

/** The ecosystems the source lists, or null when it has no list (then every asked-for one is tried). */
async function publishedEcosystems(http: Http, base: string): Promise<Set<string> | null> {
  const response = await http.get(`${base}/ecosystems.txt`, {}, [404, 403]);
  if (response.status !== 200) return null;
  const text = await response.text();
  return new Set(text.split('\n').map((line) => line.trim()).filter(Boolean));
}

const ecosystemUrl = (base: string, ecosystem: string, file: string) => `${base}/${encodeURIComponent(ecosystem)}/${file}`;

async function syncEcosystem(
  db: Kysely<Database>,
  http: Http,
  base: string,
  ecosystem: string,
  state: OsvEcosystemRow | undefined,
  dir: string,
  onProgress: SyncOptions['onProgress'],
): Promise<EcosystemSyncReport> {
  onProgress?.({ ecosystem, phase: 'checking' });
  const startedAt = nowIso();
  // The index first: what changed since the newest record stored, and a watermark taken before the export,
  // so a record changed while the export downloads is picked up by the next sync.
  const indexHeaders = state?.newest_modified ? conditional(state.index_etag, state.index_last_modified) : {};
  const index = await http.get(ecosystemUrl(base, ecosystem, 'modified_id.csv'), indexHeaders, [304, 404]);
  const indexState = { index_etag: index.headers.get('etag'), index_last_modified: index.headers.get('last-modified') };
  if (index.status === 304) {
    await markEcosystemRefreshed(db, ecosystem, startedAt);
    return { ecosystem, mode: 'unchanged', bytes: 0, import: null };
  }
  let newest: string | null = null;
  let changed: string[] | null = null; // null: take the whole export
  if (index.status === 200) {
    ({ newest, changed } = await readIndex(index, state?.newest_modified ?? null));
  } else {
    await index.body?.cancel();
  }

  if (changed && state?.newest_modified) {
    const bytes = await fetchRecords(http, base, ecosystem, changed, dir, onProgress);
    const imported = await importWithProgress(db, dir, ecosystem, onProgress);
    await markEcosystemRefreshed(db, ecosystem, startedAt, { ...indexState, newest_modified: newest ?? state.newest_modified });
    return { ecosystem, mode: 'incremental', bytes, import: imported };
  }

  const exportUrl = ecosystemUrl(base, ecosystem, 'all.zip');
  const response = await http.get(exportUrl, conditional(state?.export_etag ?? null, state?.export_last_modified ?? null), [304]);
  const exportState = { export_etag: response.headers.get('etag'), export_last_modified: response.headers.get('last-modified') };
  if (response.status === 304) {
    await markEcosystemRefreshed(db, ecosystem, startedAt, { ...(index.status === 200 ? indexState : {}), newest_modified: newest ?? state?.newest_modified ?? null });
    return { ecosystem, mode: 'unchanged', bytes: 0, import: null };
  }
  const file = path.join(dir, 'all.zip');
  const bytes = await download(response, file, exportUrl, (done, total) => onProgress?.({ ecosystem, phase: 'downloading', bytes: done, totalBytes: total }));
  const imported = await importWithProgress(db, file, ecosystem, onProgress);
  await markEcosystemRefreshed(db, ecosystem, startedAt, {
    ...exportState,
    ...(index.status === 200 ? indexState : { index_etag: null, index_last_modified: null }),
    newest_modified: newest,
  });
  return { ecosystem, mode: 'full', bytes, import: imported };
}

/**
 * Reads modified_id.csv (`modified,id` lines, newest first) only as far as the records modified after
 * `since`: the ids to fetch, or null when there are too many (or nothing was synced before).
 */
async function readIndex(response: Response, since: string | null): Promise<{ newest: string | null; changed: string[] | null }> {
  const sinceTime = since ? Date.parse(since) : NaN;
  const changed: string[] = [];
  let newest: string | null = null;
  let tooMany = Number.isNaN(sinceTime);
  const lines = textLines(response.body!);
  try {
    for await (const line of lines) {
      const comma = line.indexOf(',');
      if (comma < 0) continue;
      const modified = line.slice(0, comma).trim();
      const time = Date.parse(modified);
      if (Number.isNaN(time)) continue; // a header line, or damage
      newest ??= modified;
      if (tooMany || time <= sinceTime) break;
      changed.push(line.slice(comma + 1).trim());
      if (changed.length > INCREMENTAL_MAX) tooMany = true;
    }
  } finally {
    await lines.return(undefined);
  }
  return { newest, changed: tooMany ? null : changed };
}

async function* textLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      pending += decoder.decode(value, { stream: true });
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) yield line;
    }
    pending += decoder.decode();
    if (pending) yield pending;
  } finally {
    // Stops the download when the reader is done early (the rest of the index is older).
    await reader.cancel().catch(() => {});
  }
}

async function fetchRecords(
  http: Http,
  base: string,
  ecosystem: string,
  ids: string[],
  dir: string,
  onProgress: SyncOptions['onProgress'],
): Promise<number> {
  let bytes = 0;
  let done = 0;
  let next = 0;
  onProgress?.({ ecosystem, phase: 'fetching changes', done, total: ids.length });
  const fetchOne = async () => {
    for (let i = next++; i < ids.length; i = next++) {
      const id = ids[i]!;
      if (!/^[\w.:-]+$/.test(id)) throw new OsvSyncError(`${ecosystem}: modified_id.csv names an invalid record id "${id.slice(0, 80)}"`);
      const response = await http.get(ecosystemUrl(base, ecosystem, `${encodeURIComponent(id)}.json`), {}, [404]);
      if (response.status === 404) {
        await response.body?.cancel();
      } else {
        const text = await response.text();
        bytes += Buffer.byteLength(text);
        await fsp.writeFile(path.join(dir, `${id}.json`), text);
      }
      onProgress?.({ ecosystem, phase: 'fetching changes', done: ++done, total: ids.length });
    }
  };
  await Promise.all(Array.from({ length: Math.min(RECORD_FETCHES, ids.length) }, fetchOne));
  return bytes;
}

async function importWithProgress(db: Kysely<Database>, source: string, ecosystem: string, onProgress: SyncOptions['onProgress']): Promise<ImportReport> {
  onProgress?.({ ecosystem, phase: 'importing', done: 0 });
  const report = await importOsv(db, source, (progress) => onProgress?.({ ecosystem, phase: 'importing', done: progress.read }));
  onProgress?.({ ecosystem, phase: 'importing', done: report.read });
  return report;
}

/** Streams a response body to a file (never whole in memory), telling bytes as they come. */
async function download(response: Response, file: string, url: string, onBytes: (done: number, total?: number) => void): Promise<number> {
  const length = Number(response.headers.get('content-length'));
  const total = Number.isFinite(length) && length > 0 ? length : undefined;
  let done = 0;
  // A download that stalls this long is given up rather than holding the sync forever.
  const stalled = new AbortController();
  const watchdog = setTimeout(() => stalled.abort(new Error(`no data for ${RESPONSE_TIMEOUT_MS / 1000}s`)), RESPONSE_TIMEOUT_MS);
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      done += chunk.length;
      watchdog.refresh();
      onBytes(done, total);
      callback(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), counter, fs.createWriteStream(file), { signal: stalled.signal });
  } catch (error) {
    const why = stalled.signal.aborted ? (stalled.signal.reason as Error).message : (error as Error).message;
    throw new OsvSyncError(`downloading ${url} failed after ${done} bytes: ${why}`);
  } finally {
    clearTimeout(watchdog);
  }
  if (total !== undefined && done !== total) throw new OsvSyncError(`downloading ${url} ended after ${done} of ${total} bytes`);
  return done;
}

function conditional(etag: string | null, lastModified: string | null): Record<string, string> {
  const headers: Record<string, string> = {};
  if (etag) headers['if-none-match'] = etag;
  else if (lastModified) headers['if-modified-since'] = lastModified;
  return headers;
}

class Http {
  readonly #fetch: typeof fetch;
  readonly #signal: AbortSignal | undefined;

  constructor(fetchFn: typeof fetch, signal: AbortSignal | undefined) {
    this.#fetch = fetchFn;
    this.#signal = signal;
  }

  /**
   * GET; a status other than 200 or one of `accepted` is an OsvSyncError naming the URL and status. The
   * timeout covers waiting for the answer to start; a body is watched for stalls by whoever reads it.
   */
  async get(url: string, headers: Record<string, string>, accepted: number[]): Promise<Response> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new OsvSyncError(`GET ${url}: no answer within ${RESPONSE_TIMEOUT_MS / 1000}s`)), RESPONSE_TIMEOUT_MS);
    const signal = this.#signal ? AbortSignal.any([this.#signal, timeout.signal]) : timeout.signal;
    let response: Response;
    try {
      response = await this.#fetch(url, { headers: { 'user-agent': 'bulwark-osv-sync', ...headers }, signal, redirect: 'follow' });
    } catch (error) {
      if (this.#signal?.aborted) throw error;
      if (error instanceof OsvSyncError) throw error;
      const cause = (error as Error & { cause?: Error }).cause?.message;
      throw new OsvSyncError(`GET ${url} failed: ${(error as Error).message}${cause ? ` (${cause})` : ''}`);
    } finally {
      clearTimeout(timer);
    }
    if (response.status !== 200 && !accepted.includes(response.status)) {
      await response.body?.cancel().catch(() => {});
      throw new OsvSyncError(`GET ${url} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
    }
    return response;
  }
}
