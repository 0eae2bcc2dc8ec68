import fs from 'node:fs/promises';
import type { ToolDefinition } from '../provider.ts';
import { SecretVeil } from '../secret-veil.ts';
import { Args, TOOL_LIMITS, ToolRefused, type RepoToolContext } from './context.ts';
import { READ_ONLY_TOOLS } from './definitions.ts';
import { listFiles } from './list-files.ts';
import { readFile } from './read-file.ts';
import { searchFiles } from './search.ts';
import { PathRefused } from '../../scm/work-tree.ts';

// The tools a model is given to read a checkout in a tool loop (tool-loop.ts): list_files, read_file and
// search, with paths kept inside the tree and credentials veiled. A run that only reads (the deep scan's
// discovery) takes createReadOnlyTools; the fix agent adds its write tools to READ_ONLY_HANDLERS over a
// context of its own (src/fixing/agent/tools.ts).

/** What a tool call returns to the model. An error is an answer too: the model reads it and tries again. */
export interface ToolOutcome {
  content: string;
  isError: boolean;
}

/** Answers one tool call from the run's context and the call's arguments; a ToolRefused or PathRefused goes back to the model. */
export type ToolHandler<C extends RepoToolContext = RepoToolContext> = (ctx: C, args: Args) => Promise<string>;

/** Each read-only tool (READ_ONLY_TOOLS) and the function that answers it. */
export const READ_ONLY_HANDLERS: Readonly<Record<string, ToolHandler>> = {
  list_files: listFiles,
  read_file: readFile,
  search: searchFiles,
};

export interface RepoToolsOptions {
  /** The work tree. */
  dir: string;
  /** The random boundary that delimits untrusted blocks in this run. */
  boundary: string;
  /** Stops a running search. */
  signal?: AbortSignal;
  searchTimeoutMs?: number;
}

export interface RepoTools {
  /** The tools as the model is offered them. */
  readonly definitions: readonly ToolDefinition[];
  /** Runs a tool; never throws: problems come back as an error outcome for the model. */
  call(name: string, input: unknown): Promise<ToolOutcome>;
}

/** What the tools of one run over the work tree share. */
export async function repoToolContext(options: RepoToolsOptions): Promise<RepoToolContext> {
  return {
    root: await fs.realpath(options.dir),
    boundary: options.boundary,
    veil: new SecretVeil(),
    signal: options.signal,
    searchTimeoutMs: options.searchTimeoutMs ?? TOOL_LIMITS.searchTimeoutMs,
  };
}

/** The read-only tools over one work tree: paths stay inside it, secrets stay hidden from the model. */
export async function createReadOnlyTools(options: RepoToolsOptions): Promise<RepoTools> {
  const ctx = await repoToolContext(options);
  return { definitions: READ_ONLY_TOOLS, call: (name, input) => callTool(ctx, READ_ONLY_HANDLERS, name, input) };
}

/** Runs one tool call with the given handlers and turns every problem into an error outcome the model can act on. */
export async function callTool<C extends RepoToolContext>(
  ctx: C,
  handlers: Readonly<Record<string, ToolHandler<C>>>,
  name: string,
  input: unknown,
): Promise<ToolOutcome> {
  const offered = Object.keys(handlers);
  const handler = offered.includes(name) ? handlers[name] : undefined;
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
