import type { AvailableEmbeddingModel, AvailableModel } from './model-service.js';
import type { EmbeddingConfigWire, EmbeddingModelWire, LlmConfigWire, ModelWire } from '../../contracts/v1/models.js';
import type { ProviderConnection } from '../providers/types.js';

/** Base providers come from the operator's configuration, the others from the provider routes' enum: both are provider types. */
const providerTypeOf = (connection: ProviderConnection) => connection.providerType as ModelWire['provider_type'];

/** The wire `Model`: an llm_config ready to use, plus who serves it. */
export function modelToWire({ connection, llmConfig }: AvailableModel): ModelWire {
  return {
    // Built by llmConfigFor from a provider connection, in this very shape.
    ...(llmConfig as LlmConfigWire),
    handle: llmConfig.handle ?? null,
    name: llmConfig.model,
    display_name: llmConfig.model,
    provider_name: connection.name,
    provider_type: providerTypeOf(connection),
    provider_category: connection.providerCategory,
    max_context_window: llmConfig.context_window,
    model_type: 'llm' as const,
  };
}

/** The wire `EmbeddingModel`: an embedding_config ready to use, plus who serves it. */
export function embeddingModelToWire({ connection, embeddingConfig }: AvailableEmbeddingModel): EmbeddingModelWire {
  return {
    ...(embeddingConfig as EmbeddingConfigWire),
    handle: embeddingConfig.handle ?? null,
    name: embeddingConfig.embedding_model,
    display_name: embeddingConfig.embedding_model,
    provider_name: connection.name,
    provider_type: providerTypeOf(connection),
    provider_category: connection.providerCategory,
    model_type: 'embedding' as const,
  };
}
