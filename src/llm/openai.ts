import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletionAssistantMessageParam, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { LlmSettings } from '../config.ts';
import { ProviderError, type AdapterOptions, type Conversation, type ModelProvider, type ModelTurn, type ToolCall, type ToolDefinition, type ToolResult } from './provider.ts';
import { describeEndpoint, providerFailure, type ProviderContext } from './provider-errors.ts';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * The Chat Completions API (OpenAI, vLLM, Ollama, LiteLLM, DeepSeek, Moonshot…): `tools` as functions,
 * tool calls in the assistant message's `tool_calls`, results as `role: "tool"` messages.
 */
export function openAiProvider(settings: LlmSettings, options: AdapterOptions = {}): ModelProvider {
  const baseURL = settings.baseUrl ?? OPENAI_DEFAULT_BASE_URL;
  const client = new OpenAI({
    baseURL,
    // Only the configured key: no OPENAI_* variables from the environment. A local server without
    // authentication (Ollama, vLLM) gets no Authorization header: the SDK insists on some key, and the
    // null default header removes the one it would send.
    apiKey: settings.apiKey ?? 'no-key-configured',
    adminAPIKey: null,
    organization: null,
    project: null,
    defaultHeaders: settings.apiKey ? undefined : { Authorization: null },
    maxRetries: options.maxRetries ?? 2,
    timeout: settings.timeoutSeconds * 1000,
  });
  const context: ProviderContext = {
    label: `the OpenAI-compatible API at ${describeEndpoint(baseURL)}`,
    apiKey: settings.apiKey,
    classes: { APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError },
  };

  return {
    start(system: string, task: string, tools: readonly ToolDefinition[]): Conversation {
      const messages: ChatCompletionMessageParam[] = [
        { role: 'system', content: system },
        { role: 'user', content: task },
      ];
      const toolParams: ChatCompletionTool[] = tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }));
      let callCount = 0;

      return {
        async next(control): Promise<ModelTurn> {
          let completion;
          try {
            completion = await client.chat.completions.create(
              { model: settings.model, messages, tools: toolParams },
              { signal: control.signal, timeout: control.timeoutMs },
            );
          } catch (err) {
            throw providerFailure(err, context);
          }
          const choice = completion?.choices?.[0];
          if (!choice?.message) throw new ProviderError(`${context.label} sent an answer without a message`);
          const message = choice.message;
          const toolCalls: ToolCall[] = [];
          for (const call of message.tool_calls ?? []) {
            const id = call.id || `call_${++callCount}`;
            if (call.type === 'function' || (call as { function?: unknown }).function) {
              const fn = (call as { function: { name: string; arguments?: string } }).function;
              toolCalls.push({ id, name: fn.name, ...parseArguments(fn.arguments) });
            } else {
              toolCalls.push({ id, name: String((call as { custom?: { name?: string } }).custom?.name ?? call.type), input: null, inputError: 'only function tools are available' });
            }
          }
          if (toolCalls.length > 0) {
            const assistant: ChatCompletionAssistantMessageParam & { reasoning_content?: string } = {
              role: 'assistant',
              content: message.content ?? null,
              tool_calls: toolCalls.map((call, i) => ({
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: rawArguments(message.tool_calls?.[i]) },
              })),
            };
            // DeepSeek and Moonshot thinking models need their reasoning back with the tool calls it led to.
            const reasoning = (message as { reasoning_content?: unknown }).reasoning_content;
            if (typeof reasoning === 'string') assistant.reasoning_content = reasoning;
            messages.push(assistant);
          }
          return {
            text: message.content ?? '',
            toolCalls,
            usage: { inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 },
            refused: toolCalls.length === 0 && !message.content && !!message.refusal,
          };
        },
        addToolResults(results: ToolResult[]) {
          for (const result of results) messages.push({ role: 'tool', tool_call_id: result.callId, content: result.content });
        },
      };
    },
  };
}

function parseArguments(raw: string | undefined): { input: unknown; inputError?: string } {
  if (raw === undefined || raw.trim() === '') return { input: {} };
  try {
    return { input: JSON.parse(raw) };
  } catch {
    return { input: null, inputError: 'the arguments were not valid JSON; call the tool again with a JSON object' };
  }
}

function rawArguments(call: unknown): string {
  const raw = (call as { function?: { arguments?: unknown } } | undefined)?.function?.arguments;
  return typeof raw === 'string' && raw !== '' ? raw : '{}';
}
