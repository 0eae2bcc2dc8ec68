import fs from 'node:fs/promises';
import { SecretVeil } from '../../llm/secret-veil.ts';
import { Args, TOOL_LIMITS, ToolRefused, type ToolContext } from './tools/context.ts';
import { AGENT_TOOLS, type ToolDefinition } from './tools/definitions.ts';
import { editFile } from './tools/edit-file.ts';
import { listFiles } from './tools/list-files.ts';
import { readFile } from './tools/read-file.ts';
import { rescan } from './tools/rescan.ts';
import { searchFiles } from './tools/search.ts';
import { PathRefused } from './tree-paths.ts';

export { AGENT_TOOLS, TOOL_LIMITS, type ToolDefinition };

/** What a tool call returns to the model. An error is an answer too: the model reads it and tries again. */
export interface ToolOutcome {
  content: string;
  isError: boolean;
}

/** The tools that only read the tree: what a review of code is given. */
export const READ_ONLY_TOOLS: readonly ToolDefinition[] = AGENT_TOOLS.filter((t) => ['list_files', 'read_file', 'search'].includes(t.name));

export interface AgentToolsOptions {
  /** The work tree. */
  dir: string;
  /** Absent for a run that only reads (READ_ONLY_TOOLS): then neither edit_file nor rescan can be called. */
  rescan?(files: string[]): Promise<string>;
  /** The random boundary that delimits untrusted blocks in this run. */
  boundary: string;
  /** Stops a running search. */
  signal?: AbortSignal;
  searchTimeoutMs?: number;
}

export interface AgentTools {
  /** Repository-relative POSIX paths the tools wrote, sorted. */
  readonly changedFiles: string[];
  /** Runs a tool; never throws: problems come back as an error outcome for the model. */
  call(name: string, input: unknown): Promise<ToolOutcome>;
}

type ToolHandler = (ctx: ToolContext, args: Args) => Promise<string>;

/** Each tool the model is offered (AGENT_TOOLS) and the function that answers it. */
const HANDLERS: Record<string, ToolHandler> = {
  list_files: listFiles,
  read_file: readFile,
  search: searchFiles,
  edit_file: editFile,
  rescan,
};

/** The agent's tools over one work tree: paths stay inside it, secrets stay hidden from the model. */
export async function createAgentTools(options: AgentToolsOptions): Promise<AgentTools> {
  const ctx: ToolContext = {
    root: await fs.realpath(options.dir),
    boundary: options.boundary,
    veil: new SecretVeil(),
    changed: new Set(),
    signal: options.signal,
    searchTimeoutMs: options.searchTimeoutMs ?? TOOL_LIMITS.searchTimeoutMs,
    rescan: (files) => (options.rescan ? options.rescan(files) : Promise.reject(new ToolRefused('rescan is not available here'))),
    allowed: options.rescan ? undefined : new Set(READ_ONLY_TOOLS.map((t) => t.name)),
  };
  return {
    get changedFiles() {
      return [...ctx.changed].sort();
    },
    call: (name, input) => callTool(ctx, name, input),
  };
}

/** Runs one tool call and turns every problem into an error outcome the model can act on. */
export async function callTool(ctx: ToolContext, name: string, input: unknown): Promise<ToolOutcome> {
  const offered = Object.keys(HANDLERS).filter((tool) => !ctx.allowed || ctx.allowed.has(tool));
  const handler = offered.includes(name) ? HANDLERS[name] : undefined;
  if (!handler) return { content: `Error: there is no tool named "${name}"; the tools are ${offered.join(', ')}.`, isError: true };
  try {
    const content = await handler(ctx, new Args(name, input));
    return { content: bound(content), isError: false };
  } catch (err) {
    const message =
      err instanceof ToolRefused || err instanceof PathRefused
        ? err.message
        : `${name} failed: ${(err instanceof Error ? err.message : String(err)).split(ctx.root).join('.')}`;
    return { content: `Error: ${message}`, isError: true };
  }
}

/** A tool's answer cut to the size the model is given. */
function bound(content: string): string {
  if (content.length <= TOOL_LIMITS.resultChars) return content;
  return `${content.slice(0, TOOL_LIMITS.resultChars)}\n[output cut at ${TOOL_LIMITS.resultChars} characters]`;
}
