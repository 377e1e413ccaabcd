import type { ModelRequest } from '../model.js';
import { buildAnthropicMessagesPayload } from './anthropic-payload.js';
import { buildBedrockConversePayload } from './bedrock-payload.js';
import { buildGeminiPayload } from './gemini-payload.js';
import { buildOpenAiChatPayload } from './openai-payload.js';
import { buildOpenAiResponsesPayload } from './openai-responses-payload.js';
import { wireProtocolFor } from './wire-protocol.js';

/**
 * The exact body a provider receives for a model request, by the wire protocol its provider type speaks
 * (`wireProtocolFor`): what the worker's model clients send and `preview-raw-payload` shows.
 */
export function buildProviderPayload(request: ModelRequest): Record<string, unknown> {
  switch (wireProtocolFor(request.settings)) {
    case 'anthropic':
      return buildAnthropicMessagesPayload(request);
    case 'openai_responses':
      return buildOpenAiResponsesPayload(request);
    case 'gemini':
      return buildGeminiPayload(request);
    case 'bedrock':
      return buildBedrockConversePayload(request);
    case 'openai_chat':
      return buildOpenAiChatPayload(request);
  }
}
