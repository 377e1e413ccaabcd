import { buildOpenAiResponsesPayload, type ModelRequest, type ModelTurn, type PromptToolCall, type ReasoningPart } from '@engram/core';
import type OpenAI from 'openai';
import type { CompleteOptions, ModelClient } from './types.js';
import { ModelCallError } from './errors.js';
import { callFailure, estimatedUsage, TurnAssembler, withUsageDetails } from './turn-support.js';

type Response = OpenAI.Responses.Response;
type OutputItem = OpenAI.Responses.ResponseOutputItem;

function reasoningPartOf(item: OpenAI.Responses.ResponseReasoningItem): ReasoningPart | null {
  const summary = item.summary.map((part) => part.text).join('\n\n');
  if (summary) return { type: 'reasoning', text: summary, protocol: 'openai_responses', signature: item.encrypted_content ?? null, itemId: item.id };
  if (item.encrypted_content) return { type: 'redacted_reasoning', data: item.encrypted_content, protocol: 'openai_responses', itemId: item.id };
  return null;
}

function finishReasonOf(response: Response, toolCalls: PromptToolCall[]): ModelTurn['finishReason'] {
  if (response.status === 'incomplete') {
    const reason = response.incomplete_details?.reason;
    return reason === 'max_output_tokens' ? 'length' : reason === 'content_filter' ? 'content_filter' : 'other';
  }
  return toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

/** The turn a finished response holds: its output items, in order. */
function turnOfResponse(request: ModelRequest, response: Response): ModelTurn {
  if (response.status === 'failed') {
    throw new ModelCallError('server', response.error?.message ?? 'The model provider failed the response');
  }
  const output: OutputItem[] = response.output;
  const text = output
    .flatMap((item) => (item.type === 'message' ? item.content.flatMap((part) => (part.type === 'output_text' ? [part.text] : [])) : []))
    .join('');
  const reasoningParts = output.flatMap((item) => {
    const part = item.type === 'reasoning' ? reasoningPartOf(item) : null;
    return part ? [part] : [];
  });
  const reasoning = reasoningParts.flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join('\n\n');
  const toolCalls = output.flatMap((item) =>
    item.type === 'function_call' ? [{ id: item.call_id, name: item.name, arguments: item.arguments || '{}' }] : [],
  );
  const answer = { text: text || null, reasoning: reasoning || null, toolCalls };
  const usage = response.usage;
  return {
    ...answer,
    ...(reasoningParts.length > 0 ? { reasoningParts } : {}),
    finishReason: finishReasonOf(response, toolCalls),
    usage: usage
      ? withUsageDetails(
          { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, total_tokens: usage.total_tokens },
          { cached: usage.input_tokens_details?.cached_tokens, reasoning: usage.output_tokens_details?.reasoning_tokens },
        )
      : estimatedUsage(request, answer),
    model: response.model || request.settings.model,
  };
}

/**
 * Streams the answer's fragments as they come; the turn itself is read from the finished response, which
 * holds every output item whole (reasoning items with their encrypted content included).
 */
async function completeStreaming(client: OpenAI, request: ModelRequest, options: CompleteOptions): Promise<ModelTurn> {
  const payload = buildOpenAiResponsesPayload(request) as unknown as OpenAI.Responses.ResponseCreateParamsStreaming;
  const stream = await client.responses.create(payload, { signal: options.signal });
  const assembler = new TurnAssembler(options.onDelta);
  // Function calls are numbered among themselves, in output order.
  const callIndexByOutput = new Map<number, number>();
  let finished: Response | null = null;
  for await (const event of stream) {
    switch (event.type) {
      case 'response.reasoning_summary_text.delta':
        assembler.addReasoning(event.delta);
        break;
      case 'response.output_text.delta':
        assembler.addText(event.delta);
        break;
      case 'response.output_item.added':
        if (event.item.type === 'function_call') {
          const index = callIndexByOutput.size;
          callIndexByOutput.set(event.output_index, index);
          assembler.addToolCallFragment(index, { id: event.item.call_id, name: event.item.name, argumentsFragment: event.item.arguments });
        }
        break;
      case 'response.function_call_arguments.delta': {
        const index = callIndexByOutput.get(event.output_index);
        if (index !== undefined) assembler.addToolCallFragment(index, { argumentsFragment: event.delta });
        break;
      }
      case 'response.output_item.done':
        if (event.item.type === 'reasoning') {
          const part = reasoningPartOf(event.item);
          if (part?.type === 'redacted_reasoning') assembler.addHiddenReasoning(part.data);
        }
        break;
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        finished = event.response;
        break;
      case 'error':
        throw new ModelCallError(/rate.?limit/i.test(event.code ?? '') ? 'rate_limit' : 'server', event.message);
    }
  }
  // The SDK ends an aborted stream quietly, as if it were complete.
  options.signal?.throwIfAborted();
  if (!finished) throw new ModelCallError('invalid_response', 'The model provider ended the stream before the response was complete');
  return turnOfResponse(request, finished);
}

/** A client for OpenAI's Responses API: reasoning models, and agents that ask for their model's reasoning. */
export function createOpenAiResponsesClient(client: OpenAI): ModelClient {
  return {
    async complete(request, options) {
      try {
        if (request.stream) return await completeStreaming(client, request, options);
        const payload = buildOpenAiResponsesPayload(request) as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming;
        return turnOfResponse(request, await client.responses.create(payload, { signal: options.signal }));
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
