import type { AvailableEmbeddingModel, AvailableModel } from './model-service.js';

/** The wire `Model`: an llm_config ready to use, plus who serves it. */
export function modelToWire({ connection, llmConfig }: AvailableModel) {
  return {
    ...llmConfig,
    handle: llmConfig.handle ?? null,
    name: llmConfig.model,
    display_name: llmConfig.model,
    provider_name: connection.name,
    provider_type: connection.providerType,
    provider_category: connection.providerCategory,
    max_context_window: llmConfig.context_window,
    model_type: 'llm' as const,
  };
}

/** The wire `EmbeddingModel`: an embedding_config ready to use, plus who serves it. */
export function embeddingModelToWire({ connection, embeddingConfig }: AvailableEmbeddingModel) {
  return {
    ...embeddingConfig,
    handle: embeddingConfig.handle ?? null,
    name: embeddingConfig.embedding_model,
    display_name: embeddingConfig.embedding_model,
    provider_name: connection.name,
    provider_type: connection.providerType,
    provider_category: connection.providerCategory,
    model_type: 'embedding' as const,
  };
}
