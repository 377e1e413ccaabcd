import OpenAI from 'openai';
import { azureOpenAiClient } from './azure-client.js';
import { createBedrockEmbeddingClient } from './bedrock-client.js';
import { createGeminiEmbeddingClient } from './gemini-client.js';
import type { EmbeddingClient, ModelClientProvider } from './types.js';
import { ModelCallError } from './errors.js';
import { callFailure } from './turn-support.js';

export type { EmbeddingClient } from './types.js';

/**
 * Self-hosted servers are configured by their root URL but serve the OpenAI API under /v1. The same rule as
 * the chat client's (`openai-client.ts`), which does not export it.
 */
const ROOT_URL_SERVERS = new Set(['ollama', 'vllm', 'lmstudio_openai']);

function embeddingsBaseUrl(provider: ModelClientProvider): string {
  const baseUrl = provider.baseUrl.replace(/\/+$/, '');
  return ROOT_URL_SERVERS.has(provider.providerType) && !baseUrl.endsWith('/v1') ? `${baseUrl}/v1` : baseUrl;
}

/**
 * The embedder of a provider: Gemini's and Vertex AI's own, Bedrock's (Titan, Cohere), and OpenAI's
 * `POST /embeddings` for every other (OpenAI itself, Azure OpenAI's deployments, Ollama, vLLM, LM Studio, Together, …).
 */
export function createEmbeddingClient(provider: ModelClientProvider): EmbeddingClient {
  switch (provider.providerType) {
    case 'google_ai':
    case 'google_vertex':
      return createGeminiEmbeddingClient(provider);
    case 'bedrock':
      return createBedrockEmbeddingClient(provider);
    case 'azure':
      return openAiEmbeddingClient(azureOpenAiClient(provider));
    default:
      // Retries belong to the caller: an activity's retry policy, or the API client.
      return openAiEmbeddingClient(
        new OpenAI({
          apiKey: provider.apiKey ?? 'not-needed',
          baseURL: embeddingsBaseUrl(provider),
          maxRetries: 0,
          ...(provider.fetch ? { fetch: provider.fetch } : {}),
        }),
      );
  }
}

function openAiEmbeddingClient(client: OpenAI): EmbeddingClient {
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
