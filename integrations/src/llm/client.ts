import type { ModelDelta, ModelRequest, ModelTurn } from '@engram/core';
import { createAnthropicModelClient } from './anthropic-client.js';
import { createOpenAiModelClient } from './openai-client.js';

export type CompleteOptions = { signal?: AbortSignal; onDelta?: (delta: ModelDelta) => void };

export type ModelClient = {
  /** One model call; streams fragments to `onDelta` when `request.stream`. Throws ModelCallError on provider failure. */
  complete(request: ModelRequest, options: CompleteOptions): Promise<ModelTurn>;
  /** The model ids the provider serves. */
  listModels(): Promise<string[]>;
};

export type ModelClientProvider = { providerType: string; apiKey: string | null; baseUrl: string };

/** Anthropic has its own API; every other provider type speaks OpenAI's Chat Completions API. */
export function createModelClient(provider: ModelClientProvider): ModelClient {
  return provider.providerType === 'anthropic' ? createAnthropicModelClient(provider) : createOpenAiModelClient(provider);
}
