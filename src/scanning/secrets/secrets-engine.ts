import type { EngineInput, RawFinding, ScanEngine } from '../engine.ts';
import { addedTextInHistory, type AddedText } from './history.ts';
import { isIgnoredPath, loadIgnore, skipReason, listFiles } from '../source-files.ts';
import { batchesFor, enginePool, settledInOrder, type WorkerPool } from '../worker-pool.ts';
import * as texts from './scan-texts.ts';

export interface SecretsEngineOptions {
  /** Commits of history to read below the scanned one; 0 reads only the tree. */
  historyDepth: number;
  /** The threads that run detection; the process's engine pool when absent, this thread when null. */
  pool?: WorkerPool | null;
}

const SCAN_TEXTS = new URL('./scan-texts.ts', import.meta.url);
const BATCH_FILES = 64;
const BATCH_TEXTS = 256;
/** A batch of history closes at this many characters too, so the text read ahead stays small whatever the files' sizes. */
const BATCH_CHARS = 1024 * 1024;
const HISTORY_BATCHES_AHEAD = 8;

const secretKey = (f: RawFinding) => `${f.checkId}\0${String(f.metadata.secret_hash)}`;


/** Finds committed credentials in a checkout and, when a git directory is given, in its recent history. */
export class SecretsEngine implements ScanEngine {
  readonly scanType = 'secrets_scan' as const;
  private readonly options: SecretsEngineOptions;

  constructor(options: SecretsEngineOptions) {
    this.options = options;
  }

  async scan(input: EngineInput): Promise<RawFinding[]> {
    const ignored = await loadIgnore(input.dir);
    const pool = this.options.pool === undefined ? enginePool() : this.options.pool;
    const run = <T>(fn: 'scanTreeFiles' | 'scanAddedTexts', args: unknown[]): Promise<T> =>
      pool ? pool.run<T>(SCAN_TEXTS, fn, args, input.signal) : (texts[fn] as (...a: unknown[]) => Promise<T>)(...args);
    const found = new Map<string, RawFinding>();
    const files = await listFiles(input.dir, ignored);
    const batches = batchesFor(files, pool, BATCH_FILES);
    let done = 0;
    input.onProgress?.({ phase: 'scanning files', done, total: files.length });
    const results = batches.map((batch) =>
      run<RawFinding[][]>('scanTreeFiles', [input.dir, batch, input.fingerprintKey]).then((perFile) => {
        done += batch.length;
        input.onProgress?.({ phase: 'scanning files', done, total: files.length });
        return perFile;
      }),
    );
    for (const perFile of await settledInOrder(results)) {
      for (const finding of perFile.flat()) {
        // The same secret twice in a file is two findings, one per place.
        const key = `${finding.fingerprint}:${finding.startLine}`;
        if (!found.has(key)) found.set(key, finding);
      }
    }
    if (input.gitDir && input.commit && this.options.historyDepth > 0) {
      input.onProgress?.({ phase: 'reading git history' });
      const treeFindings = [...found.values()];
      const byFingerprint = Map.groupBy(treeFindings, (f) => f.fingerprint);
      const bySecret = Map.groupBy(treeFindings, secretKey);
      const treePaths = new Set(files);
      const pending: Promise<RawFinding[][]>[] = [];
      let batch: AddedText[] = [];
      let batchChars = 0;
      for await (const added of addedTextInHistory(input.gitDir, input.commit, this.options.historyDepth, input.signal)) {
        if (skipReason(added.path) || isIgnoredPath(ignored, added.path)) continue;
        batch.push(added);
        batchChars += added.text.length;
        if (batch.length < BATCH_TEXTS && batchChars < BATCH_CHARS) continue;
        pending.push(run('scanAddedTexts', [batch, input.fingerprintKey]));
        batch = [];
        batchChars = 0;
        // History can hold far more text than memory should: read on only as threads catch up.
        const waiting = pending.length - HISTORY_BATCHES_AHEAD;
        if (waiting >= 0) await pending[waiting].then(() => undefined, () => undefined);
      }
      if (batch.length) pending.push(run('scanAddedTexts', [batch, input.fingerprintKey]));
      for (const perText of await settledInOrder(pending)) {
        for (const finding of perText.flat()) {
          // Still present in the tree (in the same file, or moved from a file the tree no longer has): the
          // tree finding speaks for it and says history holds it too. Log order is newest first, so the
          // last commit seen is the one that introduced the secret.
          const inTree = byFingerprint.get(finding.fingerprint) ?? (treePaths.has(finding.filePath) ? undefined : bySecret.get(secretKey(finding)));
          if (inTree) {
            for (const tree of inTree) Object.assign(tree.metadata, { location: 'both', commit: finding.commitSha });
          } else {
            found.set(finding.fingerprint, finding);
          }
        }
      }
    }
    return [...found.values()].sort((a, b) => a.filePath.localeCompare(b.filePath) || a.startLine - b.startLine);
  }
}
