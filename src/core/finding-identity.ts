// Which stored finding a new detection is. Pure: no database, no clock.
//
// GitHub code scanning keys a result on a hash of the normalized text of its line (primaryLocationLineHash)
// plus the rule and path, then re-matches fuzzily; Semgrep's match_based_id hashes the rule, the path and
// the matched text with an index for repeats. Both lose a finding when its file moves, and Semgrep's loses
// it when anything inside the match changes. Here a detection is compared with the findings of the same
// source repository, rule and file, the file followed through git's rename detection, in two tiers:
//
//   1. exact: the same match hash (whitespace-insensitive, path-free), paired in line order, so two
//      identical matches in one file stay two findings and keep their order;
//   2. anchor: the same coarser key (for SAST the call the match sits in, e.g. `requests.get`), pairing the
//      most similar excerpt first and then the nearest line, one to one. Excerpts that share less than
//      half their text are different code that happens to make the same call: no pairing, so a triage
//      decision is never handed to code nobody looked at.
//
// A finding whose match changed to another call (`os.system(cmd)` → `subprocess.call(cmd, shell=True)`)
// has a different anchor and is not carried over: the old one resolves and the new one opens.

import type { RawFinding } from '../scanning/engine.ts';
import type { FindingRow } from '../store/schema.ts';

export interface StoredIdentity {
  id: string;
  checkId: string;
  filePath: string;
  /** Null on findings stored before match hashes were kept; `fingerprint` is then the engine's fingerprint. */
  matchHash: string | null;
  fingerprint: string;
  anchor: string | null;
  startLine: number | null;
  snippet: string | null;
}

export interface DetectedIdentity {
  checkId: string;
  filePath: string;
  matchHash: string;
  /** The engine's fingerprint (rule, path, matched text), which rows stored before match hashes carry. */
  fingerprint: string;
  anchor: string | null;
  startLine: number;
  snippet: string | null;
}

/** How a detection is matched: what an engine reported of it. */
export const identityOfDetection = (raw: RawFinding): DetectedIdentity => ({
  checkId: raw.checkId,
  filePath: raw.filePath,
  matchHash: raw.matchHash ?? raw.fingerprint,
  fingerprint: raw.fingerprint,
  anchor: raw.anchor ?? null,
  startLine: raw.startLine,
  snippet: raw.snippet ?? null,
});

/** How a stored finding is matched. */
export const identityOfFinding = (row: FindingRow): StoredIdentity => ({
  id: row.id,
  checkId: row.check_id,
  filePath: row.file_path,
  matchHash: row.match_hash,
  fingerprint: row.fingerprint,
  anchor: row.anchor,
  startLine: row.start_line,
  snippet: row.snippet,
});

const groupKey = (checkId: string, filePath: string) => `${checkId}\0${filePath}`;

/** Least excerpt similarity for an anchor pairing, when both excerpts are known. */
export const MIN_ANCHOR_SIMILARITY = 0.5;


const byLine = <T extends { startLine: number | null }>(a: T, b: T) => (a.startLine ?? 0) - (b.startLine ?? 0);

/** Character-bigram (Dice) similarity of two excerpts, whitespace ignored: 1 for equal texts, 0 for none alike. */
export function textSimilarity(a: string | null, b: string | null): number {
  const left = (a ?? '').replace(/\s+/g, '');
  const right = (b ?? '').replace(/\s+/g, '');
  if (!left || !right) return 0;
  if (left === right) return 1;
  const bigrams = (text: string) => {
    const counts = new Map<string, number>();
    for (let i = 0; i < text.length - 1; i++) counts.set(text.slice(i, i + 2), (counts.get(text.slice(i, i + 2)) ?? 0) + 1);
    return counts;
  };
  const l = bigrams(left);
  const r = bigrams(right);
  let shared = 0;
  for (const [gram, count] of l) shared += Math.min(count, r.get(gram) ?? 0);
  const total = Math.max(1, left.length - 1) + Math.max(1, right.length - 1);
  return (2 * shared) / total;
}

/**
 * For each detection (by index), the id of the stored finding it is, or undefined for a new finding.
 * `renames` maps a path of the previous scan's commit to its path now. Each stored finding is used once.
 */
