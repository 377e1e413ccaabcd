import Anthropic from '@anthropic-ai/sdk';
import { buildAnthropicMessagesPayload, type ModelRequest, type ModelTurn, type ReasoningPart } from '@engram/core';
import type { CompleteOptions, ModelClient, ModelClientProvider } from './types.js';
import { callFailure, estimatedUsage, TurnAssembler, withUsageDetails } from './turn-support.js';

/** Providers list Anthropic's base URL with `/v1`, as its API paths read; the SDK adds `/v1` itself. */
function anthropicBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

function finishReasonOf(reason: string | null | undefined): ModelTurn['finishReason'] {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}

type AnthropicUsage = { input_tokens: number | null; output_tokens: number; cache_read_input_tokens?: number | null; cache_creation_input_tokens?: number | null };

/** Anthropic counts cached input apart from `input_tokens`; the prompt is all of it. */
function promptTokensOf(usage: AnthropicUsage): number {
  return (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
}

type Ending = {
  stopReason: string | null | undefined;
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number | null | undefined;
  cacheWriteTokens?: number | null | undefined;
  model: string | undefined;
};

function turnOf(
  request: ModelRequest,
  answer: Pick<ModelTurn, 'text' | 'reasoning' | 'toolCalls' | 'reasoningParts'>,
  ending: Ending,
): ModelTurn {
  const reported = ending.promptTokens + ending.completionTokens > 0;
  return {
    ...answer,
    finishReason: finishReasonOf(ending.stopReason),
    usage: reported
      ? withUsageDetails(
          {
            prompt_tokens: ending.promptTokens,
            completion_tokens: ending.completionTokens,
            total_tokens: ending.promptTokens + ending.completionTokens,
          },
          { cached: ending.cachedTokens, cacheWrite: ending.cacheWriteTokens },
        )
      : estimatedUsage(request, answer),
    model: ending.model || request.settings.model,
  };
}

async function completeStreaming(client: Anthropic, request: ModelRequest, options: CompleteOptions): Promise<ModelTurn> {
  const payload = buildAnthropicMessagesPayload(request) as unknown as Anthropic.MessageCreateParamsStreaming;
  const stream = await client.messages.create(payload, { signal: options.signal });
  const assembler = new TurnAssembler(options.onDelta);
  // Content blocks are numbered across text and tool use; tool calls are numbered among themselves.
  const toolCallIndexByBlock = new Map<number, number>();
  // Thinking blocks by content block index, kept whole with their signatures to be sent back next step.
  const thinkingByBlock = new Map<number, ReasoningPart>();
  let stopReason: string | null = null;
  let usage: Anthropic.Usage | null = null;
  let promptTokens = 0;
  let completionTokens = 0;
  let model: string | undefined;
  for await (const event of stream) {
    switch (event.type) {
      case 'message_start':
        model = event.message.model;
        usage = event.message.usage;
        promptTokens = promptTokensOf(event.message.usage);
        completionTokens = event.message.usage.output_tokens;
        break;
      case 'content_block_start':
        if (event.content_block.type === 'tool_use') {
          const index = toolCallIndexByBlock.size;
          toolCallIndexByBlock.set(event.index, index);
          assembler.addToolCallFragment(index, { id: event.content_block.id, name: event.content_block.name });
        } else if (event.content_block.type === 'text') {
          assembler.addText(event.content_block.text);
        } else if (event.content_block.type === 'thinking') {
          thinkingByBlock.set(event.index, { type: 'reasoning', text: event.content_block.thinking, protocol: 'anthropic', signature: event.content_block.signature || null });
          assembler.addReasoning(event.content_block.thinking);
        } else if (event.content_block.type === 'redacted_thinking') {
          thinkingByBlock.set(event.index, { type: 'redacted_reasoning', data: event.content_block.data, protocol: 'anthropic' });
          assembler.addHiddenReasoning(event.content_block.data);
        }
        break;
      case 'content_block_delta': {
        const { delta } = event;
        const thinking = thinkingByBlock.get(event.index);
        if (delta.type === 'text_delta') assembler.addText(delta.text);
        else if (delta.type === 'thinking_delta') {
          assembler.addReasoning(delta.thinking);
          if (thinking?.type === 'reasoning') thinking.text += delta.thinking;
        } else if (delta.type === 'signature_delta') {
          if (thinking?.type === 'reasoning') thinking.signature = (thinking.signature ?? '') + delta.signature;
        } else if (delta.type === 'input_json_delta') {
          const index = toolCallIndexByBlock.get(event.index);
          if (index !== undefined) assembler.addToolCallFragment(index, { argumentsFragment: delta.partial_json });
        }
        break;
      }
      case 'message_delta':
        stopReason = event.delta.stop_reason ?? stopReason;
        completionTokens = event.usage.output_tokens;
        // Cumulative input counts arrive here only from some API versions; message_start had them otherwise.
        if (typeof event.usage.input_tokens === 'number') promptTokens = promptTokensOf(event.usage);
        break;
    }
  }
  // The SDK ends an aborted stream quietly, as if it were complete.
  options.signal?.throwIfAborted();
  const answer = assembler.result();
  // A tool without parameters streams no input fragments at all.
  const toolCalls = answer.toolCalls.map((call) => ({ ...call, arguments: call.arguments || '{}' }));
  const reasoningParts = [...thinkingByBlock.entries()].sort(([left], [right]) => left - right).map(([, part]) => part);
  return turnOf(
    request,
    { ...answer, toolCalls, ...(reasoningParts.length > 0 ? { reasoningParts } : {}) },
    { stopReason, promptTokens, completionTokens, cachedTokens: usage?.cache_read_input_tokens, cacheWriteTokens: usage?.cache_creation_input_tokens, model },
  );
}

async function completeAtOnce(client: Anthropic, request: ModelRequest, signal: AbortSignal | undefined): Promise<ModelTurn> {
  const payload = buildAnthropicMessagesPayload(request) as unknown as Anthropic.MessageCreateParamsNonStreaming;
  const message = await client.messages.create(payload, { signal });
  const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  const reasoning = message.content.flatMap((block) => (block.type === 'thinking' ? [block.thinking] : [])).join('');
  const reasoningParts = message.content.flatMap((block): ReasoningPart[] => {
    if (block.type === 'thinking') return [{ type: 'reasoning', text: block.thinking, protocol: 'anthropic', signature: block.signature }];
    if (block.type === 'redacted_thinking') return [{ type: 'redacted_reasoning', data: block.data, protocol: 'anthropic' }];
    return [];
  });
  const toolCalls = message.content.flatMap((block) =>
    block.type === 'tool_use' ? [{ id: block.id, name: block.name, arguments: JSON.stringify(block.input) }] : [],
  );
  return turnOf(
    request,
    { text: text || null, reasoning: reasoning || null, toolCalls, ...(reasoningParts.length > 0 ? { reasoningParts } : {}) },
    {
      stopReason: message.stop_reason,
      promptTokens: promptTokensOf(message.usage),
      completionTokens: message.usage.output_tokens,
      cachedTokens: message.usage.cache_read_input_tokens,
      cacheWriteTokens: message.usage.cache_creation_input_tokens,
      model: message.model,
    },
  );
}

export function createAnthropicModelClient(provider: ModelClientProvider): ModelClient {
  // Retries belong to Temporal's activity retry policy, which knows the error kinds.
  const client = new Anthropic({
    apiKey: provider.apiKey ?? 'not-needed',
    baseURL: anthropicBaseUrl(provider.baseUrl),
    maxRetries: 0,
    ...(provider.fetch ? { fetch: provider.fetch } : {}),
  });
  return {
    async complete(request, options) {
      try {
        return request.stream ? await completeStreaming(client, request, options) : await completeAtOnce(client, request, options.signal);
      } catch (error) {
        throw callFailure(error, options.signal);
      }
    },
    async listModels() {
      try {
        const ids: string[] = [];
        for await (const model of client.models.list()) ids.push(model.id);
        return ids;
      } catch (error) {
        throw callFailure(error, undefined);
      }
    },
  };
}
