/** A replacement of `text.slice(start, end)`, offsets in UTF-16 code units as JavaScript strings count them. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** Applies non-overlapping edits; throws when two overlap, which would be a fixer bug. */
export function applyEdits(text: string, edits: TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => b.start - a.start || b.end - a.end);
  let result = text;
  let limit = Infinity;
  for (const edit of sorted) {
    if (edit.end > limit) throw new Error('overlapping edits');
    result = result.slice(0, edit.start) + edit.text + result.slice(edit.end);
    limit = edit.start;
  }
  return result;
}

/** The line break a file uses, so inserted lines match it. */
export function newlineOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** Where the line holding `offset` starts. */
export function lineStartOf(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The spaces and tabs that open the line holding `offset`, for a line inserted beside it. */
export function lineIndent(text: string, offset: number): string {
  return /^[ \t]*/.exec(text.slice(lineStartOf(text, offset)))![0];
}

/** Offsets where each line starts; line n (1-based) starts at `starts[n - 1]`. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** Physical lines without their terminators, and each line's terminator, so a file can be rebuilt as it was. */
export function splitLines(text: string): { lines: string[]; breaks: string[] } {
  const lines: string[] = [];
  const breaks: string[] = [];
  const pattern = /\r\n|\n|\r/g;
  let from = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    lines.push(text.slice(from, m.index));
    breaks.push(m[0]);
    from = m.index + m[0].length;
  }
  lines.push(text.slice(from));
  breaks.push('');
  return { lines, breaks };
}

export function joinLines(lines: string[], breaks: string[]): string {
  return lines.map((line, i) => line + (breaks[i] ?? '')).join('');
}