export function matchFindings(
  stored: StoredIdentity[],
  detected: DetectedIdentity[],
  renames: ReadonlyMap<string, string> = new Map(),
): (string | undefined)[] {
  const result: (string | undefined)[] = new Array(detected.length).fill(undefined);
  const storedGroups = Map.groupBy(stored, (s) => groupKey(s.checkId, renames.get(s.filePath) ?? s.filePath));
  const detectedGroups = Map.groupBy(
    detected.map((d, index) => ({ ...d, index })),
    (d) => groupKey(d.checkId, d.filePath),
  );
  for (const [key, news] of detectedGroups) {
    const olds = storedGroups.get(key);
    if (!olds) continue;
    const used = new Set<string>();
    const take = (d: { index: number }, s: StoredIdentity) => {
      result[d.index] = s.id;
      used.add(s.id);
    };

    // Tier 1: the same match, paired in line order (the nth copy in the file stays the nth).
    const newByHash = Map.groupBy([...news].sort(byLine), (d) => d.matchHash);
    const oldByHash = Map.groupBy(
      olds.filter((s) => s.matchHash !== null).sort(byLine),
      (s) => s.matchHash!,
    );
    for (const [hash, sameNew] of newByHash) {
      const sameOld = oldByHash.get(hash) ?? [];
      sameNew.slice(0, sameOld.length).forEach((d, i) => take(d, sameOld[i]));
    }
    // Rows stored before match hashes: their key is the engine's fingerprint of the same match and path.
    const legacy = Map.groupBy(
      olds.filter((s) => s.matchHash === null).sort(byLine),
      (s) => s.fingerprint,
    );
    for (const d of [...news].sort(byLine)) {
      if (result[d.index] !== undefined) continue;
      const candidate = legacy.get(d.fingerprint)?.find((s) => !used.has(s.id));
      if (candidate) take(d, candidate);
    }

    // Tier 2: the same anchor, most similar excerpt first, then nearest line.
    const pairs: { d: (typeof news)[number]; s: StoredIdentity; similarity: number; distance: number }[] = [];
    for (const d of news) {
      if (result[d.index] !== undefined || d.anchor === null) continue;
      for (const s of olds) {
        if (used.has(s.id) || s.anchor !== d.anchor) continue;
        const similarity = textSimilarity(d.snippet, s.snippet);
        if (d.snippet && s.snippet && similarity < MIN_ANCHOR_SIMILARITY) continue;
        pairs.push({ d, s, similarity, distance: Math.abs((s.startLine ?? d.startLine) - d.startLine) });
      }
    }
    pairs.sort((a, b) => b.similarity - a.similarity || a.distance - b.distance || a.d.startLine - b.d.startLine);
    for (const { d, s } of pairs) {
      if (result[d.index] !== undefined || used.has(s.id)) continue;
      take(d, s);
    }
  }
  return result;
}

/**
 * The occurrence index of each detection among those with the same rule, file and match hash, in line
 * order: 0 for the first copy of a match in a file, 1 for the second.
 */
export function occurrenceIndexes(detected: Pick<DetectedIdentity, 'checkId' | 'filePath' | 'matchHash' | 'startLine'>[]): number[] {
  const indexes: number[] = new Array(detected.length).fill(0);
  const groups = Map.groupBy(
    detected.map((d, index) => ({ ...d, index })),
    (d) => `${groupKey(d.checkId, d.filePath)}\0${d.matchHash}`,
  );
  for (const group of groups.values()) group.sort(byLine).forEach((d, i) => (indexes[d.index] = i));
  return indexes;
}

/**
 * Where paths moved between the stored findings and a new sighting that no rename map describes (an import
 * reads no git history): a stored file none of whose findings is detected any more, holding a finding whose
 * rule and match hash a detection in a file nothing was stored for carries, moved there. Each path is taken
 * once, by the first such pair in line order.
 */
export function renamesByMatch(stored: StoredIdentity[], detected: DetectedIdentity[]): Map<string, string> {
  const storedPaths = new Set(stored.map((s) => s.filePath));
  const detectedPaths = new Set(detected.map((d) => d.filePath));
  const arrivals = Map.groupBy(
    detected.filter((d) => !storedPaths.has(d.filePath)).sort(byLine),
    (d) => `${d.checkId}\0${d.matchHash}`,
  );
  const renames = new Map<string, string>();
  const taken = new Set<string>();
  for (const s of [...stored].sort(byLine)) {
    if (detectedPaths.has(s.filePath) || renames.has(s.filePath) || s.matchHash === null) continue;
    const arrival = arrivals.get(`${s.checkId}\0${s.matchHash}`)?.find((d) => !taken.has(d.filePath));
    if (!arrival) continue;
    renames.set(s.filePath, arrival.filePath);
    taken.add(arrival.filePath);
  }
  return renames;
}

// One problem two tools report under their own rules: a detection and a finding another tool describes are
// the same problem when they are in the same file and, by kind:
//   - code: their lines overlap and they name a CWE in common, or their rules are of one family (the words
//     of one rule's id, tool and language names aside, are all words of the other's);
//   - secrets: their lines overlap (a credential on a line is that credential, whoever reports it);
//   - dependencies: they name an advisory in common (lines aside: tools point at different lines of a lockfile).
// Pairs are taken most overlapping lines first, then nearest, one to one.

