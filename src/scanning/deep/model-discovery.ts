import crypto from 'node:crypto';
import { ProviderError, type ModelProvider } from '../../llm/provider.ts';
import { createReadOnlyTools } from '../../llm/repo-tools/index.ts';
import { runToolLoop } from '../../llm/tool-loop.ts';
import { UNTRUSTED_DATA_RULE, untrustedBlock } from '../../llm/untrusted.ts';
import type { RawFinding } from '../engine.ts';
import { hashParts, normalizeMatch, snippetOf } from '../match-identity.ts';
import { MAX_FILE_BYTES } from '../source-files.ts';
import { readTreeText } from '../../scm/work-tree.ts';
import { ModelCache } from './model-cache.ts';
import type { Budget } from './model-review.ts';
import { entryKey, type EntryPointSummary, type Risk, type ThreatModel } from './model-threats.ts';
import { isSeverity, SEVERITIES } from '../../core/severity.ts';

const RISK_ORDER: Record<Risk, number> = { high: 0, medium: 1, low: 2 };

// The model's discovery phase of a deep scan: for each entry point of the program model, a conversation
// with read-only tools over the checkout (list, read, search; credentials veiled) that looks for what the
// request can reach, seeded with what the static phases found in that file. What it reports is a candidate
// like any other: the review phase then tries to disprove it.

