import type { ModelDelta, ModelRequest, ModelTurn } from '@engram/core';
import { expect, it } from 'vitest';
import type { ProtocolServer, ProviderReply } from './script.js';

/** What a protocol's client tests need to know of it: how to reach it and how to read what the client sent. */
export type ProtocolClientSubject = {
  server: () => ProtocolServer;
  /** The settings of the model under test (model id, endpoint type, reasoning asked or not). */
  settings: () => ModelRequest['settings'];
  complete: (request: ModelRequest, onDelta?: (delta: ModelDelta) => void) => Promise<ModelTurn>;
  /** A call made with credentials the provider refuses. */
  completeWithBadCredentials: (request: ModelRequest) => Promise<ModelTurn>;
  /** The model request bodies received (token exchanges and lists left out). */
  modelRequests: () => Array<Record<string, unknown>>;
  /** The tool results a request body carries, as `[call id or function name, result text]`. */
  toolResultsIn: (body: Record<string, unknown>) => Array<[string, string]>;
  /** The reasoning signatures (or encrypted content) a request body sends back. */
  signaturesIn: (body: Record<string, unknown>) => string[];
  /** Whether tool results are paired by call id (else by function name, as Gemini does). */
  pairsById: boolean;
  /** The provider's name in errors. */
  providerName: string;
  /** What a 429 says to wait, in ms, as this provider tells it. */
  retryHintMs: number;
};

/** Encrypted or redacted reasoning as providers give it (base64, as Bedrock's bytes travel). */
const OPAQUE_REASONING = 'b3BhcXVlLXJlYXNvbmluZw==';

const weatherTool = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

export function requestFor(subject: ProtocolClientSubject, overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    settings: subject.settings(),
    messages: [
      { role: 'system', content: 'You are a careful assistant.' },
      { role: 'user', content: 'What is the weather in Paris and Rome?' },
    ],
    tools: [weatherTool],
    toolChoice: 'auto',
    parallelToolCalls: true,
    stream: false,
    ...overrides,
  };
}

/** The next step's request: the model's turn, as stored and read back, and the results of its calls. */
export function followUp(request: ModelRequest, turn: ModelTurn, results: string[]): ModelRequest {
  return {
    ...request,
    messages: [
      ...request.messages,
      {
        role: 'assistant',
        content: turn.text,
        ...(turn.toolCalls.length > 0 ? { toolCalls: turn.toolCalls } : {}),
        reasoning: turn.reasoning,
        ...(turn.reasoningParts ? { reasoningParts: turn.reasoningParts } : {}),
      },
      ...turn.toolCalls.map((call, index) => ({ role: 'tool' as const, toolCallId: call.id, content: results[index] ?? '' })),
    ],
  };
}

async function failureOf(promise: Promise<unknown>): Promise<{ kind?: string; message: string; retryAfterMs?: number }> {
  try {
    await promise;
  } catch (error) {
    return error as { kind?: string; message: string; retryAfterMs?: number };
  }
  throw new Error('expected the call to fail');
}

const answer = (reply: Omit<Extract<ProviderReply, { type: 'answer' }>, 'type'>): ProviderReply => ({ type: 'answer', ...reply });

