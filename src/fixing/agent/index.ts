import type { LlmSettings } from '../../config.ts';
import type { FixAgent } from '../types.ts';
import { createProvider } from '../../llm/create-provider.ts';
import type { AdapterOptions, ModelProvider } from '../../llm/provider.ts';
import { runAgentLoop } from './agent-loop.ts';

export { AGENT_TOOLS, createAgentTools, type AgentTools } from './tools.ts';
export { SYSTEM_PROMPT, taskMessage } from './prompt.ts';

export interface FixAgentOptions extends AdapterOptions {
  /** How long one search tool call may run. Default 10 seconds. */
  searchTimeoutMs?: number;
}

/**
 * The LLM fix agent for the configured provider: a bounded tool loop over the work tree (list, read, search,
 * edit, rescan), limited by `maxSteps` model answers and `timeoutSeconds` of wall clock.
 */
export function createFixAgent(settings: LlmSettings, options: FixAgentOptions = {}): FixAgent {
  let provider: Promise<ModelProvider> | undefined;
  // The provider's SDK is loaded by the first fix the agent runs.
  const loadProvider = (): Promise<ModelProvider> => createProvider(settings, options);
  const limits = { maxSteps: settings.maxSteps, timeoutSeconds: settings.timeoutSeconds, searchTimeoutMs: options.searchTimeoutMs };
  return {
    run: async (input) => runAgentLoop(await (provider ??= loadProvider()), limits, input),
  };
}
