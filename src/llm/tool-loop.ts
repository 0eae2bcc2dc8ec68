import type { ModelProvider, ModelTurn, ToolDefinition, ToolResult, Usage } from './provider.ts';

// A conversation in which the model may call tools: it answers, its tool calls run, their results go
// back, until it answers without a tool call or the step limit is reached. The fix agent and the deep
// scan's discovery both run on it.

export interface ToolLoopOptions {
  system: string;
  task: string;
  tools: readonly ToolDefinition[];
  /** Runs one tool call; problems come back as an error outcome for the model, never as a throw. */
  call(name: string, input: unknown): Promise<{ content: string; isError: boolean }>;
  /** Model answers the loop may take. */
  maxSteps: number;
  signal: AbortSignal;
  /** Milliseconds the next request may take. */
  timeoutMs(): number;
  /** Runs before each request and each tool call, and throws to stop the loop (a deadline, a cancelled job). */
  check?(): void;
  /** Runs after each answer of the model is dealt with (its tool calls run): a heartbeat. */
  afterStep?(): Promise<void>;
  /** What a failed request becomes; it is rethrown as it is without this. */
  requestFailed?(error: unknown): Error;
}

export interface ToolLoopResult {
  /** The last answer's text: the model's conclusion, unless it ran out of steps or refused. */
  text: string;
  usage: Usage;
  steps: number;
  /** The model declined the task. */
  refused: boolean;
  /** The step limit was reached while the model was still calling tools. */
  outOfSteps: boolean;
}

export async function runToolLoop(provider: ModelProvider, options: ToolLoopOptions): Promise<ToolLoopResult> {
  const conversation = provider.start(options.system, options.task, options.tools);
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let steps = 0;
  while (true) {
    options.check?.();
    let turn: ModelTurn;
    try {
      turn = await conversation.next({ signal: options.signal, timeoutMs: options.timeoutMs() });
    } catch (error) {
      options.check?.();
      throw options.requestFailed ? options.requestFailed(error) : error;
    }
    steps++;
    usage.inputTokens += turn.usage.inputTokens;
    usage.outputTokens += turn.usage.outputTokens;
    if (turn.toolCalls.length === 0) {
      await options.afterStep?.();
      return { text: turn.text, usage, steps, refused: turn.refused, outOfSteps: false };
    }
    if (steps >= options.maxSteps) {
      await options.afterStep?.();
      return { text: turn.text, usage, steps, refused: false, outOfSteps: true };
    }
    const results: ToolResult[] = [];
    for (const call of turn.toolCalls) {
      options.check?.();
      const outcome = call.inputError !== undefined ? { content: `Error: ${call.inputError}`, isError: true } : await options.call(call.name, call.input);
      results.push({ callId: call.id, name: call.name, ...outcome });
    }
    options.check?.();
    conversation.addToolResults(results);
    await options.afterStep?.();
  }
}
