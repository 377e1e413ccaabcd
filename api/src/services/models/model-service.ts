import type { EmbeddingConfig, LlmConfig } from '@engram/db';
import { BadRequestError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { ProviderService } from '../providers/provider-service.js';
import type { ProviderConnection } from '../providers/types.js';
import { listProviderModelIds } from '../providers/provider-models.js';

/** What a model list is built from: one model id of one provider, as an llm_config or embedding_config. */
export type AvailableModel = { connection: ProviderConnection; llmConfig: LlmConfig };
export type AvailableEmbeddingModel = { connection: ProviderConnection; embeddingConfig: EmbeddingConfig };

/** A provider that could not be listed: it contributes no models, and the caller logs why. */
export type UnreachableProvider = { name: string; message: string };

export type ModelFilter = {
  providerCategories?: Array<'base' | 'byok'> | undefined;
  providerName?: string | undefined;
  providerType?: string | undefined;
};

export type LlmOverrides = { contextWindowLimit?: number | null | undefined; maxTokens?: number | null | undefined };

/** Above this, a model is capped like the reference server caps it (`global_max_context_window_limit`). */
const LARGE_CONTEXT_WINDOW = 128_000;
const DEFAULT_CONTEXT_WINDOW = 32_000;
const LARGE_CONTEXT_MODELS = [
  /^gpt-4o/, /^gpt-4\.1/, /^gpt-4-turbo/, /^gpt-5/, /^o[134](-|$)/, /^chatgpt-4o/, /^claude-/, /^gemini-/, /^grok-/, /^deepseek-/,
  // Bedrock's ids name the vendor first, with a cross-region prefix at times (`us.anthropic.claude-…`).
  /(^|\.)anthropic\.claude-/, /(^|\.)amazon\.nova-(pro|lite|premier)/, /(^|\.)meta\.llama3-[1-9]/, /(^|\.)mistral\.mistral-large/,
];

/** Providers do not report context windows in their model lists, so the window is known for common families only. */
export function defaultContextWindow(model: string): number {
  return LARGE_CONTEXT_MODELS.some((pattern) => pattern.test(model)) ? LARGE_CONTEXT_WINDOW : DEFAULT_CONTEXT_WINDOW;
}

const EMBEDDING_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
  'text-embedding-004': 768,
  'text-embedding-005': 768,
  'gemini-embedding-001': 3072,
  'amazon.titan-embed-text-v2:0': 1024,
  'amazon.titan-embed-text-v1': 1536,
  'cohere.embed-english-v3': 1024,
  'cohere.embed-multilingual-v3': 1024,
};
const DEFAULT_EMBEDDING_DIMENSION = 1536;
const EMBEDDING_CHUNK_SIZE = 300;
const EMBEDDING_BATCH_SIZE = 32;

/** OpenAI-compatible providers list chat and embedding models together; embedding ids say so. */
const isEmbeddingModel = (modelId: string) => modelId.includes('embed');

/** `openai/gpt-4o-mini` → provider `openai`, model `gpt-4o-mini` (model ids may themselves contain `/`). */
function splitHandle(handle: string): { providerName: string; model: string } | null {
  const slash = handle.indexOf('/');
  if (slash <= 0 || slash === handle.length - 1) return null;
  return { providerName: handle.slice(0, slash), model: handle.slice(slash + 1) };
}

export function llmConfigFor(connection: ProviderConnection, model: string, overrides: LlmOverrides = {}): LlmConfig {
  return {
    model,
    model_endpoint_type: connection.providerType,
    model_endpoint: connection.baseUrl,
    provider_name: connection.name,
    provider_category: connection.providerCategory,
    model_wrapper: null,
    handle: `${connection.name}/${model}`,
    context_window: overrides.contextWindowLimit ?? defaultContextWindow(model),
    temperature: 0.7,
    max_tokens: overrides.maxTokens ?? null,
    enable_reasoner: false,
    reasoning_effort: null,
    max_reasoning_tokens: 0,
    frequency_penalty: null,
    parallel_tool_calls: false,
    put_inner_thoughts_in_kwargs: false,
  };
}

