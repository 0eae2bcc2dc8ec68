import crypto from 'node:crypto';
import { ProviderError, type ModelProvider } from '../../llm/provider.ts';
import { SecretVeil } from '../../llm/secret-veil.ts';
import { UNTRUSTED_DATA_RULE, untrustedBlock } from '../../llm/untrusted.ts';
import type { RawFinding } from '../engine.ts';
import { MAX_FILE_BYTES } from '../source-files.ts';
import { readTreeText } from '../../scm/work-tree.ts';
import { ModelCache } from './model-cache.ts';

// The model phase of a deep scan: every candidate the static and whole-application phases found is shown
// to the model in a fresh conversation that is asked to disprove it, `runs` times, independently. A
// candidate most runs refute is dropped; the others keep how many runs confirmed them. Verdicts are cached
// by the model, the finding and the content of its file, so an unchanged file costs nothing on rescan.
// Credentials in the code are replaced by placeholders before anything is sent.

export interface ReviewLimits {
  /** Independent verification runs per candidate. */
  runs: number;
  /** Model requests one scan may make. */
  maxCalls: number;
  /** Tokens (in and out) one scan may spend. */
  maxTokens: number;
  /** Wall-clock seconds the phase may take. */
  timeoutSeconds: number;
}

export interface ReviewInput {
  dir: string;
  findings: RawFinding[];
  /** Names the model in the cache key: another model's verdicts are not this one's. */
  model: string;
  cacheDir: string | null;
  signal?: AbortSignal;
  onNote?: (message: string) => void;
  onProgress?: (done: number, total: number) => void;
}

type Verdict = 'confirmed' | 'refuted' | 'unsure';

/** Lines of code shown around a finding. */
const CONTEXT_LINES = 30;

export const REVIEW_SYSTEM_PROMPT = [
  'You are an application security engineer reviewing one finding of an automated scanner. Your job is to try to',
  'disprove it: check whether attacker-controlled data really reaches the code, whether a guard, sanitizer,',
  'framework default or configuration already prevents the problem, and whether the code is reachable at all.',
  'Confirm the finding only if it survives that. Answer with one JSON object and nothing else:',
  '{"verdict": "confirmed" | "refuted", "reason": "<one or two sentences>"}',
  '',
  UNTRUSTED_DATA_RULE,
].join('\n');

function taskFor(finding: RawFinding, code: string, firstLine: number): string {
  const boundary = crypto.randomBytes(8).toString('hex');
  const numbered = code
    .split('\n')
    .map((line, i) => `${firstLine + i}\t${line}`)
    .join('\n');
  const claim = [
    `Finding: ${finding.title} (${finding.checkId}, ${finding.cwe.join(', ') || 'no CWE'}, severity ${finding.severity})`,
    `Where: ${finding.filePath}, lines ${finding.startLine}-${finding.endLine}`,
    `What the scanner says: ${finding.message}`,
  ].join('\n');
  return [
    untrustedBlock('finding', {}, claim, boundary),
    '',
    `The code, from line ${firstLine} (each line prefixed with its number and a tab):`,
    untrustedBlock('file', { path: finding.filePath }, numbered, boundary),
  ].join('\n');
}

/** The verdict in a model's answer: the JSON object it was asked for, or unsure when there is none. */
export function verdictOf(text: string): { verdict: Verdict; reason: string } {
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  try {
    const parsed = json ? (JSON.parse(json) as { verdict?: unknown; reason?: unknown }) : {};
    const verdict = parsed.verdict === 'confirmed' ? 'confirmed' : parsed.verdict === 'refuted' ? 'refuted' : 'unsure';
    return { verdict, reason: typeof parsed.reason === 'string' ? parsed.reason.slice(0, 500) : '' };
  } catch {
    return { verdict: 'unsure', reason: '' };
  }
}

