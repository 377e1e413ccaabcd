import { buildOpenAiChatPayload, type ModelRequest, type ModelTurn } from '@engram/core';
import OpenAI from 'openai';
import type { CompleteOptions, ModelClient, ModelClientProvider } from './types.js';
import { ModelCallError } from './errors.js';
import { callFailure, estimatedUsage, TurnAssembler, withUsageDetails } from './turn-support.js';

/** Fields some compatible servers (DeepSeek, vLLM, Ollama, OpenRouter) add for a reasoning model's thoughts. */
type ReasoningFields = { reasoning_content?: string | null; reasoning?: string | null };

/** Self-hosted servers are configured by their root URL, as their own docs show, but serve the OpenAI API under /v1. */
const ROOT_URL_SERVERS = new Set(['ollama', 'vllm', 'lmstudio_openai']);

export function openAiBaseUrl(provider: ModelClientProvider): string {
  const baseUrl = provider.baseUrl.replace(/\/+$/, '');
  return ROOT_URL_SERVERS.has(provider.providerType) && !baseUrl.endsWith('/v1') ? `${baseUrl}/v1` : baseUrl;
}

function finishReasonOf(reason: string | null | undefined): ModelTurn['finishReason'] {
  switch (reason) {
    case 'stop':
    case 'length':
    case 'tool_calls':
    case 'content_filter':
      return reason;
    case 'function_call':
      return 'tool_calls';
    default:
      return 'other';
  }
}

function turnOf(
  request: ModelRequest,
  answer: Pick<ModelTurn, 'text' | 'reasoning' | 'toolCalls'>,
  ending: { finishReason: string | null | undefined; usage: OpenAI.CompletionUsage | null | undefined; model: string | undefined },
): ModelTurn {
  const { usage } = ending;
  return {
    ...answer,
    finishReason: finishReasonOf(ending.finishReason),
    usage: usage
      ? withUsageDetails(
          { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.total_tokens },
          { cached: usage.prompt_tokens_details?.cached_tokens, reasoning: usage.completion_tokens_details?.reasoning_tokens },
        )
      : estimatedUsage(request, answer),
    model: ending.model || request.settings.model,
  };
}

async function completeStreaming(client: OpenAI, request: ModelRequest, options: CompleteOptions): Promise<ModelTurn> {
  const payload = buildOpenAiChatPayload(request) as unknown as OpenAI.ChatCompletionCreateParamsStreaming;
  const stream = await client.chat.completions.create(payload, { signal: options.signal });
  const assembler = new TurnAssembler(options.onDelta);
  let finishReason: string | null = null;
  let usage: OpenAI.CompletionUsage | null = null;
  let model: string | undefined;
  for await (const chunk of stream) {
    model = chunk.model || model;
    usage = chunk.usage ?? usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    const delta = choice.delta as OpenAI.ChatCompletionChunk.Choice.Delta & ReasoningFields;
    assembler.addReasoning(delta.reasoning_content ?? delta.reasoning);
    assembler.addText(delta.content);
    for (const fragment of delta.tool_calls ?? []) {
      assembler.addToolCallFragment(fragment.index, {
        id: fragment.id,
        name: fragment.function?.name,
        argumentsFragment: fragment.function?.arguments,
      });
    }
    finishReason = choice.finish_reason ?? finishReason;
  }
  // The SDK ends an aborted stream quietly, as if it were complete.
  options.signal?.throwIfAborted();
  return turnOf(request, assembler.result(), { finishReason, usage, model });
}

async function completeAtOnce(client: OpenAI, request: ModelRequest, signal: AbortSignal | undefined): Promise<ModelTurn> {
  const payload = buildOpenAiChatPayload(request) as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming;
  const completion = await client.chat.completions.create(payload, { signal });
  // Some compatible servers answer 200 with an error object instead of choices.
  const choice = completion.choices?.[0];
  if (!choice) throw new ModelCallError('invalid_response', 'The model provider answered without any choice');
  const message = choice.message as OpenAI.ChatCompletionMessage & ReasoningFields;
  const answer = {
    text: message.content || null,
    reasoning: message.reasoning_content || message.reasoning || null,
    toolCalls: (message.tool_calls ?? []).flatMap((call) =>
      call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
    ),
  };
  return turnOf(request, answer, { finishReason: choice.finish_reason, usage: completion.usage, model: completion.model });
}

/** A client for OpenAI and every server speaking its Chat Completions API (Azure OpenAI's client included). */
export function createOpenAiChatClient(client: OpenAI): ModelClient {
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

/** The SDK client for OpenAI and the servers speaking its API, at the provider's base URL. */
export function openAiSdkClient(provider: ModelClientProvider): OpenAI {
  // Retries belong to Temporal's activity retry policy, which knows the error kinds.
  return new OpenAI({
    apiKey: provider.apiKey ?? 'not-needed',
    baseURL: openAiBaseUrl(provider),
    maxRetries: 0,
    ...(provider.fetch ? { fetch: provider.fetch } : {}),
  });
}
