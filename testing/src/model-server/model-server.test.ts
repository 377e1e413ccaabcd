import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  InternalServerError,
  RateLimitError,
} from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NO_REPLY_LEFT_MESSAGE, startScriptedModelServer, type ScriptedModelServer } from './index.js';

// Node timers may fire up to a millisecond early against performance.now(), so allow a little slack.
const TIMER_SLACK_MS = 5;

const conversation: ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a careful assistant.' },
  { role: 'user', content: 'What is the weather in Paris?' },
];

let server: ScriptedModelServer;
let client: OpenAI;

beforeEach(async () => {
  server = await startScriptedModelServer();
  client = new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0 });
});

afterEach(async () => {
  await server.close();
});

async function collectChunks(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

function contentDeltas(chunks: ChatCompletionChunk[]): string[] {
  return chunks.map((chunk) => chunk.choices[0]?.delta.content).filter((content): content is string => !!content);
}

/** Reassembles streamed tool calls the way a client must: by index, appending argument fragments. */
function assembleToolCalls(chunks: ChatCompletionChunk[]) {
  const calls = new Map<number, { id: string; name: string; arguments: string; fragments: number }>();
  for (const delta of chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? [])) {
    const call = calls.get(delta.index) ?? { id: '', name: '', arguments: '', fragments: 0 };
    if (delta.id) call.id = delta.id;
    if (delta.function?.name) call.name = delta.function.name;
    if (delta.function?.arguments) {
      call.arguments += delta.function.arguments;
      call.fragments += 1;
    }
    calls.set(delta.index, call);
  }
  return calls;
}

describe('chat completions without streaming', () => {
  it('answers with the scripted text, echoing the model and estimating usage', async () => {
    server.enqueue({ type: 'text', text: 'It is sunny in Paris.' });

    const completion = await client.chat.completions.create({ model: 'gpt-test', messages: conversation });

    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-test');
    expect(completion.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'It is sunny in Paris.' });
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    const promptCharacters = conversation.reduce((sum, message) => sum + String(message.content).length, 0);
    expect(completion.usage).toEqual({
      prompt_tokens: Math.ceil(promptCharacters / 4),
      completion_tokens: Math.ceil('It is sunny in Paris.'.length / 4),
      total_tokens: Math.ceil(promptCharacters / 4) + Math.ceil('It is sunny in Paris.'.length / 4),
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.messages).toEqual(conversation);
    expect(server.pending()).toBe(0);
  });

  it('fills scripted partial usage and the scripted finish reason', async () => {
    server.enqueue({ type: 'text', text: 'Cut off', finishReason: 'length', usage: { prompt_tokens: 1000 } });

    const completion = await client.chat.completions.create({ model: 'gpt-test', messages: conversation });

    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage).toEqual({ prompt_tokens: 1000, completion_tokens: 2, total_tokens: 1002 });
  });

  it('returns parallel tool calls with scripted and generated ids', async () => {
    server.enqueue({
      type: 'tool_calls',
      calls: [
        { id: 'call_weather', name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_time', arguments: '{"zone":"Europe/Paris"}' },
      ],
    });

    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: conversation,
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
    });

    const message = completion.choices[0]?.message;
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(message?.content).toBeNull();
    expect(message?.tool_calls).toHaveLength(2);
    expect(message?.tool_calls?.[0]).toEqual({
      id: 'call_weather',
      type: 'function',
      function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    });
    const generated = message?.tool_calls?.[1];
    expect(generated?.type === 'function' && generated.function).toEqual({
      name: 'get_time',
      arguments: '{"zone":"Europe/Paris"}',
    });
    expect(generated?.id).toMatch(/^call_/);
    expect(generated?.id).not.toBe('call_weather');
    expect(server.requests[0]?.tools?.[0]?.function.name).toBe('get_weather');
  });
});