export type ProblemKind = 'code' | 'secrets' | 'dependencies';

export interface PlacedProblem {
  kind: ProblemKind;
  filePath: string;
  startLine: number | null;
  endLine: number | null;
  /** CWE numbers, without leading zeros. */
  cwes: readonly string[];
  /** The significant words of the rule's id (ruleWords()). */
  ruleWords: readonly string[];
  /** Advisory ids (CVE, GHSA, …), upper-cased. */
  advisories: readonly string[];
}

const RULE_STOP_WORDS = new Set([
  'py', 'python', 'js', 'javascript', 'ts', 'typescript', 'jsx', 'tsx', 'java', 'go', 'golang', 'rb', 'ruby', 'php', 'cs', 'csharp',
  'cpp', 'kotlin', 'swift', 'rust', 'lang', 'security', 'audit', 'rule', 'rules', 'generic', 'detect', 'detected', 'check', 'checks',
  'the', 'of', 'in', 'on', 'to', 'and', 'use', 'using', 'bulwark',
]);

const RULE_WORD_EXPANSIONS: Record<string, string[]> = {
  sqli: ['sql', 'injection'],
  cmdi: ['command', 'injection'],
  xxe: ['xml', 'external', 'entity'],
  ssti: ['template', 'injection'],
};

/** The words of a rule id that say what it finds: split at every non-alphanumeric, language and tool names left out. */
export function ruleWords(checkId: string, ignore: readonly string[] = []): string[] {
  const words = new Set<string>();
  for (const word of checkId.toLowerCase().split(/[^a-z0-9]+/)) {
    if (word.length < 3 || /^\d+$/.test(word) || RULE_STOP_WORDS.has(word) || ignore.includes(word)) continue;
    for (const w of RULE_WORD_EXPANSIONS[word] ?? [word]) words.add(w);
  }
  return [...words];
}

function sameFamily(a: readonly string[], b: readonly string[]): boolean {
  const [small, large] = a.length <= b.length ? [a, b] : [b, a];
  return small.length >= 2 && small.every((w) => large.includes(w));
}

const overlapOf = (a: PlacedProblem, b: PlacedProblem): number => {
  if (a.startLine === null || b.startLine === null) return -1;
  const from = Math.max(a.startLine, b.startLine);
  const to = Math.min(a.endLine ?? a.startLine, b.endLine ?? b.startLine);
  return to - from + 1;
};

const intersects = (a: readonly string[], b: readonly string[]) => a.some((x) => b.includes(x));

/** Whether a detection and a finding another tool describes are one problem (see above); the pairing's overlap when they are. */
function sameProblem(stored: PlacedProblem, detected: PlacedProblem): number | null {
  if (stored.kind !== detected.kind || stored.filePath !== detected.filePath) return null;
  const overlap = overlapOf(stored, detected);
  switch (detected.kind) {
    case 'dependencies':
      return intersects(stored.advisories, detected.advisories) ? Math.max(0, overlap) : null;
    case 'secrets':
      return overlap > 0 ? overlap : null;
    case 'code':
      return overlap > 0 && (intersects(stored.cwes, detected.cwes) || sameFamily(stored.ruleWords, detected.ruleWords)) ? overlap : null;
  }
}

/**
 * For each detection (by index), the id of the stored finding of another tool it is (see above), or
 * undefined. `renames` maps a stored path to its path now. Each stored finding is used once.
 */
export function matchAcrossTools(
  stored: (PlacedProblem & { id: string })[],
  detected: (PlacedProblem | null)[],
  renames: ReadonlyMap<string, string> = new Map(),
): (string | undefined)[] {
  const result: (string | undefined)[] = new Array(detected.length).fill(undefined);
  if (!stored.length) return result;
  const byPath = Map.groupBy(stored, (s) => renames.get(s.filePath) ?? s.filePath);
  const pairs: { index: number; id: string; overlap: number; distance: number }[] = [];
  for (const [index, d] of detected.entries()) {
    if (!d) continue;
    for (const s of byPath.get(d.filePath) ?? []) {
      const overlap = sameProblem({ ...s, filePath: d.filePath }, d);
      if (overlap === null) continue;
      pairs.push({ index, id: s.id, overlap, distance: Math.abs((s.startLine ?? 0) - (d.startLine ?? 0)) });
    }
  }
  pairs.sort((a, b) => b.overlap - a.overlap || a.distance - b.distance || a.index - b.index);
  const used = new Set<string>();
  for (const { index, id } of pairs) {
    if (result[index] !== undefined || used.has(id)) continue;
    result[index] = id;
    used.add(id);
  }
  return result;
}
