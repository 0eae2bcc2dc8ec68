import path from 'node:path';
import { sastRuleDirsFrom } from '../../config.ts';
import type { EngineInput, RawFinding, ScanEngine } from '../engine.ts';
import { isTestPath, loadIgnore, listFiles } from '../source-files.ts';
import { batchesFor, enginePool, settledInOrder, type WorkerPool } from '../worker-pool.ts';
import { externalSemgrepFindings, mergeFindings, type ExternalSemgrepOptions } from './external-semgrep.ts';
import { parserFor } from '../../languages/index.ts';
import { analyzeFiles, type AnalyzeFilesRequest, type AnalyzeFilesResult, type FileOutcome } from './analyze-files.ts';
import { DEFAULT_CACHE_BYTES, pruneResultCache } from './result-cache.ts';
import { loadRuleSet, type RuleSet } from './rule-set.ts';

export { analyzeSource, type SastMatch } from './analyze.ts';

export interface SastEngineOptions {
  /** Rule folders an operator adds to the built-in ones; the configured BULWARK_SAST_RULES_DIRS when absent. */
  extraRuleDirs?: string[];
  /** A `semgrep`/`opengrep` run whose results are merged in, when configs are set and a binary is found. */
  externalSemgrep?: ExternalSemgrepOptions;
  /** Where results are kept between scans, by file content (a `sast` folder is made in it); none when absent. */
  cacheDir?: string | null;
  /** The most the result cache may hold; oldest entries go first. */
  cacheMaxBytes?: number;
  /** The threads that analyze files; the process's engine pool when absent, this thread when null. */
  pool?: WorkerPool | null;
  /** Rules that are off by default (`default: off`), turned on. */
  enabledRules?: string[];
}

/**
 * The most files sent to a thread at once. A thread matches the files of a parser in a batch together, and
 * each batch costs a compile of the joined rule per parser: some 60 ms, its regexes above all, as much as
 * matching a few hundred kilobytes of code.
 */
const MAX_BATCH_FILES = 512;
/** Files whose cached results are read at a time in the calling thread, between progress reports. */
const CACHE_BATCH_FILES = 256;
const ANALYZE_FILES = new URL('./analyze-files.ts', import.meta.url);

/** Syntax-aware static analysis: ast-grep pattern rules and taint tracking over Python, JavaScript/TypeScript and more. */
export class SastEngine implements ScanEngine {
  readonly scanType = 'semgrep_scan' as const;
  private ruleSet: RuleSet | undefined;
  private readonly options: SastEngineOptions;

  constructor(options: SastEngineOptions = {}) {
    this.options = options;
  }

  rules(): RuleSet {
    this.ruleSet ??= loadRuleSet(this.ruleDirs());
    return this.ruleSet;
  }

  /** The operator's rule folders, as the threads that analyze files must load them too. */
  private ruleDirs(): string[] {
    return this.options.extraRuleDirs ?? sastRuleDirsFrom();
  }

  async scan(input: EngineInput): Promise<RawFinding[]> {
    this.rules();
    const ignored = await loadIgnore(input.dir);
    const files = (await listFiles(input.dir, ignored)).flatMap((file) => {
      const parser = parserFor(file);
      return parser && !isTestPath(file) ? [{ path: file, parser }] : [];
    });
    // Batches of one parser each, as every parser's rules are compiled once per batch.
    files.sort((a, b) => (a.parser < b.parser ? -1 : a.parser > b.parser ? 1 : 0));
    const pool = this.options.pool === undefined ? enginePool() : this.options.pool;
    const cacheDir = this.options.cacheDir ? path.join(this.options.cacheDir, 'sast') : null;
    const request = (batch: typeof files): AnalyzeFilesRequest => ({ dir: input.dir, files: batch, ruleDirs: this.ruleDirs(), ruleSet: this.rules(), cacheDir, fingerprintKey: input.fingerprintKey, enabledRules: this.options.enabledRules });
    let done = 0;
    input.onProgress?.({ phase: 'analyzing files', done, total: files.length });
    const analyzed = (result: AnalyzeFilesResult, count: number) => {
      done += count;
      input.onProgress?.({ phase: 'analyzing files', done, total: files.length });
      return result;
    };
    // With threads and a cache, cached results are taken here first: a rescan of unchanged code then
    // starts no thread and loads no parser, which would cost more than the whole rescan.
    const fromCache: AnalyzeFilesResult[] = [];
    let toAnalyze = files;
    if (pool && cacheDir) {
      toAnalyze = [];
      for (const batch of batchesFor(files, null, CACHE_BATCH_FILES)) {
        input.signal?.throwIfAborted();
        const { outcomes } = await analyzeFiles({ ...request(batch), cachedOnly: true });
        const hits: FileOutcome[] = [];
        for (const [i, outcome] of outcomes.entries()) {
          if (outcome.missed) toAnalyze.push(batch[i]);
          else hits.push(outcome);
        }
        fromCache.push(analyzed({ outcomes: hits, cacheBytesWritten: 0 }, hits.length));
      }
    }
    const batches = batchesFor(toAnalyze, pool, MAX_BATCH_FILES);
    const results = pool
      ? batches.map((batch) => pool.run<AnalyzeFilesResult>(ANALYZE_FILES, 'analyzeFiles', [request(batch)], input.signal).then((r) => analyzed(r, batch.length)))
      : batches.map(async (batch) => {
          input.signal?.throwIfAborted();
          return analyzed(await analyzeFiles(request(batch)), batch.length);
        });
    const found = new Map<string, RawFinding>();
    let cacheBytesWritten = 0;
    for (const value of [...fromCache, ...(await settledInOrder(results))]) {
      cacheBytesWritten += value.cacheBytesWritten;
      for (const outcome of value.outcomes) {
        if (outcome.note) input.onNote?.(outcome.note);
        for (const finding of outcome.findings) {
          const key = `${finding.checkId}:${finding.filePath}:${finding.startLine}`;
          if (!found.has(key)) found.set(key, finding);
        }
      }
    }
    if (cacheDir && cacheBytesWritten) await pruneResultCache(cacheDir, this.options.cacheMaxBytes ?? DEFAULT_CACHE_BYTES);
    const external = await externalSemgrepFindings(input, this.options.externalSemgrep, ignored);
    // Rules that are off by default were dropped in analyzeFiles(), before credentials were placed.
    return mergeFindings([...found.values()], external).sort((a, b) => a.filePath.localeCompare(b.filePath) || a.startLine - b.startLine);
  }
}
