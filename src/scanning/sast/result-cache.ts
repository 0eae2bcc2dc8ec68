import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ParserName } from '../../languages/index.ts';
import type { RuleSet } from './rule-set.ts';

// What SAST found in a file, kept by the hash of the file's content so that a rescan does not analyze an
// unchanged file again. Entries are path-free (a copied or renamed file hits too) and live under a folder
// named after the analysis version: the rule files, the analysis code and the parser, so a change to any of
// them starts afresh. Every entry is written to a temporary name and renamed into place, so processes that
// share the folder never read half an entry; one that cannot be read counts as a miss. The folder is kept
// under a size bound by removing the oldest entries (see pruneResultCache). Entries hold no code: a match
// is kept as where its text lies in the file, which a hit (same content) reads back, so a credential a
// rule matched never reaches the cache folder.

/** One match as stored: the rule by id, its lines, and its text as an offset and length in the file. */
export interface StoredMatch {
  ruleId: string;
  startLine: number;
  endLine: number;
  at: number;
  length: number;
  anchor: string | null;
}

/** A match's text and anchor as the cache can keep them, or null when it cannot (then the file is not cached). */
export function storedMatch(match: { ruleId: string; startLine: number; endLine: number; text: string; anchor: string | null }, source: string): StoredMatch | null {
  let lineStart = 0;
  for (let line = 1; line < match.startLine && lineStart !== -1; line++) lineStart = source.indexOf('\n', lineStart) + 1 || -1;
  const at = lineStart === -1 ? -1 : source.indexOf(match.text, lineStart);
  // A callee is code too: one holding a literal (a credential passed to a factory) is not kept.
  if (at === -1 || (match.anchor !== null && /["'`]/.test(match.anchor))) return null;
  return { ruleId: match.ruleId, startLine: match.startLine, endLine: match.endLine, at, length: match.text.length, anchor: match.anchor };
}

/** A stored match's text, read back from the file's content (the one its key was made from). */
export function matchText(match: StoredMatch, source: string): string {
  return source.slice(match.at, match.at + match.length);
}

export const DEFAULT_CACHE_BYTES = 256 * 1024 * 1024;

/** The files whose behaviour the cached results depend on, besides the rules (the secrets detector finds the credentials kept with them). */
const ANALYSIS_CODE = ['analyze.ts', 'combined-matcher.ts', 'cheap-first.ts', 'taint.ts', 'rule-set.ts', '../../languages', '../secrets'];

let codeHash: string | undefined;

function analysisCodeHash(): string {
  if (codeHash) return codeHash;
  const hash = crypto.createHash('sha256');
  const here = path.dirname(fileURLToPath(import.meta.url));
  const files = ANALYSIS_CODE.flatMap((entry) => {
    const full = path.resolve(here, entry);
    if (!fs.statSync(full).isDirectory()) return [full];
    return fs.readdirSync(full, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name)).sort();
  });
  for (const file of files) hash.update(`${path.relative(here, file)}\0${fs.readFileSync(file, 'utf8')}\0`);
  const require = createRequire(import.meta.url);
  hash.update(String((require('@ast-grep/napi/package.json') as { version: string }).version));
  codeHash = hash.digest('hex');
  return codeHash;
}

/** The name of the folder a rule set's results live in. */
export function analysisVersion(ruleSet: RuleSet): string {
  return crypto.createHash('sha256').update(`${ruleSet.version}\0${analysisCodeHash()}`).digest('hex').slice(0, 24);
}

export class ResultCache {
  private readonly dir: string;

  /** `root` is the SAST cache folder; entries go below `root/<version>`. */
  constructor(root: string, version: string) {
    this.dir = path.join(root, version);
  }

  static keyOf(parser: ParserName, text: string): string {
    return crypto.createHash('sha256').update(`${parser}\0${text}`).digest('hex');
  }

  private pathOf(key: string): string {
    return path.join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<StoredMatch[] | undefined> {
    try {
      const text = await fsp.readFile(this.pathOf(key), 'utf8');
      const value = JSON.parse(text) as unknown;
      // An entry of another shape (one that kept the matched text) is a miss, written again on this scan.
      return Array.isArray(value) && value.every((m: Partial<StoredMatch>) => Number.isInteger(m.at) && Number.isInteger(m.length)) ? (value as StoredMatch[]) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Stores an entry; returns the bytes written (0 when it could not be written, which only costs a later miss). */
  async put(key: string, matches: StoredMatch[]): Promise<number> {
    const target = this.pathOf(key);
    const text = JSON.stringify(matches);
    const temporary = `${target}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    try {
      await fsp.mkdir(path.dirname(target), { recursive: true });
      await fsp.writeFile(temporary, text);
      await fsp.rename(temporary, target);
      return text.length;
    } catch {
      await fsp.rm(temporary, { force: true });
      return 0;
    }
  }
}

/**
 * Removes the oldest entries (by when they were written) below `root` until it holds at most 80% of
 * `maxBytes`, when it holds more than `maxBytes`. Sizes count whole file-system blocks. Safe to run while
 * other processes read and write: an entry removed under a reader is a miss.
 */
export async function pruneResultCache(root: string, maxBytes: number): Promise<void> {
  const entries: { file: string; bytes: number; written: number }[] = [];
  const walk = async (dir: string): Promise<void> => {
    let names: fs.Dirent[];
    try {
      names = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of names) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else {
        const stat = await fsp.stat(full).catch(() => undefined);
        if (stat) entries.push({ file: full, bytes: Math.max(stat.size, stat.blocks * 512), written: stat.mtimeMs });
      }
    }
  };
  await walk(root);
  let total = entries.reduce((sum, e) => sum + e.bytes, 0);
  if (total <= maxBytes) return;
  entries.sort((a, b) => a.written - b.written);
  for (const entry of entries) {
    if (total <= maxBytes * 0.8) break;
    await fsp.rm(entry.file, { force: true });
    total -= entry.bytes;
  }
}
