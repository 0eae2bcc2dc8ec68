import crypto from 'node:crypto';
import path from 'node:path';
import pLimit from 'p-limit';
import type { RawFinding } from '../engine.ts';
import { hashParts, normalizeMatch, snippetOf } from '../match-identity.ts';
import { MAX_FILE_BYTES, readSourceText, type CheckedFolders } from '../source-files.ts';
import { TreeRelease } from '../tree-release.ts';
import { ruleLanguageOf, type ParserName } from '../../languages/index.ts';
import { analyzeSource, analyzeSources, type SastMatch } from './analyze.ts';
import { detectSecrets, type SecretMatch } from '../secrets/detector.ts';
import { codeCredentialFindings, credentialFromStore, isStoredCredential, storedCredential } from './code-credentials.ts';
import { analysisVersion, matchText, ResultCache, storedMatch, type StoredMatch } from './result-cache.ts';
import { loadRuleSet, type RuleSet, type SastRule } from './rule-set.ts';

// The SAST work on a batch of files, run in a thread of the engine pool (see sast-engine.ts): read each
// file, take its matches from the result cache or analyze it, and turn the matches into findings.

/** Hand-written application scripts stay well below this; larger ones are bundles or copied-in libraries. */
export const MAX_SCRIPT_BYTES = 200 * 1024;
/**
 * Scripts whose lines are this long on average are minified or generated (the measure GitHub's linguist
 * uses): a library shipped as a build output, not code whose flows a fix could change.
 */
const MINIFIED_LINE_LENGTH = 110;

function averageLineLength(text: string): number {
  const lines = text.split('\n').filter((line) => line.trim());
  return lines.length ? lines.reduce((sum, line) => sum + line.length, 0) / lines.length : 0;
}

/** Whether a script reads as minified or generated, which the engine skips. */
export const looksMinified = (text: string): boolean => averageLineLength(text) > MINIFIED_LINE_LENGTH;

/** Files of a batch read (and looked up in the cache) at once. */
const READS_AT_ONCE = 16;

export interface AnalyzeFilesRequest {
  dir: string;
  files: { path: string; parser: ParserName }[];
  /** The operator's rule folders (the built-in ones are always read). */
  ruleDirs: string[];
  /**
   * Those rules as the scan loaded them: a thread that takes them from here need not read and parse the rule
   * files itself (a good part of a small scan's time, in every thread).
   */
  ruleSet?: RuleSet;
  /** The SAST result cache folder; no caching when null. */
  cacheDir: string | null;
  /** Only take results from the cache: a file it has none for is reported `missed`, not analyzed. */
  cachedOnly?: boolean;
  /** Keys the hashes of hard-coded credentials found in the files (see code-credentials.ts). */
  fingerprintKey: Uint8Array;
  /** Rules that are off by default (`default: off`), turned on; the others of that kind report nothing. */
  enabledRules?: string[];
}

export interface FileOutcome {
  findings: RawFinding[];
  /** Why the file was skipped, to tell the person running the scan. */
  note?: string;
  /** Whether the matches came from the cache. */
  cached: boolean;
  /** A `cachedOnly` request found nothing cached for the file: it is still to be analyzed. */
  missed?: boolean;
}

export interface AnalyzeFilesResult {
  outcomes: FileOutcome[];
  /** Bytes this batch added to the cache. */
  cacheBytesWritten: number;
}

/** The finding a SAST match makes, as every scan stores it. */
export function sastFinding(match: SastMatch, filePath: string, source: string): RawFinding {
  const { rule } = match;
  const normalized = match.text.replace(/\s+/g, ' ').trim();
  return {
    checkId: rule.id,
    severity: rule.severity,
    category: rule.category,
    title: rule.message.split(/(?<=\.)\s/)[0].slice(0, 200),
    message: rule.message,
    filePath,
    startLine: match.startLine,
    endLine: match.endLine,
    cwe: rule.cwe,
    owasp: rule.owasp,
    references: rule.references,
    fingerprint: crypto.createHash('sha256').update(`${rule.id}\0${filePath}\0${normalized}`).digest('hex'),
    // The call is part of the match: the same argument passed to another call is another finding.
    matchHash: hashParts(rule.id, match.anchor ?? '', normalizeMatch(match.text)),
    anchor: match.anchor,
    snippet: snippetOf(source, match.startLine, match.endLine),
    commitSha: null,
    metadata: { confidence: rule.confidence, mode: rule.mode, ...(rule.fix ? { fix: rule.fix } : {}) },
  };
}


/**
 * The syntax trees of analyzed files are let go every 2 MiB of source a thread has parsed (tree-release.ts):
 * after every batch, the collections cost a tenth of the scan's time.
 */
const treeRelease = new TreeRelease(2 * 1024 * 1024);

/** A file to analyze: where its outcome goes and what it holds. */
interface Pending {
  at: number;
  file: string;
  parser: ParserName;
  text: string;
  key: string;
}

/** The matches of each pending file, or the error that stopped its analysis; files of a parser go together. */
async function analyzePending(ruleSet: RuleSet, dir: string, pending: Pending[]): Promise<(SastMatch[] | Error)[]> {
  const results: (SastMatch[] | Error)[] = [];
  const alone = (p: Pending): SastMatch[] | Error => {
    try {
      return analyzeSource(ruleSet, p.parser, p.text);
    } catch (error) {
      return error as Error;
    }
  };
  const byParser = new Map<ParserName, number[]>();
  pending.forEach((p, i) => {
    // ast-grep reads the files itself and skips one that is not valid UTF-8, which this thread reads lossily.
    if (p.text.includes('\uFFFD')) results[i] = alone(p);
    else byParser.set(p.parser, [...(byParser.get(p.parser) ?? []), i]);
  });
  for (const [parser, indexes] of byParser) {
    let batch: (SastMatch[] | Error)[];
    try {
      batch = await analyzeSources(ruleSet, parser, indexes.map((i) => ({ path: path.join(dir, pending[i].file), text: pending[i].text })));
    } catch {
      batch = indexes.map((i) => alone(pending[i]));
    }
    indexes.forEach((i, k) => (results[i] = batch[k]));
  }
  return results;
}

