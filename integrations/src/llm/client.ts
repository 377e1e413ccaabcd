import { wireProtocolFor } from '@engram/core';
import { createAnthropicModelClient } from './anthropic-client.js';
import { azureOpenAiClient } from './azure-client.js';
import { createBedrockModelClient } from './bedrock-client.js';
import { ModelCallError } from './errors.js';
import { createGeminiModelClient, providerLabel } from './gemini-client.js';
import { createOpenAiChatClient, openAiSdkClient } from './openai-client.js';
import { createOpenAiResponsesClient } from './openai-responses-client.js';
import type { ModelClient, ModelClientProvider } from './types.js';

export type { CompleteOptions, ModelClient, ModelClientProvider } from './types.js';

/** Per provider type, the client of the protocols it speaks; OpenAI and Azure speak both of OpenAI's, by model. */
function protocolClient(provider: ModelClientProvider): ModelClient {
  switch (provider.providerType) {
    case 'anthropic':
      return createAnthropicModelClient(provider);
    case 'google_ai':
    case 'google_vertex':
      return createGeminiModelClient(provider);
    case 'bedrock':
      return createBedrockModelClient(provider);
    case 'openai':
    case 'azure': {
      const sdk = provider.providerType === 'azure' ? azureOpenAiClient(provider) : openAiSdkClient(provider);
      const chat = createOpenAiChatClient(sdk);
      const responses = createOpenAiResponsesClient(sdk);
      return {
        complete: (request, options) =>
          (wireProtocolFor(request.settings) === 'openai_responses' ? responses : chat).complete(request, options),
        listModels: () => chat.listModels(),
      };
    }
    default:
      // Mistral, OpenRouter, Fireworks, Cerebras, Groq, … and self-hosted servers speak Chat Completions.
      return createOpenAiChatClient(openAiSdkClient(provider));
  }
}

/** A refused key is named after the provider that refused it, so the person fixing it knows which one. */
function namingProvider(provider: ModelClientProvider, error: unknown): unknown {
  if (!(error instanceof ModelCallError) || error.kind !== 'authentication') return error;
  const label = providerLabel(provider);
  if (error.message.startsWith(label)) return error;
  return new ModelCallError('authentication', `The ${label} refused its credentials: ${error.message}`, error.status);
}

/** The model client for a provider: the official SDK of the wire protocol its type speaks. */
export function createModelClient(provider: ModelClientProvider): ModelClient {
  let client: ModelClient;
  try {
    client = protocolClient(provider);
  } catch (error) {
    const failure = namingProvider(provider, error);
    return { complete: () => Promise.reject(failure), listModels: () => Promise.reject(failure) };
  }
  return {
    async complete(request, options) {
      try {
        return await client.complete(request, options);
      } catch (error) {
        throw namingProvider(provider, error);
      }
    },
    async listModels() {
      try {
        return await client.listModels();
      } catch (error) {
        throw namingProvider(provider, error);
      }
    },
  };
}