describe('chat completions with streaming', () => {
  it('streams text word by word, reasoning first, ending with the finish reason', async () => {
    const text = 'The weather in Paris is sunny and mild today.';
    server.enqueue({ type: 'text', text, reasoning: 'The user asks about Paris.' });

    const chunks = await collectChunks(
      await client.chat.completions.create({ model: 'gpt-test', messages: conversation, stream: true }),
    );

    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const deltas = contentDeltas(chunks);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(text);
    const reasoning = chunks
      .map((chunk) => (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content)
      .filter((piece): piece is string => piece !== undefined);
    expect(reasoning.join('')).toBe('The user asks about Paris.');
    const firstReasoning = chunks.findIndex((chunk) => 'reasoning_content' in (chunk.choices[0]?.delta ?? {}));
    const firstContent = chunks.findIndex((chunk) => !!chunk.choices[0]?.delta.content);
    expect(firstReasoning).toBeLessThan(firstContent);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'gpt-test')).toBe(true);
    expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
  });

  it('streams a tool call whose arguments arrive in several fragments', async () => {
    const args = { query: 'weather in Paris', limit: 3 };
    server.enqueue({ type: 'tool_calls', calls: [{ id: 'call_search', name: 'search', arguments: args }] });

    const chunks = await collectChunks(
      await client.chat.completions.create({ model: 'gpt-test', messages: conversation, stream: true }),
    );

    const firstToolDelta = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? [])[0];
    expect(firstToolDelta).toEqual({
      index: 0,
      id: 'call_search',
      type: 'function',
      function: { name: 'search', arguments: '' },
    });
    const calls = assembleToolCalls(chunks);
    expect(calls.size).toBe(1);
    expect(calls.get(0)?.fragments).toBeGreaterThan(1);
    expect(JSON.parse(calls.get(0)?.arguments ?? '')).toEqual(args);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('streams parallel tool calls under separate indexes', async () => {
    server.enqueue({
      type: 'tool_calls',
      text: 'Let me check both.',
      calls: [
        { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'call_b', name: 'get_weather', arguments: { city: 'Berlin' } },
      ],
    });

    const chunks = await collectChunks(
      await client.chat.completions.create({ model: 'gpt-test', messages: conversation, stream: true }),
    );

    expect(contentDeltas(chunks).join('')).toBe('Let me check both.');
    const calls = assembleToolCalls(chunks);
    expect([...calls.keys()]).toEqual([0, 1]);
    expect(calls.get(0)).toMatchObject({ id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(calls.get(1)).toMatchObject({ id: 'call_b', name: 'get_weather', arguments: '{"city":"Berlin"}' });
  });

  it('lets the SDK stream helper assemble the final message', async () => {
    server.enqueue({ type: 'tool_calls', calls: [{ id: 'call_x', name: 'lookup', arguments: { key: 'k' } }] });

    const final = await client.chat.completions
      .stream({ model: 'gpt-test', messages: conversation })
      .finalChatCompletion();

    expect(final.choices[0]?.message.tool_calls).toEqual([
      { id: 'call_x', type: 'function', function: { name: 'lookup', arguments: '{"key":"k"}' } },
    ]);
  });

  it('sends a usage chunk with no choices only when include_usage is asked for', async () => {
    server.enqueue(
      { type: 'text', text: 'Counted words here.', usage: { prompt_tokens: 11, completion_tokens: 4 } },
      { type: 'text', text: 'Not counted.' },
    );

    const withUsage = await collectChunks(
      await client.chat.completions.create({
        model: 'gpt-test',
        messages: conversation,
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    const withoutUsage = await collectChunks(
      await client.chat.completions.create({ model: 'gpt-test', messages: conversation, stream: true }),
    );

    const usageChunk = withUsage.at(-1);
    expect(usageChunk?.choices).toEqual([]);
    expect(usageChunk?.usage).toEqual({ prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 });
    expect(withUsage.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(withUsage.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    expect(withoutUsage.every((chunk) => chunk.choices.length === 1 && chunk.usage === undefined)).toBe(true);
  });

  it('pauses chunkDelayMs between chunks', async () => {
    server.enqueue({ type: 'text', text: 'one two three four', chunkDelayMs: 30 });

    // Measured from the request, not between arrivals: a busy client may read several chunks at once,
    // but the last one cannot leave the server before the three pauses have passed.
    const started = performance.now();
    const stream = await client.chat.completions.create({ model: 'gpt-test', messages: conversation, stream: true });
    const arrivals: number[] = [];
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) arrivals.push(performance.now());

    expect(arrivals).toHaveLength(4);
    expect((arrivals.at(-1) ?? 0) - started).toBeGreaterThanOrEqual(3 * 30 - TIMER_SLACK_MS);
  });
});

describe('scripted failures', () => {
  it('surfaces a 429 as RateLimitError with retry-after 0 and the OpenAI error shape', async () => {
    server.enqueue({ type: 'error', status: 429, message: 'Rate limit reached' });

    const error = await client.chat.completions
      .create({ model: 'gpt-test', messages: conversation })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(RateLimitError);
    const rateLimit = error as RateLimitError;
    expect(rateLimit.status).toBe(429);
    expect(rateLimit.message).toContain('Rate limit reached');
    expect(rateLimit.code).toBe('rate_limit_exceeded');
    expect(rateLimit.headers.get('retry-after')).toBe('0');
  });

  it('surfaces a 500 as InternalServerError, streaming or not, with the scripted code', async () => {
    server.enqueue(
      { type: 'error', status: 500, message: 'The server had an error', code: 'server_oops' },
      { type: 'error', status: 503, message: 'Overloaded' },
    );

    const plain = await client.chat.completions
      .create({ model: 'gpt-test', messages: conversation })
      .catch((caught: unknown) => caught);
    const streamed = await client.chat.completions
      .create({ model: 'gpt-test', messages: conversation, stream: true })
      .catch((caught: unknown) => caught);

    expect(plain).toBeInstanceOf(InternalServerError);
    expect((plain as InternalServerError).status).toBe(500);
    expect((plain as InternalServerError).code).toBe('server_oops');
    expect((plain as InternalServerError).message).toContain('The server had an error');
    expect(streamed).toBeInstanceOf(InternalServerError);
    expect((streamed as InternalServerError).status).toBe(503);
  });

  it('uses the OpenAI error body over plain HTTP', async () => {
    server.enqueue({ type: 'error', status: 400, message: 'Bad tools' });

    const response = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-test', messages: [] }),
    });

    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { message: 'Bad tools', type: 'invalid_request_error', param: null, code: null },
    });
  });

  it('makes the SDK throw on a malformed body, streaming or not', async () => {
    const quietClient = new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0, logLevel: 'off' });
    server.enqueue({ type: 'malformed' }, { type: 'malformed' });

    await expect(quietClient.chat.completions.create({ model: 'gpt-test', messages: conversation })).rejects.toThrow(
      SyntaxError,
    );
    const stream = await quietClient.chat.completions.create({ model: 'gpt-test', messages: conversation, stream: true });
    await expect(collectChunks(stream)).rejects.toThrow(SyntaxError);
  });

  it('lets a hanging request be aborted by the client and still closes cleanly', async () => {
    server.enqueue({ type: 'hang' }, { type: 'hang' });

    const aborter = new AbortController();
    const aborted = client.chat.completions.create({ model: 'gpt-test', messages: conversation }, { signal: aborter.signal });
    setTimeout(() => aborter.abort(), 50);
    await expect(aborted).rejects.toBeInstanceOf(APIUserAbortError);

    await expect(
      client.chat.completions.create({ model: 'gpt-test', messages: conversation }, { timeout: 50 }),
    ).rejects.toBeInstanceOf(APIConnectionTimeoutError);

    await expect(server.close()).resolves.toBeUndefined();
    expect(server.requests).toHaveLength(2);
  });

  it('ends a still-hanging request when the server closes', async () => {
    server.enqueue({ type: 'hang' });

    const hanging = client.chat.completions.create({ model: 'gpt-test', messages: conversation });
    await expect.poll(() => server.requests.length).toBe(1);
    await server.close();

    await expect(hanging).rejects.toBeInstanceOf(APIConnectionError);
  });

  it('waits delayMs before answering', async () => {
    server.enqueue({ type: 'text', text: 'Finally.', delayMs: 200 }, { type: 'text', text: 'Streamed late.', delayMs: 200 });

    const plainStart = performance.now();
    const completion = await client.chat.completions.create({ model: 'gpt-test', messages: conversation });
    const plainElapsed = performance.now() - plainStart;

    const streamStart = performance.now();
    const chunks = await collectChunks(
      await client.chat.completions.create({ model: 'gpt-test', messages: conversation, stream: true }),
    );
    const streamElapsed = performance.now() - streamStart;

    expect(completion.choices[0]?.message.content).toBe('Finally.');
    expect(plainElapsed).toBeGreaterThanOrEqual(200 - TIMER_SLACK_MS);
    expect(contentDeltas(chunks).join('')).toBe('Streamed late.');
    expect(streamElapsed).toBeGreaterThanOrEqual(200 - TIMER_SLACK_MS);
  });

  it('answers 500 with a clear message once the script is exhausted', async () => {
    server.enqueue({ type: 'text', text: 'Only one.' });
    await client.chat.completions.create({ model: 'gpt-test', messages: conversation });

    const error = await client.chat.completions
      .create({ model: 'gpt-test', messages: conversation })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).status).toBe(500);
    expect((error as InternalServerError).message).toContain(NO_REPLY_LEFT_MESSAGE);
    expect(server.requests).toHaveLength(2);
  });
});