/** An entry point as the program model sees it. */
export interface DiscoveryInput {
  dir: string;
  entryPoints: EntryPointSummary[];
  /** The candidates the static phases found, shown as seeds and not reported twice. */
  known: RawFinding[];
  model: string;
  cacheDir: string | null;
  /** The threat model: its summary goes into every conversation, its ranking orders the entry points. */
  threats: ThreatModel;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/** What one discovery run may take, and how much of the scan's budget discovery may use. */
const DISCOVERY_STEPS = 12;
const DISCOVERY_SHARE = 0.5;
const SEEDS_SHOWN = 20;

export const DISCOVERY_SYSTEM_PROMPT = [
  'You are an application security engineer auditing one entry point of a web application: a request handler.',
  'Follow what the request controls through the code (read the handler, the functions it calls, the models and',
  'settings they use) and report the vulnerabilities a request can really trigger there: injection, broken',
  'access control (a missing authentication or ownership check), sensitive data exposure, insecure',
  'configuration, cross-site scripting, server-side request forgery, path traversal, deserialization, and the',
  'like. Use the tools to read code; report only what you have read and can point to. The scanner findings you',
  'are given are leads, already known: do not report them again.',
  'When you are done, answer without calling a tool, with one JSON object and nothing else:',
  `{"findings": [{"file": "<path>", "line": <number>, "cwe": "CWE-<n>", "severity": "${SEVERITIES.join('|')}",`,
  '"title": "<short>", "explanation": "<how a request triggers it>"}]} — an empty list when you found nothing.',
  '',
  UNTRUSTED_DATA_RULE,
].join('\n');

interface Reported {
  file: string;
  line: number;
  cwe: string;
  severity: string;
  title: string;
  explanation: string;
}

/** The findings of a model's conclusion that name a CWE and a place; anything else in it is ignored. */
export function reportedFindings(text: string): Reported[] {
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  let parsed: unknown;
  try {
    parsed = json ? JSON.parse(json) : undefined;
  } catch {
    return [];
  }
  const list = (parsed as { findings?: unknown } | undefined)?.findings;
  if (!Array.isArray(list)) return [];
  return list.flatMap((item): Reported[] => {
    const f = item as Record<string, unknown>;
    const cwe = typeof f.cwe === 'string' ? /^CWE-\d+$/i.exec(f.cwe.trim())?.[0]?.toUpperCase() : undefined;
    if (typeof f.file !== 'string' || typeof f.line !== 'number' || !cwe) return [];
    return [
      {
        file: f.file.replace(/^\.?\/+/, ''),
        line: Math.trunc(f.line),
        cwe,
        severity: isSeverity(f.severity) ? f.severity : 'medium',
        title: typeof f.title === 'string' ? f.title.slice(0, 200) : `${cwe} reachable from a request`,
        explanation: typeof f.explanation === 'string' ? f.explanation.slice(0, 2000) : '',
      },
    ];
  });
}

function taskFor(entry: EntryPointSummary, seeds: RawFinding[], threats: ThreatModel, boundary: string): string {
  const describe = `${entry.methods.join(', ') || 'any method'} ${entry.paths.join(', ') || '(routed outside the code)'}`;
  const leads = seeds.slice(0, SEEDS_SHOWN).map((f) => `- ${f.filePath}:${f.startLine} ${f.checkId} (${f.cwe.join(', ')}): ${f.title}`);
  const risk = threats.risks.get(entryKey(entry));
  return [
    `The entry point: ${entry.name} in ${entry.file}, line ${entry.line}, answering ${describe};` +
      ` ${entry.guarded ? 'a guard (authentication or authorization) covers it' : 'no guard was seen on it'}` +
      `${risk ? `; the threat model rates its risk ${risk}` : ''}.`,
    '',
    ...(threats.summary ? ['The threat model of the application:', untrustedBlock('threat-model', {}, threats.summary, boundary), ''] : []),
    'What the scanner already found in that file:',
    untrustedBlock('findings', {}, leads.length ? leads.join('\n') : '(nothing)', boundary),
  ].join('\n');
}

/** A reported place that exists: the file is in the checkout, the line in the file. */
async function placeOf(dir: string, reported: Reported): Promise<{ text: string } | undefined> {
  const text = await readTreeText(dir, reported.file, MAX_FILE_BYTES);
  if (text === null || reported.line < 1 || reported.line > text.split('\n').length) return undefined;
  return { text };
}

function toFinding(reported: Reported, text: string, entry: EntryPointSummary): RawFinding {
  const checkId = `ai.discovery.${reported.cwe.toLowerCase()}`;
  const lineText = normalizeMatch(text.split('\n')[reported.line - 1] ?? '');
  return {
    checkId,
    severity: reported.severity as RawFinding['severity'],
    category: 'ai-review',
    title: reported.title,
    message: `${reported.explanation} (Found by the model from the entry point ${entry.name} in ${entry.file}:${entry.line}.)`.trim(),
    filePath: reported.file,
    startLine: reported.line,
    endLine: reported.line,
    cwe: [reported.cwe],
    owasp: [],
    references: [`https://cwe.mitre.org/data/definitions/${reported.cwe.slice(4)}.html`],
    fingerprint: crypto.createHash('sha256').update(`${checkId}\0${reported.file}\0${lineText}`).digest('hex'),
    matchHash: hashParts(checkId, '', lineText),
    anchor: null,
    snippet: snippetOf(text, reported.line, reported.line),
    commitSha: null,
    metadata: { confidence: 'model', mode: 'discovery', entry_point: `${entry.file}:${entry.line} (${entry.name})` },
  };
}

const sameRootCause = (a: RawFinding, b: RawFinding) =>
  a.filePath === b.filePath && Math.abs(a.startLine - b.startLine) <= 3 && a.cwe.some((c) => b.cwe.some((d) => d.split(':')[0] === c.split(':')[0]));

/**
 * New candidates from the model, per entry point, unguarded and state-changing ones first, within the
 * discovery share of the scan's budget. Throws a ProviderError when the provider fails: the caller stops the
 * model phases and reports the static candidates.
 */
export async function discoverFindings(provider: ModelProvider, budget: Budget, input: DiscoveryInput): Promise<{ findings: RawFinding[]; stopped?: string }> {
  const cache = new ModelCache<Reported[]>(input.cacheDir);
  const rank = (e: EntryPointSummary) => RISK_ORDER[input.threats.risks.get(entryKey(e)) ?? 'medium'];
  const order = [...input.entryPoints].sort(
    (a, b) => rank(a) - rank(b) || Number(a.guarded) - Number(b.guarded) || Number(b.methods.some((m) => m !== 'GET')) - Number(a.methods.some((m) => m !== 'GET')),
  );
  const found: RawFinding[] = [];
  const contentHashes = new Map<string, string>();
  const hashOf = async (file: string) => {
    if (!contentHashes.has(file)) contentHashes.set(file, crypto.createHash('sha256').update((await readTreeText(input.dir, file, MAX_FILE_BYTES)) ?? '').digest('hex'));
    return contentHashes.get(file)!;
  };
  let stopped: string | undefined;
  for (const [index, entry] of order.entries()) {
    input.signal?.throwIfAborted();
    input.onProgress?.(index, order.length);
    const key = crypto.createHash('sha256').update([input.model, 'discovery', entry.file, await hashOf(entry.file), entry.name, entry.line].join('\0')).digest('hex');
    let reported = await cache.get(key);
    if (!reported) {
      stopped = budget.exhausted(DISCOVERY_SHARE);
      if (stopped) break;
      const boundary = crypto.randomBytes(8).toString('hex');
      const signal = input.signal ?? new AbortController().signal;
      const tools = await createReadOnlyTools({ dir: input.dir, boundary, signal });
      const result = await runToolLoop(provider, {
        system: DISCOVERY_SYSTEM_PROMPT,
        task: taskFor(entry, input.known.filter((f) => f.filePath === entry.file), input.threats, boundary),
        tools: tools.definitions,
        call: (name, args) => tools.call(name, args),
        maxSteps: DISCOVERY_STEPS,
        signal,
        timeoutMs: () => budget.remainingMs(),
        check: () => signal.throwIfAborted(),
        requestFailed: (error) => (error instanceof ProviderError ? error : new ProviderError('the model request failed')),
      });
      budget.calls += result.steps;
      budget.tokens += result.usage.inputTokens + result.usage.outputTokens;
      reported = result.outOfSteps || result.refused ? [] : reportedFindings(result.text);
      if (!result.outOfSteps && !result.refused) await cache.put(key, reported);
    }
    for (const r of reported) {
      const place = await placeOf(input.dir, r);
      if (!place) continue;
      const finding = toFinding(r, place.text, entry);
      if (![...input.known, ...found].some((f) => sameRootCause(f, finding))) found.push(finding);
    }
  }
  input.onProgress?.(order.length, order.length);
  return { findings: found, stopped };
}
