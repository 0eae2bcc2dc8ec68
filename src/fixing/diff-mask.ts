import { maskSecretsIn } from '../scanning/secrets/mask-text.ts';

/**
 * A diff as the API shows it: every credential the detector finds is replaced by its masked form, and no
 * hunk leans on a credential line as context, so the served diff still applies with plain `git apply`
 * wherever the fix itself neither removes nor adds a credential line. A context line holding a
 * credential is left out of its hunk: the hunk ends before it, or starts after it, or is split in two
 * around it, each part keeping the rest of its context. The applicable diff is kept sealed beside it.
 *
 * One case cannot apply as served: a change directly followed by a credential line, away from the end
 * of the file, leaves a hunk without trailing context, which `git apply` anchors to the end of the file.
 */
export function maskDiff(diff: string): string {
  const masked = maskSecretsIn(diff);
  if (masked === diff) return diff;
  const lines = diff.split('\n');
  const maskedLines = masked.split('\n');
  // maskSecretsIn keeps every line of a text; should that ever not hold, the masked diff is served as is.
  if (maskedLines.length !== lines.length) return masked;
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    const header = parseHunkHeader(lines[i]!, maskedLines[i]!);
    if (!header) {
      out.push(maskedLines[i]!);
      i++;
      continue;
    }
    const hunk = readHunk(lines, maskedLines, i + 1, header);
    if (!hunk) {
      // Counts that do not match the body: not a hunk this code can rebuild, so it is only masked.
      out.push(maskedLines[i]!);
      i++;
      continue;
    }
    out.push(...rebuildHunk(header, hunk.entries));
    i = hunk.next;
  }
  return out.join('\n');
}

interface HunkHeader {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
  /** What follows the second `@@` (the enclosing function git names), kept on every part. */
  section: string;
}

interface Entry {
  marker: ' ' | '-' | '+';
  masked: string;
  /** Whether the line holds (part of) a credential: its masked form differs from it. */
  credential: boolean;
  /** A `\ No newline at end of file` line that follows this one. */
  noNewline?: string;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;

function parseHunkHeader(line: string, masked: string): HunkHeader | undefined {
  const m = HUNK_HEADER.exec(line);
  if (!m) return undefined;
  const section = HUNK_HEADER.exec(masked)?.[5] ?? '';
  return { oldStart: Number(m[1]), oldCount: m[2] === undefined ? 1 : Number(m[2]), newStart: Number(m[3]), newCount: m[4] === undefined ? 1 : Number(m[4]), section };
}

/** The body of a hunk whose counts its lines match exactly, and the index of the line after it. */
function readHunk(lines: string[], maskedLines: string[], start: number, header: HunkHeader): { entries: Entry[]; next: number } | undefined {
  const entries: Entry[] = [];
  let oldLeft = header.oldCount;
  let newLeft = header.newCount;
  let i = start;
  while (oldLeft > 0 || newLeft > 0) {
    const line = lines[i];
    if (line === undefined) return undefined;
    const marker = line[0];
    if (marker === '\\' && entries.length) {
      entries.at(-1)!.noNewline = maskedLines[i]!;
      i++;
      continue;
    }
    if (marker !== ' ' && marker !== '-' && marker !== '+') return undefined;
    if (marker !== '+') oldLeft--;
    if (marker !== '-') newLeft--;
    if (oldLeft < 0 || newLeft < 0) return undefined;
    entries.push({ marker, masked: maskedLines[i]!, credential: maskedLines[i] !== line });
    i++;
  }
  if (lines[i]?.startsWith('\\') && entries.length) entries.at(-1)!.noNewline = maskedLines[i++]!;
  return { entries, next: i };
}

/**
 * The hunk as one or more hunks without any credential context line: each run of lines between such
 * lines that changes something becomes a hunk of its own, with its line numbers.
 */
function rebuildHunk(header: HunkHeader, entries: Entry[]): string[] {
  if (!entries.some((e) => e.marker === ' ' && e.credential)) return renderHunk(header.oldStart, header.newStart, header.section, entries, header);
  const out: string[] = [];
  let oldLine = header.oldStart || 1;
  let newLine = header.newStart || 1;
  // A hunk that adds to an empty file starts at 0; its lines are numbered from 1 all the same.
  if (header.oldCount === 0) oldLine = header.oldStart + 1;
  if (header.newCount === 0) newLine = header.newStart + 1;
  let run: Entry[] = [];
  let runOld = oldLine;
  let runNew = newLine;
  const flush = () => {
    if (run.some((e) => e.marker !== ' ')) out.push(...renderHunk(runOld, runNew, header.section, run));
    run = [];
  };
  for (const entry of entries) {
    if (entry.marker === ' ' && entry.credential) {
      flush();
      oldLine++;
      newLine++;
      runOld = oldLine;
      runNew = newLine;
      continue;
    }
    run.push(entry);
    if (entry.marker !== '+') oldLine++;
    if (entry.marker !== '-') newLine++;
  }
  flush();
  return out;
}

/** A hunk's lines, its header counted from its entries; `firstOld`/`firstNew` number its first line of each side. */
function renderHunk(firstOld: number, firstNew: number, section: string, entries: Entry[], original?: HunkHeader): string[] {
  const oldCount = entries.filter((e) => e.marker !== '+').length;
  const newCount = entries.filter((e) => e.marker !== '-').length;
  // An empty side is numbered by the line before it, as diff writes it.
  const oldStart = original ? original.oldStart : oldCount ? firstOld : firstOld - 1;
  const newStart = original ? original.newStart : newCount ? firstNew : firstNew - 1;
  const range = (start: number, count: number) => (count === 1 ? `${start}` : `${start},${count}`);
  const lines = [`@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@${section}`];
  for (const entry of entries) {
    lines.push(entry.masked);
    if (entry.noNewline !== undefined) lines.push(entry.noNewline);
  }
  return lines;
}
