import type { ToolDefinition } from '../../../llm/provider.ts';
import { existingFile, ToolRefused, type Args, type RepoToolContext } from '../../../llm/repo-tools/context.ts';
import { untrustedBlock } from '../prompt.ts';

/** What rescan works with: the run's repository tool context and the caller's rescan. */
export interface RescanContext extends RepoToolContext {
  rescan(files: string[]): Promise<string>;
}

export const RESCAN_TOOL: ToolDefinition = {
  name: 'rescan',
  description:
    'Runs the scanners that reported the findings again on the given files and says what they still find there. ' +
    'Use it after editing to check that the findings are gone.',
  parameters: {
    type: 'object',
    properties: {
      paths: {
        type: 'array',
        items: { type: 'string' },
        minItems: 1,
        description: 'Files to rescan, relative to the repository root: the files you changed.',
      },
    },
    required: ['paths'],
    additionalProperties: false,
  },
};

/** `rescan`: the originating scanners run again on the named files (the caller's `rescan`). */
export async function rescan(ctx: RescanContext, args: Args): Promise<string> {
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