/** What the model phases of one scan may still spend, shared by discovery and review. */
export class Budget {
  calls = 0;
  tokens = 0;
  private readonly limits: ReviewLimits;
  private readonly deadline: number;
  constructor(limits: ReviewLimits) {
    this.limits = limits;
    this.deadline = Date.now() + limits.timeoutSeconds * 1000;
  }
  /** Why no more requests may be made, or undefined while they may; `share` keeps the rest for a later phase. */
  exhausted(share = 1): string | undefined {
    if (this.calls >= this.limits.maxCalls * share) return `the budget of ${Math.floor(this.limits.maxCalls * share)} model requests was spent`;
    if (this.tokens >= this.limits.maxTokens * share) return `the budget of ${Math.floor(this.limits.maxTokens * share)} tokens was spent`;
    if (Date.now() >= this.deadline) return `the ${this.limits.timeoutSeconds} seconds the model phases may take ran out`;
    return undefined;
  }
  remainingMs(): number {
    return Math.max(1, this.deadline - Date.now());
  }
}

/**
 * The findings the model review keeps, each with `metadata.verification` (runs, how many confirmed, the
 * reason of the first answer); findings it could not review (budget spent, the provider failing) are kept
 * as they were, and a note says why.
 */
export async function reviewFindings(provider: ModelProvider, limits: ReviewLimits, input: ReviewInput, budget = new Budget(limits)): Promise<RawFinding[]> {
  const cache = new ModelCache<{ verdict: Verdict; reason: string }>(input.cacheDir);
  const veil = new SecretVeil();
  const texts = new Map<string, string | null>();
  const textOf = async (file: string) => {
    if (!texts.has(file)) texts.set(file, await readTreeText(input.dir, file, MAX_FILE_BYTES));
    return texts.get(file)!;
  };
  const kept: RawFinding[] = [];
  let refuted = 0;
  let unreviewed = 0;
  let stopped: string | undefined;
  for (const [index, finding] of input.findings.entries()) {
    input.signal?.throwIfAborted();
    input.onProgress?.(index, input.findings.length);
    const text = finding.commitSha ? null : await textOf(finding.filePath);
    if (text === null || stopped) {
      if (stopped) unreviewed++;
      kept.push(finding);
      continue;
    }
    const lines = text.split('\n');
    const first = Math.max(1, finding.startLine - CONTEXT_LINES);
    const code = veil.hide(lines.slice(first - 1, finding.endLine + CONTEXT_LINES).join('\n'));
    const contentHash = crypto.createHash('sha256').update(text).digest('hex');
    const verdicts: { verdict: Verdict; reason: string }[] = [];
    for (let run = 0; run < limits.runs && !stopped; run++) {
      const key = crypto.createHash('sha256').update([input.model, finding.checkId, finding.filePath, contentHash, finding.startLine, run].join('\0')).digest('hex');
      const cached = await cache.get(key);
      if (cached) {
        verdicts.push(cached);
        continue;
      }
      stopped = budget.exhausted();
      if (stopped) break;
      try {
        budget.calls++;
        const turn = await provider.start(REVIEW_SYSTEM_PROMPT, taskFor(finding, code, first), []).next({ signal: input.signal ?? new AbortController().signal, timeoutMs: budget.remainingMs() });
        budget.tokens += turn.usage.inputTokens + turn.usage.outputTokens;
        const verdict = turn.refused ? { verdict: 'unsure' as const, reason: '' } : verdictOf(turn.text);
        verdicts.push(verdict);
        if (verdict.verdict !== 'unsure') await cache.put(key, verdict);
      } catch (error) {
        input.signal?.throwIfAborted();
        stopped = error instanceof ProviderError ? error.message : 'the model request failed';
      }
    }
    if (!verdicts.length) {
      unreviewed++;
      kept.push(finding);
      continue;
    }
    const confirmed = verdicts.filter((v) => v.verdict === 'confirmed').length;
    const refutedBy = verdicts.filter((v) => v.verdict === 'refuted').length;
    if (refutedBy > confirmed) {
      refuted++;
      continue;
    }
    const reason = verdicts.find((v) => v.verdict === 'confirmed')?.reason ?? '';
    kept.push({ ...finding, metadata: { ...finding.metadata, verification: { runs: verdicts.length, confirmed, reason } } });
  }
  input.onProgress?.(input.findings.length, input.findings.length);
  if (refuted) input.onNote?.(`the model review refuted ${refuted} finding${refuted === 1 ? ', which was' : 's, which were'} left out`);
  if (stopped && unreviewed) input.onNote?.(`the model review stopped (${stopped}); ${unreviewed} finding${unreviewed === 1 ? ' is' : 's are'} reported unreviewed`);
  return kept;
}
