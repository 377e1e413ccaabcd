import { BedrockClient, ListFoundationModelsCommand } from '@aws-sdk/client-bedrock';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  type ContentBlock,
  type ConverseCommandInput,
  type ConverseStreamOutput,
  type TokenUsage as BedrockUsage,
} from '@aws-sdk/client-bedrock-runtime';
import { buildBedrockConversePayload, type ModelRequest, type ModelTurn, type ReasoningPart } from '@engram/core';
import { fetchRequestHandler } from './aws-fetch-handler.js';
import { ModelCallError } from './errors.js';
import type { CompleteOptions, EmbeddingClient, ModelClient, ModelClientProvider } from './types.js';
import { callFailure, estimatedUsage, TurnAssembler, withUsageDetails } from './turn-support.js';

const DEFAULT_REGION = 'us-east-1';

/**
 * The SDK's configuration: SigV4 with the provider's access key and secret, or the default credential chain (the
 * environment, shared config, the instance or task role) without them; requests go through the provider's fetch.
 */
function awsClientConfig(provider: ModelClientProvider) {
  const endpoint = provider.baseUrl.replace(/\/+$/, '');
  return {
    region: provider.region ?? DEFAULT_REGION,
    ...(provider.accessKey && provider.apiKey
      ? {
          credentials: {
            accessKeyId: provider.accessKey,
            secretAccessKey: provider.apiKey,
            ...(provider.sessionToken ? { sessionToken: provider.sessionToken } : {}),
          },
        }
      : {}),
    ...(endpoint ? { endpoint } : {}),
    // Retries belong to Temporal's activity retry policy, which knows the error kinds.
    maxAttempts: 1,
    requestHandler: fetchRequestHandler(provider.fetch),
  };
}

export function bedrockRuntimeClient(provider: ModelClientProvider): BedrockRuntimeClient {
  return new BedrockRuntimeClient(awsClientConfig(provider));
}

const bytes = (base64: string) => Uint8Array.from(Buffer.from(base64, 'base64'));
const base64 = (data: Uint8Array) => Buffer.from(data).toString('base64');

/** Core's payload carries bytes base64-encoded, as Converse's JSON does; the SDK wants them as bytes. */
function sdkInput(request: ModelRequest): ConverseCommandInput {
  const payload = buildBedrockConversePayload(request) as { messages: Array<{ content: Array<Record<string, unknown>> }> };
  for (const message of payload.messages) {
    message.content = message.content.map((block) => {
      const image = block.image as { format: string; source: { bytes: string } } | undefined;
      if (image) return { image: { ...image, source: { bytes: bytes(image.source.bytes) } } };
      const reasoning = block.reasoningContent as { redactedContent?: string } | undefined;
      if (reasoning?.redactedContent !== undefined) return { reasoningContent: { redactedContent: bytes(reasoning.redactedContent) } };
      return block;
    });
  }
  return payload as unknown as ConverseCommandInput;
}

function finishReasonOf(reason: string | undefined): ModelTurn['finishReason'] {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    default:
      return 'other';
  }
}

function turnOf(
  request: ModelRequest,
  answer: Pick<ModelTurn, 'text' | 'reasoning' | 'toolCalls'>,
  reasoningParts: ReasoningPart[],
  ending: { stopReason: string | undefined; usage: BedrockUsage | undefined },
): ModelTurn {
  const { usage } = ending;
  return {
    ...answer,
    ...(reasoningParts.length > 0 ? { reasoningParts } : {}),
    finishReason: finishReasonOf(ending.stopReason),
    usage: usage
      ? withUsageDetails(
          { prompt_tokens: usage.inputTokens ?? 0, completion_tokens: usage.outputTokens ?? 0, total_tokens: usage.totalTokens ?? 0 },
          { cached: usage.cacheReadInputTokens, cacheWrite: usage.cacheWriteInputTokens },
        )
      : estimatedUsage(request, answer),
    model: request.settings.model,
  };
}

function answerOf(content: ContentBlock[]) {
  const reasoningParts: ReasoningPart[] = [];
  const toolCalls = [];
  let text = '';
  for (const block of content) {
    if (block.text !== undefined) text += block.text;
    else if (block.toolUse) {
      toolCalls.push({ id: block.toolUse.toolUseId ?? '', name: block.toolUse.name ?? '', arguments: JSON.stringify(block.toolUse.input ?? {}) });
    } else if (block.reasoningContent?.reasoningText) {
      const { text: thought, signature } = block.reasoningContent.reasoningText;
      reasoningParts.push({ type: 'reasoning', text: thought ?? '', protocol: 'bedrock', signature: signature ?? null });
    } else if (block.reasoningContent?.redactedContent) {
      reasoningParts.push({ type: 'redacted_reasoning', data: base64(block.reasoningContent.redactedContent), protocol: 'bedrock' });
    }
  }
  const reasoning = reasoningParts.flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join('');
  return { answer: { text: text || null, reasoning: reasoning || null, toolCalls }, reasoningParts };
}

/** The exception events a ConverseStream may end with instead of its answer. */
function streamedFailure(event: ConverseStreamOutput): Error | null {
  return event.throttlingException ?? event.modelStreamErrorException ?? event.internalServerException ?? event.serviceUnavailableException ?? event.validationException ?? null;
}