/** Rule sets handed over by scans, by version: each batch brings a copy, the first one is kept. */
const handedOver = new Map<string, RuleSet>();

function ruleSetOf(request: AnalyzeFilesRequest): RuleSet {
  const given = request.ruleSet;
  if (!given) return loadRuleSet(request.ruleDirs);
  let kept = handedOver.get(given.version);
  if (!kept) handedOver.set(given.version, (kept = given));
  return kept;
}

export async function analyzeFiles(request: AnalyzeFilesRequest): Promise<AnalyzeFilesResult> {
  const ruleSet = ruleSetOf(request);
  const rulesById = new Map<string, SastRule>(ruleSet.rules.map((r) => [r.id, r]));
  const cache = request.cacheDir ? new ResultCache(request.cacheDir, analysisVersion(ruleSet)) : undefined;
  const outcomes: FileOutcome[] = [];
  const pending: Pending[] = [];
  let cacheBytesWritten = 0;
  /** The credentials the secrets detector finds in a code file (a template is markup: the secrets scan reads it). */
  const credentialsIn = (parser: ParserName, text: string, file: string): SecretMatch[] => (ruleLanguageOf(parser) === 'template' ? [] : detectSecrets(text, file));
  const enabledRules = new Set(request.enabledRules ?? []);
  const folders: CheckedFolders = new Set();
  const findingsOf = (matches: SastMatch[], credentials: SecretMatch[], file: string, parser: ParserName, text: string): RawFinding[] => {
    // Rules that are off go before the credentials are placed: a line only an off rule flags still gets its credential.
    const findings = matches.filter((m) => !m.rule.offByDefault || enabledRules.has(m.rule.id)).map((m) => sastFinding(m, file, text));
    if (!credentials.length) return findings;
    return [...findings, ...codeCredentialFindings(credentials, text, file, ruleLanguageOf(parser), request.fingerprintKey, findings)];
  };
  /** A file's outcome when it is skipped or cached; otherwise what analyzing it needs. */
  const readFile = async ({ path: file, parser }: AnalyzeFilesRequest['files'][number]): Promise<FileOutcome | Omit<Pending, 'at'>> => {
    const isScript = ruleLanguageOf(parser) === 'javascript';
    const source = await readSourceText(request.dir, file, isScript ? MAX_SCRIPT_BYTES : MAX_FILE_BYTES, folders);
    if ('skipped' in source) {
      const bundle = isScript && source.skipped === 'too large' && source.size <= MAX_FILE_BYTES;
      const note = bundle ? `skipped ${file}: at ${Math.round(source.size / 1024)} KiB it looks like a bundled library rather than application code` : undefined;
      return { findings: [], note, cached: false };
    }
    const lineLength = isScript ? averageLineLength(source.text) : 0;
    if (lineLength > MINIFIED_LINE_LENGTH) {
      return { findings: [], note: `skipped ${file}: with lines of ${Math.round(lineLength)} characters on average it looks minified rather than written by hand`, cached: false };
    }
    const key = cache ? ResultCache.keyOf(parser, source.text) : '';
    const hit = await cache?.get(key);
    if (hit?.every((m) => rulesById.has(m.ruleId) || isStoredCredential(m))) {
      const matches = hit.filter((m) => rulesById.has(m.ruleId)).map((m) => ({ rule: rulesById.get(m.ruleId)!, startLine: m.startLine, endLine: m.endLine, text: matchText(m, source.text), anchor: m.anchor }));
      const credentials = hit.filter((m) => !rulesById.has(m.ruleId)).map((m) => credentialFromStore(m, source.text));
      return { findings: findingsOf(matches, credentials, file, parser, source.text), cached: true };
    }
    return { file, parser, text: source.text, key };
  };
  // Reads overlap: one at a time, a batch of cached files waited on the disk more than it computed.
  const read = pLimit(READS_AT_ONCE);
  for (const result of await Promise.all(request.files.map((file) => read(() => readFile(file))))) {
    if ('findings' in result) outcomes.push(result);
    else {
      if (!request.cachedOnly) pending.push({ at: outcomes.length, ...result });
      outcomes.push({ findings: [], cached: false, ...(request.cachedOnly ? { missed: true } : {}) });
    }
  }
  const analyzed = await analyzePending(ruleSet, request.dir, pending);
  await treeRelease.after(pending.reduce((chars, p) => chars + p.text.length, 0));
  for (const [k, p] of pending.entries()) {
    const matches = analyzed[k];
    if (matches instanceof Error) {
      outcomes[p.at] = { findings: [], note: `skipped ${p.file}: it could not be analyzed (${matches.message.split('\n')[0]})`, cached: false };
      continue;
    }
    const credentials = credentialsIn(p.parser, p.text, p.file);
    const entry = cache ? [...matches.map((m) => storedMatch({ ...m, ruleId: m.rule.id }, p.text)), ...credentials.map(storedCredential)] : [];
    if (cache && entry.every((m) => m !== null)) cacheBytesWritten += await cache.put(p.key, entry as StoredMatch[]);
    outcomes[p.at] = { findings: findingsOf(matches, credentials, p.file, p.parser, p.text), cached: false };
  }
  return { outcomes, cacheBytesWritten };
}