describe('dynamic responses', () => {
  it('answers parallel agents from an onRequest handler keyed on their system prompt', async () => {
    server.onRequest((request) => {
      const system = request.messages.find((message) => message.role === 'system')?.content;
      return typeof system === 'string' ? { type: 'text', text: `reply to ${system}` } : undefined;
    });

    const agents = ['agent-1', 'agent-2', 'agent-3', 'agent-4'];
    const replies = await Promise.all(
      agents.map((agent) =>
        client.chat.completions.create({
          model: 'gpt-test',
          messages: [
            { role: 'system', content: agent },
            { role: 'user', content: 'hi' },
          ],
        }),
      ),
    );

    expect(replies.map((reply) => reply.choices[0]?.message.content)).toEqual(agents.map((agent) => `reply to ${agent}`));
    expect(server.requests).toHaveLength(agents.length);
  });

  it('serves queued steps before the handler, honouring match', async () => {
    server.onRequest(() => ({ type: 'text', text: 'from handler' }));
    server.enqueue(
      { type: 'text', text: 'for bob', match: (request) => JSON.stringify(request.messages).includes('bob') },
      { type: 'text', text: 'for anyone' },
    );
    const ask = async (content: string) =>
      (await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content }] })).choices[0]
        ?.message.content;

    expect(await ask('alice')).toBe('for anyone');
    expect(server.pending()).toBe(1);
    expect(await ask('alice')).toBe('from handler');
    expect(await ask('bob')).toBe('for bob');
    expect(server.pending()).toBe(0);
  });

  it('falls through handlers that return undefined to the exhausted-script error', async () => {
    server.onRequest(() => undefined);

    await expect(client.chat.completions.create({ model: 'gpt-test', messages: conversation })).rejects.toThrow(
      NO_REPLY_LEFT_MESSAGE,
    );
  });

  it('forgets the script, handlers and records on reset', async () => {
    server.enqueue({ type: 'text', text: 'left over' });
    server.onRequest(() => ({ type: 'text', text: 'handled' }));
    await client.embeddings.create({ model: 'embed', input: 'x' });
    server.models = ['other'];

    server.reset();

    expect(server.pending()).toBe(0);
    expect(server.embeddingRequests).toEqual([]);
    expect(server.models).toEqual(['scripted-model']);
    await expect(client.chat.completions.create({ model: 'gpt-test', messages: conversation })).rejects.toThrow(
      NO_REPLY_LEFT_MESSAGE,
    );
    expect(server.requests).toHaveLength(1);
  });
});

