// What a model client is: the adapters implement it and `createModelClient` (client.ts) picks one.
import type { ModelDelta, ModelRequest, ModelTurn } from '@engram/core';

export type CompleteOptions = { signal?: AbortSignal; onDelta?: (delta: ModelDelta) => void };

export type ModelClient = {
  /** One model call; streams fragments to `onDelta` when `request.stream`. Throws ModelCallError on provider failure. */
  complete(request: ModelRequest, options: CompleteOptions): Promise<ModelTurn>;
  /** The model ids the provider serves. */
  listModels(): Promise<string[]>;
};

/**
 * Where a model client calls and with which key. `fetch` is the egress policy's for a provider an organization
 * configured (BYOK); the operator's base providers are trusted and use the global fetch.
 */
export type ModelClientProvider = { providerType: string; apiKey: string | null; baseUrl: string; fetch?: typeof fetch };
