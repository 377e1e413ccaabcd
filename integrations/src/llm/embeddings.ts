import OpenAI from 'openai';
import type { ModelClientProvider } from './types.js';
import { ModelCallError } from './errors.js';
import { callFailure } from './turn-support.js';

export type EmbeddingClient = {
  /** One `/embeddings` request: a vector per text, in order. Throws ModelCallError on provider failure. */
  embed(model: string, texts: string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
};

/**
 * Self-hosted servers are configured by their root URL but serve the OpenAI API under /v1. The same rule as
 * the chat client's (`openai-client.ts`), which does not export it.
 */
const ROOT_URL_SERVERS = new Set(['ollama', 'vllm', 'lmstudio_openai']);

function embeddingsBaseUrl(provider: ModelClientProvider): string {
  const baseUrl = provider.baseUrl.replace(/\/+$/, '');
  return ROOT_URL_SERVERS.has(provider.providerType) && !baseUrl.endsWith('/v1') ? `${baseUrl}/v1` : baseUrl;
}

/** Every supported embedding provider speaks OpenAI's `POST /embeddings` (OpenAI itself, Ollama, vLLM, LM Studio, Together, …). */
export function createEmbeddingClient(provider: ModelClientProvider): EmbeddingClient {
  // Retries belong to the caller: an activity's retry policy, or the API client.
  const client = new OpenAI({ apiKey: provider.apiKey ?? 'not-needed', baseURL: embeddingsBaseUrl(provider), maxRetries: 0, ...(provider.fetch ? { fetch: provider.fetch } : {}) });
  return {
    async embed(model, texts, options = {}) {
      try {
        const response = await client.embeddings.create({ model, input: texts, encoding_format: 'float' }, { signal: options.signal });
        const vectors = [...response.data].sort((a, b) => a.index - b.index).map((item) => item.embedding);
        if (vectors.length !== texts.length) {
          throw new ModelCallError('invalid_response', `The embedding provider returned ${vectors.length} vectors for ${texts.length} texts`);
        }
        return vectors;
      } catch (error) {
        if (error instanceof ModelCallError) throw error;
        throw callFailure(error, options.signal);
      }
    },
  };
}