describe('embeddings', () => {
  const length = (vector: number[]) => Math.sqrt(vector.reduce((sum, component) => sum + component * component, 0));

  it('returns deterministic unit vectors of the configured dimension and records the request', async () => {
    const first = await client.embeddings.create({ model: 'embed-test', input: ['alpha', 'beta'] });
    const again = await client.embeddings.create({ model: 'embed-test', input: 'alpha' });

    const [alpha, beta] = first.data.map((item) => item.embedding);
    expect(alpha).toHaveLength(32);
    expect(beta).toHaveLength(32);
    expect(again.data[0]?.embedding).toEqual(alpha);
    expect(beta).not.toEqual(alpha);
    expect(length(alpha ?? [])).toBeCloseTo(1, 5);
    expect(first.model).toBe('embed-test');
    expect(first.usage).toEqual({ prompt_tokens: 2 + 1, total_tokens: 3 });
    expect(server.embeddingRequests).toEqual([
      { model: 'embed-test', input: ['alpha', 'beta'] },
      { model: 'embed-test', input: ['alpha'] },
    ]);
  });

  it('uses the dimension set later, in float and base64 encodings alike', async () => {
    server.setEmbeddingDimension(8);

    const base64 = await client.embeddings.create({ model: 'embed-test', input: 'gamma' });
    const float = await client.embeddings.create({ model: 'embed-test', input: 'gamma', encoding_format: 'float' });

    expect(base64.data[0]?.embedding).toHaveLength(8);
    expect(float.data[0]?.embedding).toHaveLength(8);
    float.data[0]?.embedding.forEach((component, index) => {
      expect(base64.data[0]?.embedding[index]).toBeCloseTo(component, 6);
    });
    expect(() => server.setEmbeddingDimension(0)).toThrow(RangeError);
  });
});

