import crypto from 'node:crypto';
import { ProviderError, type ModelProvider } from '../../llm/provider.ts';
import { UNTRUSTED_DATA_RULE, untrustedBlock } from '../../llm/untrusted.ts';
import { ModelCache } from './model-cache.ts';
import type { Budget } from './model-review.ts';

// The first model phase of a deep scan: a threat model of the application from what the program model
// knows of it (entry points with their guards, the packages it uses). It names the assets and trust
// boundaries, which every discovery conversation is given, and ranks the entry points, which decides the
// order discovery takes them in while its budget lasts.

export type Risk = 'high' | 'medium' | 'low';

/** An entry point of the program model as the model phases describe it. */
export interface EntryPointSummary {
  file: string;
  line: number;
  name: string;
  methods: string[];
  paths: string[];
  guarded: boolean;
}

export interface ThreatModel {
  /** Assets and trust boundaries, as the model put them, for the discovery prompts. */
  summary: string;
  /** The risk of each entry point, by its key (`file:line`). */
  risks: Map<string, Risk>;
}

export const entryKey = (e: EntryPointSummary) => `${e.file}:${e.line}`;

/** Entry points described in one request, at most. */
const ENTRY_POINTS_SHOWN = 200;

export const THREAT_SYSTEM_PROMPT = [
  'You are a security architect building the threat model of a web application from an inventory of its entry',
  'points (request handlers, with the HTTP methods they answer and whether an authentication or authorization',
  'guard was seen on them) and the packages it imports. Name what an attacker would want (assets), where',
  'untrusted input crosses into trusted code (trust boundaries), and rank every entry point by how much an',
  'attacker could do through it. Answer with one JSON object and nothing else:',
  '{"assets": ["..."], "trust_boundaries": ["..."], "entry_points": [{"id": "E1", "risk": "high" | "medium" | "low"}]}',
  '',
  UNTRUSTED_DATA_RULE,
].join('\n');

function taskFor(entryPoints: EntryPointSummary[], packages: string[], boundary: string): string {
  const inventory = entryPoints
    .slice(0, ENTRY_POINTS_SHOWN)
    .map((e, i) => `E${i + 1}: ${e.methods.join(',') || 'ANY'} ${e.paths.join(', ') || '(routed elsewhere)'} -> ${e.name} (${e.file}:${e.line}), ${e.guarded ? 'guarded' : 'no guard seen'}`);
  return [
    'Entry points:',
    untrustedBlock('inventory', {}, inventory.join('\n') || '(none found)', boundary),
    '',
    'Packages imported:',
    untrustedBlock('packages', {}, packages.join(', ') || '(none)', boundary),
  ].join('\n');
}

/** The threat model in a model's answer; what it lacks or garbles is left out. */
export function threatModelOf(text: string, entryPoints: EntryPointSummary[]): ThreatModel {
  let parsed: { assets?: unknown; trust_boundaries?: unknown; entry_points?: unknown } = {};
  try {
    parsed = JSON.parse(/\{[\s\S]*\}/.exec(text)?.[0] ?? '{}');
  } catch {
    // no model: the static order stands
  }
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string').map((v) => v.slice(0, 300)).slice(0, 20) : []);
  const assets = strings(parsed.assets);
  const boundaries = strings(parsed.trust_boundaries);
  const risks = new Map<string, Risk>();
  for (const item of Array.isArray(parsed.entry_points) ? parsed.entry_points : []) {
    const { id, risk } = (item ?? {}) as { id?: unknown; risk?: unknown };
    const index = typeof id === 'string' ? Number(/^E(\d+)$/.exec(id)?.[1]) - 1 : NaN;
    if (entryPoints[index] && (risk === 'high' || risk === 'medium' || risk === 'low')) risks.set(entryKey(entryPoints[index]), risk);
  }
  const summary = [assets.length ? `Assets: ${assets.join('; ')}.` : '', boundaries.length ? `Trust boundaries: ${boundaries.join('; ')}.` : ''].filter(Boolean).join('\n');
  return { summary, risks };
}

/**
 * The threat model of the application, from one request (or the cache, for the same inventory and model).
 * Throws a ProviderError when the provider fails; without budget left, an empty model.
 */
export async function buildThreatModel(
  provider: ModelProvider,
  budget: Budget,
  input: { entryPoints: EntryPointSummary[]; packages: string[]; model: string; cacheDir: string | null; signal?: AbortSignal },
): Promise<ThreatModel> {
  if (!input.entryPoints.length) return { summary: '', risks: new Map() };
  const inventoryKey = JSON.stringify([input.entryPoints.map((e) => [entryKey(e), e.name, e.methods, e.paths, e.guarded]), input.packages]);
  const key = crypto.createHash('sha256').update([input.model, 'threat-model', inventoryKey].join('\0')).digest('hex');
  const cache = new ModelCache<string>(input.cacheDir);
  let text = await cache.get(key);
  if (text === undefined) {
    if (budget.exhausted()) return { summary: '', risks: new Map() };
    budget.calls++;
    const boundary = crypto.randomBytes(8).toString('hex');
    try {
      const turn = await provider
        .start(THREAT_SYSTEM_PROMPT, taskFor(input.entryPoints, input.packages, boundary), [])
        .next({ signal: input.signal ?? new AbortController().signal, timeoutMs: budget.remainingMs() });
      budget.tokens += turn.usage.inputTokens + turn.usage.outputTokens;
      text = turn.refused ? '' : turn.text;
    } catch (error) {
      input.signal?.throwIfAborted();
      throw error instanceof ProviderError ? error : new ProviderError('the model request failed');
    }
    await cache.put(key, text);
  }
  return threatModelOf(text, input.entryPoints);
}
