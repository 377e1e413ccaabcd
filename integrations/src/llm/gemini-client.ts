import { randomUUID } from 'node:crypto';
import { buildGeminiPayload, type ModelRequest, type ModelTurn, type ReasoningPart } from '@engram/core';
import { GoogleGenAI, type GenerateContentParameters, type GenerateContentResponse, type GoogleGenAIOptions } from '@google/genai';
import { ModelCallError } from './errors.js';
import { parseServiceAccountKey, serviceAccountTokens } from './google-service-account.js';
import type { CompleteOptions, EmbeddingClient, ModelClient, ModelClientProvider } from './types.js';
import { callFailure, estimatedUsage, TurnAssembler, withUsageDetails } from './turn-support.js';

const DEFAULT_VERTEX_LOCATION = 'us-central1';

type GoogleAuthClient = NonNullable<NonNullable<GoogleGenAIOptions['googleAuthOptions']>['authClient']>;

export function providerLabel(provider: ModelClientProvider): string {
  return provider.name && provider.name !== provider.providerType ? `${provider.providerType} provider '${provider.name}'` : `${provider.providerType} provider`;
}

/**
 * The SDK client: Gemini API with its key, or Vertex AI with a service account's JSON key (its token from the key's
 * `token_uri`) or, without one, the workload's own credentials (Application Default Credentials).
 */
export function googleGenAiClient(provider: ModelClientProvider): GoogleGenAI {
  const baseUrl = provider.baseUrl.replace(/\/+$/, '');
  const httpOptions = { ...(baseUrl ? { baseUrl } : {}), ...(provider.fetch ? { fetch: provider.fetch } : {}) };
  if (provider.providerType !== 'google_vertex') {
    if (!provider.apiKey) throw new ModelCallError('not_configured', `${providerLabel(provider)} has no API key`);
    return new GoogleGenAI({ apiKey: provider.apiKey, httpOptions });
  }
  const label = providerLabel(provider);
  const key = provider.apiKey ? parseServiceAccountKey(provider.apiKey, label) : null;
  const project = provider.project ?? key?.project_id;
  if (!project) throw new ModelCallError('not_configured', `${label} needs a Google Cloud project (the service account's project_id or VERTEX_PROJECT)`);
  const options: GoogleGenAIOptions = { vertexai: true, project, location: provider.region ?? DEFAULT_VERTEX_LOCATION, httpOptions };
  if (key) {
    const tokens = serviceAccountTokens(key, { fetch: provider.fetch, providerLabel: label });
    // The SDK asks its auth client for request headers only.
    const authClient = { getRequestHeaders: async () => new Headers({ authorization: `Bearer ${await tokens.accessToken()}` }) };
    options.googleAuthOptions = { authClient: authClient as unknown as GoogleAuthClient };
  }
  return new GoogleGenAI(options);
}

/** The SDK's parameters for the REST body core builds: its generation settings sit beside the tools in `config`. */
function sdkParameters(request: ModelRequest, signal: AbortSignal | undefined): GenerateContentParameters {
  const payload = buildGeminiPayload(request) as Record<string, unknown>;
  const { systemInstruction, tools, toolConfig, generationConfig } = payload;
  return {
    model: request.settings.model,
    contents: payload.contents as GenerateContentParameters['contents'],
    config: {
      ...(systemInstruction ? { systemInstruction } : {}),
      ...(tools ? { tools, toolConfig } : {}),
      ...((generationConfig as Record<string, unknown> | undefined) ?? {}),
      ...(signal ? { abortSignal: signal } : {}),
    } as GenerateContentParameters['config'],
  };
}

function finishReasonOf(reason: string | undefined, hasToolCalls: boolean): ModelTurn['finishReason'] {
  if (hasToolCalls) return 'tool_calls';
  switch (reason) {
    case 'STOP':
      return 'stop';
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
      return 'content_filter';
    default:
      return 'other';
  }
}

/** Gathers a Gemini answer from its chunks (one chunk when not streaming). */
class GeminiAnswer {
  private readonly assembler: TurnAssembler;
  private thoughts = '';
  private signature: string | null = null;
  private finishReason: string | undefined;
  private usage: GenerateContentResponse['usageMetadata'];
  private model: string | undefined;
  private calls = 0;

  constructor(onDelta: CompleteOptions['onDelta']) {
    this.assembler = new TurnAssembler(onDelta);
  }

