import { randomBytes } from 'node:crypto';
import type { AgentRunInput, AgentRunResult } from '../types.ts';
import { FixError } from '../types.ts';
import { ProviderError, type ModelProvider } from '../../llm/provider.ts';
import { runToolLoop } from '../../llm/tool-loop.ts';
import { SYSTEM_PROMPT, taskMessage } from './prompt.ts';
import { AGENT_TOOLS, createAgentTools } from './tools.ts';

export interface LoopLimits {
  maxSteps: number;
  timeoutSeconds: number;
  /** For tests: how long one search may run. */
  searchTimeoutMs?: number;
}

/**
 * The tool loop: the model answers, its tool calls run against the work tree, their results go back, until it
 * answers without a tool call (that text is the summary) or a limit is hit. Each model answer is one step and
 * is followed by `workspace.step()`, the fix's heartbeat, whose errors (a cancelled fix) propagate. An abort of
 * `workspace.signal` rejects with the signal's reason; the step and time limits with a FixError.
 */
export async function runAgentLoop(provider: ModelProvider, limits: LoopLimits, input: AgentRunInput): Promise<AgentRunResult> {
  const { workspace } = input;
  workspace.signal.throwIfAborted();
  const timeoutMs = limits.timeoutSeconds * 1000;
  const startedAt = Date.now();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const signal = AbortSignal.any([workspace.signal, deadline.signal]);
  const stopIfOver = () => {
    workspace.signal.throwIfAborted();
    if (deadline.signal.aborted) {
      throw new FixError(`the agent did not finish within ${limits.timeoutSeconds} second${limits.timeoutSeconds === 1 ? '' : 's'}`);
    }
  };

  try {
    const boundary = randomBytes(8).toString('hex');
    const tools = await createAgentTools({
      dir: workspace.dir,
      rescan: input.rescan,
      boundary,
      signal,
      searchTimeoutMs: limits.searchTimeoutMs,
    });
    const result = await runToolLoop(provider, {
      system: SYSTEM_PROMPT,
      task: taskMessage(input.findings, input.instructions, boundary),
      tools: AGENT_TOOLS,
      call: (name, args) => tools.call(name, args),
      maxSteps: limits.maxSteps,
      signal,
      // A little past the deadline, so that the run's own timer, not the SDK's, ends a slow request.
      timeoutMs: () => Math.max(1, timeoutMs - (Date.now() - startedAt)) + 1000,
      check: stopIfOver,
      afterStep: () => workspace.step(),
      requestFailed: (err) => (err instanceof ProviderError ? new FixError(err.message) : err instanceof FixError ? err : new FixError('the model request failed')),
    });
    if (result.outOfSteps) throw new FixError(`the agent did not finish within ${limits.maxSteps} step${limits.maxSteps === 1 ? '' : 's'}`);
    if (result.refused) throw new FixError('the model declined to make this fix');
    return { changedFiles: tools.changedFiles, summary: result.text.trim(), usage: result.usage, steps: result.steps };
  } finally {
    clearTimeout(timer);
  }
}
