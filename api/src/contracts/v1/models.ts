import { z } from 'zod';

/** The provider types of the public API (`ProviderType`). */
const PROVIDER_TYPES = [
  'anthropic', 'azure', 'baseten', 'bedrock', 'cerebras', 'chatgpt_oauth', 'deepseek', 'fireworks', 'google_ai',
  'google_vertex', 'groq', 'hugging-face', 'letta', 'lmstudio_openai', 'minimax', 'moonshot', 'moonshot_coding',
  'mistral', 'ollama', 'openai', 'together', 'vllm', 'sglang', 'openrouter', 'xai', 'zai', 'zai_coding',
] as const;

export const ProviderType = z.enum(PROVIDER_TYPES);

export const ProviderCategory = z.enum(['base', 'byok']);

const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;

/**
 * The three response formats an agent (or an llm_config) may ask of its model. `json_schema` carries the
 * schema itself, so it is open-ended.
 */
export const ResponseFormat = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_schema'), json_schema: z.record(z.string(), z.unknown()) }),
  z.looseObject({ type: z.literal('json_object') }),
]);

/**
 * The fields of an llm_config, as requests give it and responses show it. The endpoint type is the type of
 * the provider that serves the model, so it may be a provider type the client's own list of endpoint types
 * lacks (cerebras, letta, lmstudio_openai, sglang).
 */
export const llmConfigFields = {
  model: z.string(),
  model_endpoint_type: z.string(),
  context_window: z.number().int(),
  model_endpoint: z.string().nullish(),
  provider_name: z.string().nullish(),
  provider_category: ProviderCategory.nullish(),
  model_wrapper: z.string().nullish(),
  handle: z.string().nullish(),
  temperature: z.number().optional(),
  max_tokens: z.number().int().nullish(),
  enable_reasoner: z.boolean().optional(),
  reasoning_effort: z.enum(REASONING_EFFORTS).nullish(),
  max_reasoning_tokens: z.number().int().optional(),
  frequency_penalty: z.number().nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  put_inner_thoughts_in_kwargs: z.boolean().nullish(),
  response_format: ResponseFormat.nullish(),
};

/**
 * The wire `LLMConfig`. Loose: an llm_config keeps every setting it was given, and settings this server does
 * not know are the caller's to read back.
 */
export const LlmConfigResponse = z.looseObject(llmConfigFields).meta({ id: 'LLMConfig' });

export const embeddingConfigFields = {
  embedding_endpoint_type: z.string(),
  embedding_model: z.string(),
  embedding_dim: z.number().int(),
  embedding_endpoint: z.string().nullish(),
  embedding_chunk_size: z.number().int().nullish(),
  handle: z.string().nullish(),
  batch_size: z.number().int().optional(),
};

/** The wire `EmbeddingConfig` (loose for the same reason as `LLMConfig`). */
export const EmbeddingConfigResponse = z.looseObject(embeddingConfigFields).meta({ id: 'EmbeddingConfig' });

/** Who serves a listed model. */
const servedBy = {
  name: z.string(),
  display_name: z.string(),
  handle: z.string().nullable(),
  provider_name: z.string(),
  provider_type: ProviderType,
  provider_category: ProviderCategory,
};

/** The wire `Model`: an llm_config ready to use, plus who serves it. */
export const ModelResponse = z
  .looseObject({ ...llmConfigFields, ...servedBy, max_context_window: z.number().int(), model_type: z.literal('llm') })
  .meta({ id: 'Model' });

/** The wire `EmbeddingModel`. */
export const EmbeddingModelResponse = z
  .looseObject({ ...embeddingConfigFields, ...servedBy, model_type: z.literal('embedding') })
  .meta({ id: 'EmbeddingModel' });

export type LlmConfigWire = z.infer<typeof LlmConfigResponse>;
export type EmbeddingConfigWire = z.infer<typeof EmbeddingConfigResponse>;
export type ModelWire = z.infer<typeof ModelResponse>;
export type EmbeddingModelWire = z.infer<typeof EmbeddingModelResponse>;
