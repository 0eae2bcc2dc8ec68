import { randomBytes } from 'node:crypto';
import type { AgentRunInput, AgentRunResult, AgentUsage } from '../types.ts';
import { FixError } from '../types.ts';
import { ProviderError, type ModelProvider, type ModelTurn, type ToolResult } from '../../llm/provider.ts';
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
    const conversation = provider.start(SYSTEM_PROMPT, taskMessage(input.findings, input.instructions, boundary), AGENT_TOOLS);
    const usage: AgentUsage = { inputTokens: 0, outputTokens: 0 };
    let steps = 0;

    while (true) {
      stopIfOver();
      let turn: ModelTurn;
      try {
        // A little past the deadline, so that the run's own timer, not the SDK's, ends a slow request.
        turn = await conversation.next({ signal, timeoutMs: Math.max(1, timeoutMs - (Date.now() - startedAt)) + 1000 });
      } catch (err) {
        stopIfOver();
        if (err instanceof ProviderError) throw new FixError(err.message);
        throw err instanceof FixError ? err : new FixError('the model request failed');
      }
      steps++;
      usage.inputTokens += turn.usage.inputTokens;
      usage.outputTokens += turn.usage.outputTokens;

      if (turn.toolCalls.length === 0) {
        await workspace.step();
        if (turn.refused) throw new FixError('the model declined to make this fix');
        return { changedFiles: tools.changedFiles, summary: turn.text.trim(), usage, steps };
      }
      if (steps >= limits.maxSteps) {
        await workspace.step();
        throw new FixError(`the agent did not finish within ${limits.maxSteps} step${limits.maxSteps === 1 ? '' : 's'}`);
      }

      const results: ToolResult[] = [];
      for (const call of turn.toolCalls) {
        stopIfOver();
        const outcome = call.inputError !== undefined
          ? { content: `Error: ${call.inputError}`, isError: true }
          : await tools.call(call.name, call.input);
        results.push({ callId: call.id, name: call.name, ...outcome });
      }
      stopIfOver();
      conversation.addToolResults(results);
      await workspace.step();
    }
  } finally {
    clearTimeout(timer);
  }
}
