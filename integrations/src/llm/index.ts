export { createModelClient } from './client.js';
export type { CompleteOptions, ModelClient, ModelClientProvider } from './types.js';
export { classifyProviderError, ModelCallError } from './errors.js';
export { BASE_PROVIDER_ENV, parseBaseProviders, type BaseProviderConfig } from './provider-config.js';
export { resolveProviderForModel } from './resolve.js';
export { providerFor } from './provider-for.js';
export { createEmbeddingClient, type EmbeddingClient } from './embeddings.js';