  add(chunk: GenerateContentResponse): void {
    this.usage = chunk.usageMetadata ?? this.usage;
    this.model = chunk.modelVersion ?? this.model;
    const candidate = chunk.candidates?.[0];
    if (!candidate) {
      const blocked = chunk.promptFeedback?.blockReason;
      if (blocked) this.finishReason = 'SAFETY';
      return;
    }
    this.finishReason = candidate.finishReason ?? this.finishReason;
    for (const part of candidate.content?.parts ?? []) {
      // The signature of the turn's thinking rides on one of its parts and must go back on the same kind of part.
      if (part.thoughtSignature && this.signature === null) this.signature = part.thoughtSignature;
      if (part.thought) {
        this.thoughts += part.text ?? '';
        this.assembler.addReasoning(part.text);
      } else if (part.functionCall) {
        const index = this.calls;
        this.calls += 1;
        this.assembler.addToolCallFragment(index, {
          // The Gemini API gives calls no id; results are paired with their call by Engram's.
          id: part.functionCall.id ?? `call_${randomUUID()}`,
          name: part.functionCall.name ?? '',
          argumentsFragment: JSON.stringify(part.functionCall.args ?? {}),
        });
      } else if (part.text) {
        this.assembler.addText(part.text);
      }
    }
  }

  turn(request: ModelRequest): ModelTurn {
    // A signature without thoughts is reasoning the client may not read.
    if (this.signature && !this.thoughts) this.assembler.addHiddenReasoning(this.signature);
    const answer = this.assembler.result();
    const reasoningParts: ReasoningPart[] = [];
    if (this.thoughts || this.signature) {
      reasoningParts.push(
        this.thoughts
          ? { type: 'reasoning', text: this.thoughts, protocol: 'gemini', signature: this.signature }
          : { type: 'redacted_reasoning', data: this.signature ?? '', protocol: 'gemini' },
      );
    }
    const usage = this.usage;
    const promptTokens = usage?.promptTokenCount ?? 0;
    // Gemini counts thinking apart from the candidates; both are the answer's.
    const completionTokens = (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0);
    return {
      ...answer,
      ...(reasoningParts.length > 0 ? { reasoningParts } : {}),
      finishReason: finishReasonOf(this.finishReason, answer.toolCalls.length > 0),
      usage:
        promptTokens + completionTokens > 0
          ? withUsageDetails(
              { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: usage?.totalTokenCount ?? promptTokens + completionTokens },
              { cached: usage?.cachedContentTokenCount, reasoning: usage?.thoughtsTokenCount },
            )
          : estimatedUsage(request, answer),
      model: this.model || request.settings.model,
    };
  }
}

/** `models/gemini-2.5-flash` → `gemini-2.5-flash`; Vertex lists `publishers/google/models/…`. */
function modelIdOf(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

/** A client for Google's Gemini models: the Gemini API (`google_ai`) and Vertex AI (`google_vertex`). */
export function createGeminiModelClient(provider: ModelClientProvider): ModelClient {
  return {
    async complete(request, options) {
      try {
        const client = googleGenAiClient(provider);
        const answer = new GeminiAnswer(options.onDelta);
        const parameters = sdkParameters(request, options.signal);
        if (request.stream) {
          for await (const chunk of await client.models.generateContentStream(parameters)) answer.add(chunk);
          options.signal?.throwIfAborted();
        } else {
          answer.add(await client.models.generateContent(parameters));
        }
        return answer.turn(request);
      } catch (error) {
        throw callFailure(error, options.signal);
      }
    },
    async listModels() {
      try {
        const client = googleGenAiClient(provider);
        const ids: string[] = [];
        const pager = await client.models.list({ config: { pageSize: 100 } });
        for await (const model of pager) if (model.name) ids.push(modelIdOf(model.name));
        return ids;
      } catch (error) {
        throw callFailure(error, undefined);
      }
    },
  };
}

/** Embeddings through Gemini's `embedContent` (batched by the SDK) or Vertex AI's `predict`. */
export function createGeminiEmbeddingClient(provider: ModelClientProvider): EmbeddingClient {
  return {
    async embed(model, texts, options = {}) {
      try {
        const client = googleGenAiClient(provider);
        const response = await client.models.embedContent({ model, contents: texts, config: options.signal ? { abortSignal: options.signal } : {} });
        const vectors = (response.embeddings ?? []).map((embedding) => embedding.values ?? []);
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