export function embeddingConfigFor(connection: ProviderConnection, model: string): EmbeddingConfig {
  return {
    embedding_endpoint_type: connection.providerType,
    embedding_endpoint: connection.baseUrl,
    embedding_model: model,
    embedding_dim: EMBEDDING_DIMENSIONS[model] ?? DEFAULT_EMBEDDING_DIMENSION,
    embedding_chunk_size: EMBEDDING_CHUNK_SIZE,
    handle: `${connection.name}/${model}`,
    batch_size: EMBEDDING_BATCH_SIZE,
  };
}

export type ModelServiceDeps = { providers: Pick<ProviderService, 'connections' | 'connectionNamed'> };

export function createModelService(deps: ModelServiceDeps) {
  /** Lists every matching provider at once; one that fails or is slow only drops out of the result. */
  async function modelIdsByProvider(ctx: RequestContext, filter: ModelFilter) {
    const connections = await deps.providers.connections(ctx, {
      name: filter.providerName,
      providerType: filter.providerType,
      categories: filter.providerCategories,
    });
    const listed = await Promise.allSettled(connections.map((connection) => listProviderModelIds(connection)));
    const reachable: Array<{ connection: ProviderConnection; modelIds: string[] }> = [];
    const unreachable: UnreachableProvider[] = [];
    listed.forEach((result, index) => {
      const connection = connections[index]!;
      if (result.status === 'fulfilled') reachable.push({ connection, modelIds: result.value });
      else unreachable.push({ name: connection.name, message: result.reason instanceof Error ? result.reason.message : String(result.reason) });
    });
    return { reachable, unreachable };
  }

  async function connectionForHandle(ctx: RequestContext, handle: string) {
    const parts = splitHandle(handle);
    if (!parts) throw new BadRequestError(`Model handle '${handle}' must have the form provider/model-name`);
    const connection = await deps.providers.connectionNamed(ctx, parts.providerName);
    if (!connection) throw new BadRequestError(`Provider '${parts.providerName}' of handle '${handle}' is not configured`);
    return { connection, model: parts.model };
  }

  return {
    async listModels(ctx: RequestContext, filter: ModelFilter): Promise<{ models: AvailableModel[]; unreachable: UnreachableProvider[] }> {
      const { reachable, unreachable } = await modelIdsByProvider(ctx, filter);
      const models = reachable.flatMap(({ connection, modelIds }) =>
        modelIds.filter((id) => !isEmbeddingModel(id)).map((id) => ({ connection, llmConfig: llmConfigFor(connection, id) })),
      );
      return { models, unreachable };
    },

    async listEmbeddingModels(
      ctx: RequestContext,
    ): Promise<{ models: AvailableEmbeddingModel[]; unreachable: UnreachableProvider[] }> {
      const { reachable, unreachable } = await modelIdsByProvider(ctx, {});
      const models = reachable.flatMap(({ connection, modelIds }) =>
        modelIds.filter(isEmbeddingModel).map((id) => ({ connection, embeddingConfig: embeddingConfigFor(connection, id) })),
      );
      return { models, unreachable };
    },

    /**
     * The llm_config for a `provider/model` handle. The model is not checked against the provider's list:
     * a provider may be offline when an agent is created, and the first run reports a wrong model clearly.
     */
    async resolveLlmConfig(ctx: RequestContext, handle: string, overrides: LlmOverrides = {}): Promise<LlmConfig> {
      const { connection, model } = await connectionForHandle(ctx, handle);
      return llmConfigFor(connection, model, overrides);
    },

    async resolveEmbeddingConfig(ctx: RequestContext, handle: string): Promise<EmbeddingConfig> {
      const { connection, model } = await connectionForHandle(ctx, handle);
      return embeddingConfigFor(connection, model);
    },
  };
}

export type ModelService = ReturnType<typeof createModelService>;
