import type { ModelDelta, ModelRequest } from '@engram/core';
import { buildOpenAiChatPayload } from '@engram/core';
import { startScriptedModelServer, type ScriptedModelServer } from '@engram/testing/model-server/index';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelClient, type ModelClient } from './client.js';
import { ModelCallError } from './errors.js';

const weatherTool = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    settings: { model: 'scripted-model', model_endpoint_type: 'openai', context_window: 128_000, temperature: 0.5, max_tokens: 256 },
    messages: [
      { role: 'system', content: 'You are a careful assistant.' },
      { role: 'user', content: 'What is the weather in Paris?' },
    ],
    tools: [weatherTool],
    toolChoice: 'auto',
    parallelToolCalls: true,
    stream: false,
    ...overrides,
  };
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

let server: ScriptedModelServer;
let client: ModelClient;

beforeEach(async () => {
  server = await startScriptedModelServer();
  client = createModelClient({ providerType: 'openai', apiKey: 'test-key', baseUrl: server.url });
});

afterEach(async () => {
  await server.close();
});

describe('the OpenAI-compatible client without streaming', () => {
  it('sends exactly the built payload and returns the answer with reported usage', async () => {
    server.enqueue({ type: 'text', text: 'It is sunny in Paris.', usage: { prompt_tokens: 30, completion_tokens: 6 } });
    const turn = await client.complete(request(), {});
    expect(server.requests).toEqual([buildOpenAiChatPayload(request())]);
    expect(turn).toEqual({
      text: 'It is sunny in Paris.',
      reasoning: null,
      toolCalls: [],
      finishReason: 'stop',
      usage: { prompt_tokens: 30, completion_tokens: 6, total_tokens: 36 },
      model: 'scripted-model',
    });
  });

  it('returns tool calls, passing malformed arguments through verbatim', async () => {
    server.enqueue({
      type: 'tool_calls',
      calls: [
        { id: 'call_paris', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'call_broken', name: 'get_weather', arguments: '{"city": "Ber' },
      ],
    });
    const turn = await client.complete(request(), {});
    expect(turn.finishReason).toBe('tool_calls');
    expect(turn.text).toBeNull();
    expect(turn.toolCalls).toEqual([
      { id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_broken', name: 'get_weather', arguments: '{"city": "Ber' },
    ]);
  });

  it('reads reasoning_content of reasoning models', async () => {
    server.enqueue({ type: 'text', text: 'Sunny.', reasoning: 'Paris is in France.' });
    const turn = await client.complete(request(), {});
    expect(turn.reasoning).toBe('Paris is in France.');
  });

  it('accepts an empty answer', async () => {
    server.enqueue({ type: 'text', text: '' });
    const turn = await client.complete(request(), {});
    expect(turn).toMatchObject({ text: null, toolCalls: [], finishReason: 'stop' });
  });
});

describe('the OpenAI-compatible client with streaming', () => {
  it('forwards several text deltas that concatenate to the text, and takes usage from the usage chunk', async () => {
    server.enqueue({
      type: 'text',
      text: 'It is sunny and warm in Paris today.',
      reasoning: 'Check the forecast.',
      usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 },
    });
    const deltas: ModelDelta[] = [];
    const turn = await client.complete(request({ stream: true }), { onDelta: (delta) => deltas.push(delta) });

    expect(server.requests[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const textDeltas = deltas.flatMap((delta) => (delta.kind === 'text' ? [delta.text] : []));
    const reasoningDeltas = deltas.flatMap((delta) => (delta.kind === 'reasoning' ? [delta.text] : []));
    expect(textDeltas.length).toBeGreaterThan(3);
    expect(textDeltas.join('')).toBe('It is sunny and warm in Paris today.');
    expect(reasoningDeltas.join('')).toBe('Check the forecast.');
    expect(turn).toEqual({
      text: 'It is sunny and warm in Paris today.',
      reasoning: 'Check the forecast.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 },
      model: 'scripted-model',
    });
  });

  it('assembles a streamed tool call from its fragments', async () => {
    const args = { city: 'Paris', unit: 'celsius', detail: 'hourly forecast for the afternoon' };
    server.enqueue({ type: 'tool_calls', calls: [{ id: 'call_weather', name: 'get_weather', arguments: args }] });
    const deltas: ModelDelta[] = [];
    const turn = await client.complete(request({ stream: true }), { onDelta: (delta) => deltas.push(delta) });

    expect(turn.finishReason).toBe('tool_calls');
    expect(turn.toolCalls).toEqual([{ id: 'call_weather', name: 'get_weather', arguments: JSON.stringify(args) }]);
    const [opening, ...fragments] = deltas;
    expect(opening).toEqual({ kind: 'tool_call', index: 0, id: 'call_weather', name: 'get_weather' });
    expect(fragments.length).toBeGreaterThan(1);
    expect(fragments.map((delta) => (delta.kind === 'tool_call' ? delta.argumentsFragment : '')).join('')).toBe(JSON.stringify(args));
  });

  it('keeps parallel tool calls apart by index', async () => {
    server.enqueue({
      type: 'tool_calls',
      calls: [
        { id: 'call_paris', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'call_rome', name: 'get_weather', arguments: { city: 'Rome' } },
      ],
    });
    const deltas: ModelDelta[] = [];
    const turn = await client.complete(request({ stream: true }), { onDelta: (delta) => deltas.push(delta) });
    expect(turn.toolCalls).toEqual([
      { id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_rome', name: 'get_weather', arguments: '{"city":"Rome"}' },
    ]);
    expect(new Set(deltas.map((delta) => (delta.kind === 'tool_call' ? delta.index : -1)))).toEqual(new Set([0, 1]));
  });

  it('passes malformed streamed arguments through verbatim', async () => {
    server.enqueue({ type: 'tool_calls', calls: [{ id: 'call_bad', name: 'get_weather', arguments: '{"city": Paris' }] });
    const turn = await client.complete(request({ stream: true }), {});
    expect(turn.toolCalls).toEqual([{ id: 'call_bad', name: 'get_weather', arguments: '{"city": Paris' }]);
  });
});

describe('failed calls', () => {
  it.each([
    { status: 429, message: 'Rate limit reached for requests', kind: 'rate_limit' },
    { status: 500, message: 'The server had an error while processing your request', kind: 'server' },
    { status: 503, message: 'The engine is currently overloaded', kind: 'server' },
    { status: 401, message: 'Incorrect API key provided', kind: 'authentication' },
    { status: 400, message: "Invalid value for 'tool_choice'", kind: 'bad_request' },
    {
      status: 400,
      message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
      kind: 'context_overflow',
    },
  ])('classify HTTP $status ($kind), keeping the provider message', async ({ status, message, kind }) => {
    server.enqueue({ type: 'error', status, message });
    const error = await failureOf(client.complete(request(), {}));
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ kind, status });
    expect((error as ModelCallError).message).toContain(message);
  });

  it('classify an error before a stream starts the same way', async () => {
    server.enqueue({ type: 'error', status: 429, message: 'Slow down' });
    const error = await failureOf(client.complete(request({ stream: true }), {}));
    expect(error).toMatchObject({ kind: 'rate_limit', status: 429 });
  });

  it.each([false, true])('classify a malformed body as an invalid response (stream: %s)', async (stream) => {
    server.enqueue({ type: 'malformed' });
    const error = await failureOf(client.complete(request({ stream }), {}));
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ kind: 'invalid_response' });
  });

  it('classify a refused connection', async () => {
    const closed = await startScriptedModelServer();
    await closed.close();
    const unreachable = createModelClient({ providerType: 'openai', apiKey: 'test-key', baseUrl: closed.url });
    const error = await failureOf(unreachable.complete(request(), {}));
    expect(error).toMatchObject({ kind: 'connection' });
    expect((error as ModelCallError).message).toContain('ECONNREFUSED');
  });

  it('end a hanging call when the caller aborts, rethrowing the abort reason', async () => {
    server.enqueue({ type: 'hang' });
    const controller = new AbortController();
    const reason = new Error('activity cancelled');
    const call = failureOf(client.complete(request(), { signal: controller.signal }));
    setTimeout(() => controller.abort(reason), 50);
    expect(await call).toBe(reason);
  });

  it('classify an abort by a timeout signal as a timeout', async () => {
    server.enqueue({ type: 'hang' });
    const error = await failureOf(client.complete(request({ stream: true }), { signal: AbortSignal.timeout(50) }));
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ kind: 'timeout' });
  });

  it('stop a stream mid-way when the caller aborts', async () => {
    server.enqueue({ type: 'text', text: 'one two three four five six seven eight', chunkDelayMs: 40 });
    const controller = new AbortController();
    const deltas: ModelDelta[] = [];
    const error = await failureOf(
      client.complete(request({ stream: true }), {
        signal: controller.signal,
        onDelta: (delta) => {
          deltas.push(delta);
          if (deltas.length === 2) controller.abort();
        },
      }),
    );
    expect((error as Error).name).toBe('AbortError');
    expect(deltas.length).toBeLessThan(8);
  });
});

describe('listModels', () => {
  it('lists the ids the server serves', async () => {
    server.models = ['model-a', 'model-b'];
    expect(await client.listModels()).toEqual(['model-a', 'model-b']);
  });
});

describe('self-hosted servers', () => {
  it('reach the OpenAI API under /v1 when configured by their root URL', async () => {
    const ollama = createModelClient({ providerType: 'ollama', apiKey: null, baseUrl: server.url.replace(/\/v1$/, '') });
    server.enqueue({ type: 'text', text: 'Hi.' });
    expect((await ollama.complete(request(), {})).text).toBe('Hi.');
  });
});
