import { buildAnthropicMessagesPayload, buildOpenAiChatPayload, type ModelRequest } from '@engram/core';

/**
 * The exact JSON body a provider receives for a model request. An agent's `model_endpoint_type` is the type of
 * the provider serving its model, and the worker speaks Anthropic's Messages API to `anthropic` providers and
 * the Chat Completions API to every other one.
 */
export function providerPayload(request: ModelRequest): Record<string, unknown> {
  return request.settings.model_endpoint_type === 'anthropic' ? buildAnthropicMessagesPayload(request) : buildOpenAiChatPayload(request);
}
