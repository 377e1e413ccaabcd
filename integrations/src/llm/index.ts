export { createModelClient } from './client.js';
export type { CompleteOptions, ModelClient, ModelClientProvider } from './types.js';
export { classifyProviderError, ModelCallError, retryHintOf } from './errors.js';
export { BASE_PROVIDER_ENV, baseUrlFor, CLOUD_PROVIDER_ENV, DOCUMENTED_BASE_URLS, parseBaseProviders, type BaseProviderConfig } from './provider-config.js';
export { resolveProviderForModel } from './resolve.js';
export { clientProviderOfRow, providerFor } from './provider-for.js';
export { createEmbeddingClient, type EmbeddingClient } from './embeddings.js';
