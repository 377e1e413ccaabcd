export { createModelClient, type CompleteOptions, type ModelClient, type ModelClientProvider } from './client.js';
export { classifyProviderError, ModelCallError } from './errors.js';
export { BASE_PROVIDER_ENV, parseBaseProviders, type BaseProviderConfig } from './provider-config.js';
export { resolveProviderForModel } from './resolve.js';
export { createEmbeddingClient, type EmbeddingClient } from './embeddings.js';
