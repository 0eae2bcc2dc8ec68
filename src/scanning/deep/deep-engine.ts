import crypto from 'node:crypto';
import path from 'node:path';
import { ProviderError, type ModelProvider } from '../../llm/provider.ts';
import type { EngineInput, RawFinding, ScanEngine } from '../engine.ts';
import type { SastEngine } from '../sast/sast-engine.ts';
import { discoverFindings } from './model-discovery.ts';
import { buildThreatModel, type EntryPointSummary } from './model-threats.ts';
import { Budget, reviewFindings, type ReviewLimits } from './model-review.ts';
import { parserFor } from '../../languages/index.ts';
import { isTestPath, listFiles, loadIgnore } from '../source-files.ts';
import { enginePool, type WorkerPool } from '../worker-pool.ts';
import { analyzeApplication, type AnalyzeApplicationRequest, type ApplicationAnalysis } from './application-analysis.ts';
import { DEFAULT_CACHE_BYTES, pruneResultCache } from '../sast/result-cache.ts';
import { OFF_BY_DEFAULT } from './application-checks.ts';

const APPLICATION_ANALYSIS = new URL('./application-analysis.ts', import.meta.url);

/** The model phase of a deep scan: the provider (loaded on first use), its limits, and where verdicts are kept. */
export interface ModelReview {
  provider: () => Promise<ModelProvider>;
  limits: ReviewLimits;
  /** Names the model in cached verdicts. */
  model: string;
  cacheDir: string | null;
  /** The most the cached answers may take on disk; the oldest go first past it. */
  cacheMaxBytes?: number;
}

/** Where each phase ends on the scan's overall progress (0–1), without and with the model phases. */
const PHASE_ENDS = {
  static: { static: 0.85, application: 0.95 },
  model: { static: 0.5, application: 0.55, discovery: 0.75, review: 0.98 },
};

/** Progress through a phase that spans `from`–`to` of the scan, from its own done/total. */
const within = (from: number, to: number, done = 0, total = 0) => from + (to - from) * (total ? Math.min(1, done / total) : 0);

/** How near (in lines) a whole-application finding may be to a static one of the same CWE to be the same root cause. */
const SAME_PLACE_LINES = 3;

/** A scope's folder name: the scope itself when it is a plain id, else its hash, so no scope names a folder outside the cache. */
const scopeFolder = (scope: string) => (/^[A-Za-z0-9_-]{1,64}$/.test(scope) ? scope : crypto.createHash('sha256').update(scope).digest('hex'));

const cweNumbers = (f: RawFinding) => f.cwe.map((c) => /^CWE-(\d+)/.exec(c)?.[1]).filter((n) => n !== undefined);

/**
 * `deep_ai_scan` without a model: everything `semgrep_scan` reports for the same tree, plus the
 * whole-application checks over the program model, one finding per root cause and place.
 */
export class DeepEngine implements ScanEngine {
  readonly scanType = 'deep_ai_scan' as const;
  private readonly staticEngine: SastEngine;
  private readonly pool: WorkerPool | null | undefined;
  private readonly review: ModelReview | undefined;
  private readonly enabledChecks: Set<string>;

  /**
   * `pool`: the threads for the application model; the process's engine pool when absent, this thread when
   * null. `review`: the model phase, when a model is configured. `enabledChecks`: checks that are off by
   * default, turned on.
   */
  constructor(staticEngine: SastEngine, options: { pool?: WorkerPool | null; review?: ModelReview; enabledChecks?: string[] } = {}) {
    this.staticEngine = staticEngine;
    this.pool = options.pool;
    this.review = options.review;
    this.enabledChecks = new Set(options.enabledChecks ?? []);
  }

