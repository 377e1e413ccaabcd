import { createAnthropicModelClient } from './anthropic-client.js';
import { createOpenAiModelClient } from './openai-client.js';
import type { ModelClient, ModelClientProvider } from './types.js';

export type { CompleteOptions, ModelClient, ModelClientProvider } from './types.js';

/** Anthropic has its own API; every other provider type speaks OpenAI's Chat Completions API. */
export function createModelClient(provider: ModelClientProvider): ModelClient {
  return provider.providerType === 'anthropic' ? createAnthropicModelClient(provider) : createOpenAiModelClient(provider);
}
