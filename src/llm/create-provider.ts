import type { LlmSettings } from '../config.ts';
import type { AdapterOptions, ModelProvider } from './provider.ts';

/** The configured provider; its SDK is loaded on first use, as it costs every process tens of megabytes. */
export async function createProvider(settings: LlmSettings, options: AdapterOptions = {}): Promise<ModelProvider> {
  return settings.provider === 'anthropic'
    ? (await import('./anthropic.ts')).anthropicProvider(settings, options)
    : (await import('./openai.ts')).openAiProvider(settings, options);
}