  async scan(input: EngineInput): Promise<RawFinding[]> {
    const ends = this.review ? PHASE_ENDS.model : PHASE_ENDS.static;
    const found = await this.staticEngine.scan({
      ...input,
      onProgress: (p) => input.onProgress?.({ ...p, phase: `static analysis: ${p.phase}`, overall: within(0, ends.static, p.done, p.total) }),
    });
    input.signal?.throwIfAborted();
    input.onProgress?.({ phase: 'application model', overall: ends.static });
    const ignored = await loadIgnore(input.dir);
    const listed = (await listFiles(input.dir, ignored)).filter((f) => !isTestPath(f));
    const files = listed.filter((f) => parserFor(f) === 'python');
    const scripts = listed.filter((f) => ['javascript', 'typescript', 'tsx'].includes(parserFor(f) ?? ''));
    const descriptions = listed.filter((f) => /\.(?:ya?ml|json)$/i.test(f));
    const hotspots: AnalyzeApplicationRequest['hotspots'] = {};
    for (const f of found) if (f.severity === 'high' || f.severity === 'critical') (hotspots[f.filePath] ??= []).push(f.startLine);
    const request: AnalyzeApplicationRequest = { dir: input.dir, files, scripts, descriptions, hotspots, ruleSet: this.staticEngine.rules() };
    const pool = this.pool === undefined ? enginePool() : this.pool;
    const analysis: ApplicationAnalysis = !files.length && !scripts.length
      ? { findings: [], entryPoints: [], packages: [] }
      : pool
        ? await pool.run<ApplicationAnalysis>(APPLICATION_ANALYSIS, 'analyzeApplication', [request], input.signal)
        : await analyzeApplication(request);
    const application = analysis.findings.filter((f) => !OFF_BY_DEFAULT.has(f.checkId) || this.enabledChecks.has(f.checkId));
    // A static finding that request data from another module is seen to reach is the same finding, with its path.
    const key = (f: RawFinding) => `${f.checkId}\0${f.filePath}\0${f.startLine}`;
    const flows = new Map(application.filter((a) => a.metadata.flow).map((a) => [key(a), a]));
    const merged = found.map((s) => flows.get(key(s)) ?? s);
    const fresh = application.filter(
      (a) =>
        !merged.some((s) => s === a || (s.filePath === a.filePath && Math.abs(s.startLine - a.startLine) <= SAME_PLACE_LINES && cweNumbers(s).some((n) => cweNumbers(a).includes(n)))),
    );
    const candidates = [...merged, ...fresh].sort((a, b) => a.filePath.localeCompare(b.filePath) || a.startLine - b.startLine);
    input.onProgress?.({ phase: 'application model', overall: ends.application });
    if (!this.review) return candidates;
    try {
      return await this.withModel(candidates, analysis.entryPoints, analysis.packages, input);
    } finally {
      if (this.review.cacheDir) await pruneResultCache(this.review.cacheDir, this.review.cacheMaxBytes ?? DEFAULT_CACHE_BYTES);
    }
  }

  /**
   * The model phases: a threat model ranks the entry points, discovery from each adds candidates, then every candidate is reviewed. A
   * provider that cannot be loaded or fails leaves the candidates as they are, with a note saying why.
   */
  private async withModel(candidates: RawFinding[], entryPoints: EntryPointSummary[], packages: string[], input: EngineInput): Promise<RawFinding[]> {
    const review = this.review!;
    const unreviewed = (reason: string) => {
      input.onNote?.(`the model phases did not run to the end (${reason}); the findings are reported unreviewed`);
      return candidates;
    };
    let provider: ModelProvider;
    try {
      provider = await review.provider();
    } catch (error) {
      return unreviewed(error instanceof Error ? error.message : String(error));
    }
    const budget = new Budget(review.limits);
    const scope = review.cacheDir && input.cacheScope ? path.join(review.cacheDir, scopeFolder(input.cacheScope)) : null;
    const cacheDir = (phase: string) => (scope ? path.join(scope, phase) : null);
    let discovered: RawFinding[];
    try {
      input.onProgress?.({ phase: 'threat model', overall: PHASE_ENDS.model.application });
      const threats = await buildThreatModel(provider, budget, { entryPoints, packages, model: review.model, cacheDir: cacheDir('threat-model'), signal: input.signal });
      const discovery = await discoverFindings(provider, budget, {
        dir: input.dir,
        entryPoints,
        known: candidates,
        model: review.model,
        cacheDir: cacheDir('discovery'),
        threats,
        signal: input.signal,
        onProgress: (done, total) =>
          input.onProgress?.({ phase: 'model discovery', done, total, overall: within(PHASE_ENDS.model.application, PHASE_ENDS.model.discovery, done, total) }),
      });
      discovered = discovery.findings;
      if (discovery.stopped) input.onNote?.(`the model's discovery stopped early (${discovery.stopped}), keeping the rest of the budget for the review`);
    } catch (error) {
      input.signal?.throwIfAborted();
      if (error instanceof ProviderError) return unreviewed(error.message);
      throw error;
    }
    return reviewFindings(
      provider,
      review.limits,
      {
        dir: input.dir,
        findings: [...candidates, ...discovered],
        model: review.model,
        cacheDir: cacheDir('review'),
        signal: input.signal,
        onNote: input.onNote,
        onProgress: (done, total) => input.onProgress?.({ phase: 'model review', done, total, overall: within(PHASE_ENDS.model.discovery, PHASE_ENDS.model.review, done, total) }),
      },
      budget,
    );
  }
}
