// The model providers both the fix agent and the deep scan talk to: one conversation API over the Chat
// Completions API (OpenAI and compatible servers) and Anthropic's Messages API, with their errors made
// safe to show (no API key, the provider's own reason). create-provider.ts makes the configured one.

/** A tool as both APIs describe it: a name, what it does, and a JSON schema of its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** Tokens one answer took. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/** A provider's failure, with a message safe to show: the HTTP status and the provider's reason, never the key. */
export class ProviderError extends Error {}

export interface AdapterOptions {
  /** Retries of a failed request (connection errors, 408, 409, 429, 5xx) within the SDK. Default 2. */
  maxRetries?: number;
}

/** A tool call as the model made it, whatever the API. */
export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
  /** Why the arguments could not be read (e.g. invalid JSON); the call is then answered with this error. */
  inputError?: string;
}

/** One answer of the model. */
export interface ModelTurn {
  text: string;
  toolCalls: ToolCall[];
  usage: Usage;
  /** The model declined the task (a refusal stop, not an answer). */
  refused: boolean;
}

export interface ToolResult {
  callId: string;
  name: string;
  content: string;
  isError: boolean;
}

export interface RequestControl {
  signal: AbortSignal;
  /** Milliseconds this request may take, retries included. */
  timeoutMs: number;
}

/** One run's message history in an API's own format. */
export interface Conversation {
  /** Sends the history to the model and appends its answer to the history. */
  next(control: RequestControl): Promise<ModelTurn>;
  /** Appends the results of the last answer's tool calls, in the order of the calls. */
  addToolResults(results: ToolResult[]): void;
}

/** Translates between a conversation and one API; its errors are ProviderErrors, safe to show. */
export interface ModelProvider {
  start(system: string, task: string, tools: readonly ToolDefinition[]): Conversation;
}
