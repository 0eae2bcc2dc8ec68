import type { ToolDefinition } from '../../llm/provider.ts';
import { READ_ONLY_TOOLS } from '../../llm/repo-tools/definitions.ts';
import { callTool, READ_ONLY_HANDLERS, repoToolContext, type RepoToolsOptions, type ToolHandler, type ToolOutcome } from '../../llm/repo-tools/index.ts';
import { EDIT_FILE_TOOL, editFile, type EditContext } from './tools/edit-file.ts';
import { RESCAN_TOOL, rescan, type RescanContext } from './tools/rescan.ts';

// The fix agent's tools: the read-only repository tools (src/llm/repo-tools/) and its own write tools,
// edit_file and rescan, over one context.

/** Every tool the fix agent is offered: the read-only ones, then the write tools. */
export const AGENT_TOOLS: readonly ToolDefinition[] = [...READ_ONLY_TOOLS, EDIT_FILE_TOOL, RESCAN_TOOL];

export interface AgentToolsOptions extends RepoToolsOptions {
  /** Runs the originating scanners again on the given files: what the rescan tool answers. */
  rescan(files: string[]): Promise<string>;
}

export interface AgentTools {
  /** Repository-relative POSIX paths the tools wrote, sorted. */
  readonly changedFiles: string[];
  /** Runs a tool; never throws: problems come back as an error outcome for the model. */
  call(name: string, input: unknown): Promise<ToolOutcome>;
}

type AgentToolContext = EditContext & RescanContext;

/** Each tool the model is offered (AGENT_TOOLS) and the function that answers it. */
const HANDLERS: Readonly<Record<string, ToolHandler<AgentToolContext>>> = {
  ...READ_ONLY_HANDLERS,
  edit_file: editFile,
  rescan,
};

/** The agent's tools over one work tree: paths stay inside it, secrets stay hidden from the model. */
export async function createAgentTools(options: AgentToolsOptions): Promise<AgentTools> {
  const ctx: AgentToolContext = {
    ...(await repoToolContext(options)),
    changed: new Set(),
    rescan: (files) => options.rescan(files),
  };
  return {
    get changedFiles() {
      return [...ctx.changed].sort();
    },
    call: (name, input) => callTool(ctx, HANDLERS, name, input),
  };
}
