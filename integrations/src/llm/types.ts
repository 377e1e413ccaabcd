// What a model client is: the adapters implement it and `createModelClient` (client.ts) picks one.
import type { ModelDelta, ModelRequest, ModelTurn } from '@engram/core';

export type CompleteOptions = { signal?: AbortSignal; onDelta?: (delta: ModelDelta) => void };

export type ModelClient = {
  /** One model call; streams fragments to `onDelta` when `request.stream`. Throws ModelCallError on provider failure. */
  complete(request: ModelRequest, options: CompleteOptions): Promise<ModelTurn>;
  /** The model ids the provider serves. */
  listModels(): Promise<string[]>;
};

export type ModelClientProvider = { providerType: string; apiKey: string | null; baseUrl: string };
