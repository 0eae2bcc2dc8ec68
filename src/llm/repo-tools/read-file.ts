import { untrustedBlock } from '../untrusted.ts';
import { existingFile, readText, splitLines, TOOL_LIMITS, ToolRefused, type Args, type RepoToolContext } from './context.ts';

/** `read_file`: a file's lines, numbered, in windows the model can page through. */
export async function readFile(ctx: RepoToolContext, args: Args): Promise<string> {
  const file = await existingFile(ctx, args.string('path'));
  const lines = splitLines(ctx.veil.hide(await readText(ctx, file)));
  const start = args.optionalInteger('start_line') ?? 1;
  const requestedEnd = args.optionalInteger('end_line');
  if (requestedEnd !== undefined && requestedEnd < start) throw new ToolRefused('end_line must not be smaller than start_line');
  if (lines.length === 0) return untrustedBlock('file', { path: file.rel, total_lines: 0 }, '(empty file)', ctx.boundary);
  if (start > lines.length) throw new ToolRefused(`"${file.rel}" has ${lines.length} lines; start_line ${start} is past its end`);
  const { shown, end } = numberedWindow(lines, start, requestedEnd);
  const block = untrustedBlock('file', { path: file.rel, lines: `${start}-${end}`, total_lines: lines.length }, shown.join('\n'), ctx.boundary);
  return end < lines.length ? `${block}\nLines ${end + 1}-${lines.length} not shown; call read_file with start_line ${end + 1} to continue.` : block;
}

/**
 * Lines `start`..`requestedEnd` (1-based) prefixed with their numbers, within the per-call line and
 * character limits; very long lines are cut. `end` is the last line shown.
 */
export function numberedWindow(lines: string[], start: number, requestedEnd?: number): { shown: string[]; end: number } {
  let end = Math.min(requestedEnd ?? start + TOOL_LIMITS.readLines - 1, lines.length, start + TOOL_LIMITS.readLines - 1);
  const width = String(end).length;
  const shown: string[] = [];
  let chars = 0;
  for (let n = start; n <= end; n++) {
    let line = lines[n - 1];
    if (line.length > TOOL_LIMITS.lineChars) line = `${line.slice(0, TOOL_LIMITS.lineChars)}… [${line.length - TOOL_LIMITS.lineChars} more characters on this line]`;
    chars += line.length + width + 2;
    if (chars > TOOL_LIMITS.readChars && shown.length > 0) {
      end = n - 1;
      break;
    }
    shown.push(`${String(n).padStart(width)}\t${line}`);
  }
  return { shown, end };
}
