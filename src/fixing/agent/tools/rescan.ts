import { untrustedBlock } from '../prompt.ts';
import { existingFile, ToolRefused, type Args, type ToolContext } from './context.ts';

/** `rescan`: the originating scanners run again on the named files (the caller's `rescan`). */
export async function rescan(ctx: ToolContext, args: Args): Promise<string> {
  const raw = args.stringArray('paths');
  if (raw.length === 0) throw new ToolRefused('paths must list at least one file');
  const files: string[] = [];
  for (const item of raw) {
    const file = await existingFile(ctx, item);
    if (!files.includes(file.rel)) files.push(file.rel);
  }
  let report: string;
  try {
    report = await ctx.rescan(files);
  } catch (err) {
    throw new ToolRefused(`the rescan failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  return untrustedBlock('rescan', { files: files.join(', ') }, report.trim() || '(no output)', ctx.boundary);
}