async function completeStreaming(client: BedrockRuntimeClient, request: ModelRequest, options: CompleteOptions): Promise<ModelTurn> {
  const response = await client.send(new ConverseStreamCommand(sdkInput(request)), { abortSignal: options.signal });
  const assembler = new TurnAssembler(options.onDelta);
  const toolCallIndexByBlock = new Map<number, number>();
  const reasoningByBlock = new Map<number, ReasoningPart>();
  let stopReason: string | undefined;
  let usage: BedrockUsage | undefined;
  for await (const event of response.stream ?? []) {
    const failure = streamedFailure(event);
    if (failure) {
      const kind = event.throttlingException ? 'rate_limit' : event.validationException ? 'bad_request' : 'server';
      throw new ModelCallError(kind, `${failure.name}: ${failure.message}`);
    }
    if (event.contentBlockStart?.start?.toolUse) {
      const blockIndex = event.contentBlockStart.contentBlockIndex ?? 0;
      const index = toolCallIndexByBlock.size;
      toolCallIndexByBlock.set(blockIndex, index);
      const { toolUseId, name } = event.contentBlockStart.start.toolUse;
      assembler.addToolCallFragment(index, { id: toolUseId, name });
    } else if (event.contentBlockDelta?.delta) {
      const blockIndex = event.contentBlockDelta.contentBlockIndex ?? 0;
      const { delta } = event.contentBlockDelta;
      if (delta.text !== undefined) assembler.addText(delta.text);
      else if (delta.toolUse) {
        const index = toolCallIndexByBlock.get(blockIndex);
        if (index !== undefined) assembler.addToolCallFragment(index, { argumentsFragment: delta.toolUse.input });
      } else if (delta.reasoningContent) {
        const thinking = delta.reasoningContent;
        if (thinking.redactedContent) {
          const data = base64(thinking.redactedContent);
          reasoningByBlock.set(blockIndex, { type: 'redacted_reasoning', data, protocol: 'bedrock' });
          assembler.addHiddenReasoning(data);
        } else {
          const part = reasoningByBlock.get(blockIndex) ?? { type: 'reasoning', text: '', protocol: 'bedrock', signature: null };
          reasoningByBlock.set(blockIndex, part);
          if (part.type === 'reasoning' && thinking.text !== undefined) {
            part.text += thinking.text;
            assembler.addReasoning(thinking.text);
          }
          if (part.type === 'reasoning' && thinking.signature !== undefined) part.signature = (part.signature ?? '') + thinking.signature;
        }
      }
    } else if (event.messageStop) {
      stopReason = event.messageStop.stopReason;
    } else if (event.metadata?.usage) {
      usage = event.metadata.usage;
    }
  }
  options.signal?.throwIfAborted();
  const answer = assembler.result();
  // A tool without parameters streams no input fragments at all.
  const toolCalls = answer.toolCalls.map((call) => ({ ...call, arguments: call.arguments || '{}' }));
  const reasoningParts = [...reasoningByBlock.entries()].sort(([left], [right]) => left - right).map(([, part]) => part);
  return turnOf(request, { ...answer, toolCalls }, reasoningParts, { stopReason, usage });
}

/** A client for Amazon Bedrock's Converse API (ConverseStream when streaming), signed with SigV4. */
export function createBedrockModelClient(provider: ModelClientProvider): ModelClient {
  const client = bedrockRuntimeClient(provider);
  return {
    async complete(request, options) {
      try {
        if (request.stream) return await completeStreaming(client, request, options);
        const response = await client.send(new ConverseCommand(sdkInput(request)), { abortSignal: options.signal });
        const { answer, reasoningParts } = answerOf(response.output?.message?.content ?? []);
        return turnOf(request, answer, reasoningParts, { stopReason: response.stopReason, usage: response.usage });
      } catch (error) {
        throw callFailure(error, options.signal);
      }
    },
    /** The foundation models that answer through Converse (text out), from Bedrock's control plane. */
    async listModels() {
      try {
        const control = new BedrockClient(awsClientConfig(provider));
        const listed = await control.send(new ListFoundationModelsCommand({ byOutputModality: 'TEXT' }));
        return (listed.modelSummaries ?? []).flatMap((model) => (model.modelId ? [model.modelId] : []));
      } catch (error) {
        throw callFailure(error, undefined);
      }
    },
  };
}

type EmbeddingAnswer = { embedding?: number[]; embeddings?: number[][] | { float?: number[][] } };

/** Embeddings through Bedrock's InvokeModel: Amazon Titan takes one text a request, Cohere a batch. */
export function createBedrockEmbeddingClient(provider: ModelClientProvider): EmbeddingClient {
  const client = bedrockRuntimeClient(provider);
  async function invoke(model: string, body: unknown, signal: AbortSignal | undefined): Promise<EmbeddingAnswer> {
    const response = await client.send(
      new InvokeModelCommand({ modelId: model, contentType: 'application/json', accept: 'application/json', body: JSON.stringify(body) }),
      { abortSignal: signal },
    );
    return JSON.parse(new TextDecoder().decode(response.body)) as EmbeddingAnswer;
  }
  return {
    async embed(model, texts, options = {}) {
      try {
        let vectors: number[][];
        if (model.includes('cohere.')) {
          const answer = await invoke(model, { texts, input_type: 'search_document', embedding_types: ['float'] }, options.signal);
          vectors = (Array.isArray(answer.embeddings) ? answer.embeddings : answer.embeddings?.float) ?? [];
        } else {
          vectors = [];
          for (const text of texts) vectors.push((await invoke(model, { inputText: text }, options.signal)).embedding ?? []);
        }
        if (vectors.length !== texts.length || vectors.some((vector) => vector.length === 0)) {
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