/** The cases every model client passes against its protocol's scripted server, through the SDK's real HTTP path. */
export function protocolClientCases(subject: ProtocolClientSubject): void {
  it('reads a plain answer with its usage', async () => {
    subject.server().enqueue(answer({ text: 'It is sunny.', usage: { input: 40, output: 6, cached: 12 } }));
    const turn = await subject.complete(requestFor(subject, { tools: [], toolChoice: 'auto' }));
    expect(turn.text).toBe('It is sunny.');
    expect(turn.finishReason).toBe('stop');
    expect(turn.toolCalls).toEqual([]);
    expect(turn.usage).toMatchObject({ prompt_tokens: 40, cached_input_tokens: 12 });
    expect(turn.usage.completion_tokens).toBeGreaterThanOrEqual(6);
  });

  it('streams an answer, fragment by fragment', async () => {
    subject.server().enqueue(answer({ text: 'Sunny in Paris, with a light breeze.' }));
    const deltas: ModelDelta[] = [];
    const turn = await subject.complete(requestFor(subject, { stream: true }), (delta) => deltas.push(delta));
    expect(turn.text).toBe('Sunny in Paris, with a light breeze.');
    const streamed = deltas.flatMap((delta) => (delta.kind === 'text' ? [delta.text] : [])).join('');
    expect(streamed).toBe(turn.text);
  });

  it('makes a tool call and sends its result back, paired with the call', async () => {
    const server = subject.server();
    server.enqueue(answer({ calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }), answer({ text: 'Paris: 21°C.' }));
    const request = requestFor(subject);
    const turn = await subject.complete(request);
    expect(turn.finishReason).toBe('tool_calls');
    expect(turn.toolCalls).toHaveLength(1);
    expect(turn.toolCalls[0]).toMatchObject({ name: 'get_weather' });
    expect(JSON.parse(turn.toolCalls[0]!.arguments)).toEqual({ city: 'Paris' });
    const final = await subject.complete(followUp(request, turn, ['{"temperature": 21}']));
    expect(final.text).toBe('Paris: 21°C.');
    const sent = subject.modelRequests().at(-1)!;
    const key = subject.pairsById ? turn.toolCalls[0]!.id : 'get_weather';
    expect(subject.toolResultsIn(sent)).toEqual([[key, '{"temperature": 21}']]);
  });

  it('makes parallel tool calls, streamed, and takes all their results in one turn', async () => {
    const server = subject.server();
    server.enqueue(
      answer({ calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_weather', arguments: { city: 'Rome' } }] }),
      answer({ text: 'Both are warm.' }),
    );
    const request = requestFor(subject, { stream: true });
    const turn = await subject.complete(request, () => undefined);
    expect(turn.toolCalls.map((call) => JSON.parse(call.arguments) as unknown)).toEqual([{ city: 'Paris' }, { city: 'Rome' }]);
    expect(new Set(turn.toolCalls.map((call) => call.id)).size).toBe(2);
    await subject.complete(followUp(request, turn, ['21', '25']));
    const results = subject.toolResultsIn(subject.modelRequests().at(-1)!);
    expect(results.map(([, text]) => text)).toEqual(['21', '25']);
    if (subject.pairsById) expect(results.map(([id]) => id)).toEqual(turn.toolCalls.map((call) => call.id));
  });

  it('streams reasoning and sends it back, signed, on the next step', async () => {
    const server = subject.server();
    server.enqueue(
      answer({ reasoning: 'The user wants the weather; I should call the tool.', signature: 'sig-from-provider-1', calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }),
      answer({ text: 'Paris: 21°C.' }),
    );
    const deltas: ModelDelta[] = [];
    const request = requestFor(subject, { stream: true, settings: { ...subject.settings(), enable_reasoner: true } });
    const turn = await subject.complete(request, (delta) => deltas.push(delta));
    expect(deltas.flatMap((delta) => (delta.kind === 'reasoning' ? [delta.text] : [])).join('')).toBe('The user wants the weather; I should call the tool.');
    expect(turn.reasoning).toBe('The user wants the weather; I should call the tool.');
    expect(turn.reasoningParts?.length).toBeGreaterThan(0);
    await subject.complete(followUp(request, turn, ['21']));
    expect(subject.signaturesIn(subject.modelRequests().at(-1)!)).toContain('sig-from-provider-1');
  });

  it('passes on reasoning given only encrypted as hidden reasoning', async () => {
    subject.server().enqueue(answer({ hiddenReasoning: OPAQUE_REASONING, text: 'Done.' }));
    const deltas: ModelDelta[] = [];
    const request = requestFor(subject, { stream: true, settings: { ...subject.settings(), enable_reasoner: true } });
    const turn = await subject.complete(request, (delta) => deltas.push(delta));
    expect(deltas).toContainEqual({ kind: 'hidden_reasoning', data: OPAQUE_REASONING });
    expect(turn.reasoningParts).toEqual([expect.objectContaining({ type: 'redacted_reasoning', data: OPAQUE_REASONING })]);
  });

  it('turns a 429 into a retryable error with the retry hint, and answers once the limit passes', async () => {
    const server = subject.server();
    server.enqueue({ type: 'error', status: 429, message: 'Rate limit reached', retryAfterSeconds: subject.retryHintMs / 1000 }, answer({ text: 'Now it works.' }));
    const failure = await failureOf(subject.complete(requestFor(subject)));
    expect(failure.kind).toBe('rate_limit');
    expect(failure.retryAfterMs).toBe(subject.retryHintMs);
    expect((await subject.complete(requestFor(subject))).text).toBe('Now it works.');
  });

  it('says in words that the provider refused the credentials', async () => {
    const failure = await failureOf(subject.completeWithBadCredentials(requestFor(subject)));
    expect(failure.kind).toBe('authentication');
    expect(failure.message).toContain(subject.providerName);
  });
}
