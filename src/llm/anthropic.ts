import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { ContentBlockParam, MessageParam, Tool, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { LlmSettings } from '../config.ts';
import { ProviderError, type AdapterOptions, type Conversation, type ModelProvider, type ModelTurn, type ToolCall, type ToolDefinition, type ToolResult } from './provider.ts';
import { describeEndpoint, providerFailure, type ProviderContext } from './provider-errors.ts';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** Output tokens one answer may take: enough for an edit_file call carrying a whole new function. */
const MAX_TOKENS = 8192;

/** A client that authenticates with the configured key only, never with profiles or credentials found on the host. */
class ConfiguredAnthropic extends Anthropic {
  protected override _shouldResolveDefaultCredentials(): boolean {
    return false;
  }
}

/**
 * The Messages API: `tools` with `input_schema`, tool calls as `tool_use` content blocks, results as
 * `tool_result` blocks in the next user message.
 */
export function anthropicProvider(settings: LlmSettings, options: AdapterOptions = {}): ModelProvider {
  const baseURL = settings.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL;
  const client = new ConfiguredAnthropic({
    baseURL,
    // Only the configured key: no ANTHROPIC_* variables from the environment. Without a key (a local
    // gateway that needs none), no Authorization header.
    apiKey: settings.apiKey,
    authToken: null,
    defaultHeaders: settings.apiKey ? undefined : { Authorization: null },
    maxRetries: options.maxRetries ?? 2,
    timeout: settings.timeoutSeconds * 1000,
  });
  const context: ProviderContext = {
    label: `the Anthropic API at ${describeEndpoint(baseURL)}`,
    apiKey: settings.apiKey,
    classes: { APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError },
  };

  return {
    start(system: string, task: string, tools: readonly ToolDefinition[]): Conversation {
      const messages: MessageParam[] = [{ role: 'user', content: task }];
      const toolParams: Tool[] = tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.parameters as Tool['input_schema'],
      }));

      return {
        async next(control): Promise<ModelTurn> {
          let response;
          try {
            response = await client.messages.create(
              { model: settings.model, max_tokens: MAX_TOKENS, system, tools: toolParams, messages },
              { signal: control.signal, timeout: control.timeoutMs },
            );
          } catch (err) {
            throw providerFailure(err, context);
          }
          const content = Array.isArray(response?.content) ? response.content : [];
          const toolCalls: ToolCall[] = [];
          const texts: string[] = [];
          for (const block of content) {
            if (block.type === 'text') texts.push(block.text);
            else if (block.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, input: block.input ?? {} });
          }
          // The answer goes back as it came: tool_use ids must match, thinking blocks keep their signatures.
          messages.push({ role: 'assistant', content: content as unknown as ContentBlockParam[] });
          const usage = response.usage;
          return {
            text: texts.join('\n'),
            toolCalls,
            usage: {
              // Cached prompt tokens are input too; a gateway may cache without being asked.
              inputTokens: (usage?.input_tokens ?? 0) + (usage?.cache_creation_input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0),
              outputTokens: usage?.output_tokens ?? 0,
            },
            refused: response.stop_reason === 'refusal' && toolCalls.length === 0,
          };
        },
        addToolResults(results: ToolResult[]) {
          const blocks: ToolResultBlockParam[] = results.map((result) => ({
            type: 'tool_result',
            tool_use_id: result.callId,
            content: result.content,
            ...(result.isError ? { is_error: true } : {}),
          }));
          messages.push({ role: 'user', content: blocks });
        },
      };
    },
  };
}
