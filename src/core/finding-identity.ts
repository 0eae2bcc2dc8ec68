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
