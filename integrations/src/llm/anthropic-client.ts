import Anthropic from '@anthropic-ai/sdk';
import { buildAnthropicMessagesPayload, type ModelRequest, type ModelTurn } from '@engram/core';
import type { CompleteOptions, ModelClient, ModelClientProvider } from './types.js';
import { callFailure, estimatedUsage, TurnAssembler } from './turn-support.js';

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

function turnOf(
  request: ModelRequest,
  answer: Pick<ModelTurn, 'text' | 'reasoning' | 'toolCalls'>,
  ending: { stopReason: string | null | undefined; promptTokens: number; completionTokens: number; model: string | undefined },
): ModelTurn {
  const reported = ending.promptTokens + ending.completionTokens > 0;
  return {
    ...answer,
    finishReason: finishReasonOf(ending.stopReason),
    usage: reported
      ? {
          prompt_tokens: ending.promptTokens,
          completion_tokens: ending.completionTokens,
          total_tokens: ending.promptTokens + ending.completionTokens,
        }
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
  let stopReason: string | null = null;
  let promptTokens = 0;
  let completionTokens = 0;
  let model: string | undefined;
  for await (const event of stream) {
    switch (event.type) {
      case 'message_start':
        model = event.message.model;
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
        }
        break;
      case 'content_block_delta': {
        const { delta } = event;
        if (delta.type === 'text_delta') assembler.addText(delta.text);
        else if (delta.type === 'thinking_delta') assembler.addReasoning(delta.thinking);
        else if (delta.type === 'input_json_delta') {
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
  return turnOf(request, { ...answer, toolCalls }, { stopReason, promptTokens, completionTokens, model });
}

async function completeAtOnce(client: Anthropic, request: ModelRequest, signal: AbortSignal | undefined): Promise<ModelTurn> {
  const payload = buildAnthropicMessagesPayload(request) as unknown as Anthropic.MessageCreateParamsNonStreaming;
  const message = await client.messages.create(payload, { signal });
  const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  const reasoning = message.content.flatMap((block) => (block.type === 'thinking' ? [block.thinking] : [])).join('');
  const toolCalls = message.content.flatMap((block) =>
    block.type === 'tool_use' ? [{ id: block.id, name: block.name, arguments: JSON.stringify(block.input) }] : [],
  );
  return turnOf(
    request,
    { text: text || null, reasoning: reasoning || null, toolCalls },
    {
      stopReason: message.stop_reason,
      promptTokens: promptTokensOf(message.usage),
      completionTokens: message.usage.output_tokens,
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