describe('models and routing', () => {
  it('lists the configured model ids and picks up reassignment', async () => {
    const custom = await startScriptedModelServer({ models: ['model-a', 'model-b'] });
    try {
      const customClient = new OpenAI({ baseURL: custom.url, apiKey: 'test', maxRetries: 0 });
      const listed = [];
      for await (const model of customClient.models.list()) listed.push(model);
      expect(listed).toEqual([
        { id: 'model-a', object: 'model', created: expect.any(Number), owned_by: 'engram-test' },
        { id: 'model-b', object: 'model', created: expect.any(Number), owned_by: 'engram-test' },
      ]);

      custom.models = ['model-c'];
      const relisted = await customClient.models.list();
      expect(relisted.data.map((model) => model.id)).toEqual(['model-c']);
    } finally {
      await custom.close();
    }
  });

  it('serves the same routes without /v1 and with or without an Authorization header', async () => {
    const root = server.url.replace(/\/v1$/, '');
    server.enqueue({ type: 'text', text: 'no prefix' });

    const models = await fetch(`${root}/models`);
    const completion = await fetch(`${root}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-anything' },
      body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
    });

    expect(models.status).toBe(200);
    expect(((await models.json()) as { data: Array<{ id: string }> }).data.map((model) => model.id)).toEqual([
      'scripted-model',
    ]);
    expect(completion.status).toBe(200);
    const body = (await completion.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]?.message.content).toBe('no prefix');
  });

  it('rejects requests that are not chat completions with a 400 in the OpenAI shape', async () => {
    const response = await fetch(`${server.url}/chat/completions`, { method: 'POST', body: 'not json' });

    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    expect(server.requests).toEqual([]);
  });
});
