import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildAnthropicMessagesPayload, type ModelDelta, type ModelRequest } from '@engram/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelClient, type ModelClient } from './client.js';
import { ModelCallError } from './errors.js';

/** What the fake Messages API answers next: a JSON body, an SSE event list, or an error. */
type Reply =
  | { kind: 'json'; body: unknown }
  | { kind: 'events'; events: Array<[string, unknown]> }
  | { kind: 'error'; status: number; type: string; message: string };

let server: Server;
let replies: Reply[];
let received: unknown[];
let client: ModelClient;

beforeEach(async () => {
  replies = [];
  received = [];
  server = createServer((request, response) => {
    if (request.method === 'GET' && request.url?.startsWith('/v1/models')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: [{ id: 'claude-a', type: 'model' }, { id: 'claude-b', type: 'model' }], has_more: false }));
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      const reply = replies.shift();
      if (!reply || reply.kind === 'error') {
        const status = reply?.status ?? 500;
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ type: 'error', error: { type: reply?.type ?? 'api_error', message: reply?.message ?? 'no reply' } }));
      } else if (reply.kind === 'json') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
      } else {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const [event, data] of reply.events) response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        response.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = createModelClient({ providerType: 'anthropic', apiKey: 'test-key', baseUrl: `http://127.0.0.1:${port}/v1` });
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const request: ModelRequest = {
  settings: { model: 'claude-test-model', model_endpoint_type: 'anthropic', context_window: 200_000, max_tokens: null },
  messages: [
    { role: 'system', content: 'You are Engram.' },
    { role: 'user', content: 'Weather in Paris?' },
  ],
  tools: [
    {
      name: 'get_weather',
      description: 'Current weather.',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
  toolChoice: 'auto',
  parallelToolCalls: true,
  stream: false,
};

const message = (content: unknown[], stopReason: string) => ({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-test-model-20250101',
  content,
  stop_reason: stopReason,
  stop_sequence: null,
  usage: { input_tokens: 20, output_tokens: 7, cache_read_input_tokens: 5, cache_creation_input_tokens: 0 },
});

describe('the Anthropic client', () => {
  it('sends the built payload and reads text and tool_use blocks', async () => {
    replies.push({
      kind: 'json',
      body: message(
        [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
        ],
        'tool_use',
      ),
    });
    const turn = await client.complete(request, {});
    expect(received).toEqual([buildAnthropicMessagesPayload(request)]);
    expect(turn).toEqual({
      text: 'Checking.',
      reasoning: null,
      toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      finishReason: 'tool_calls',
      usage: { prompt_tokens: 25, completion_tokens: 7, total_tokens: 32, cached_input_tokens: 5 },
      model: 'claude-test-model-20250101',
    });
  });

  it('assembles a streamed answer, forwarding text and tool-call fragments', async () => {
    const start = message([], 'end_turn');
    replies.push({
      kind: 'events',
      events: [
        ['message_start', { type: 'message_start', message: { ...start, stop_reason: null, usage: { input_tokens: 20, output_tokens: 1 } } }],
        ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
        ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me ' } }],
        ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'check.' } }],
        ['content_block_stop', { type: 'content_block_stop', index: 0 }],
        [
          'content_block_start',
          { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_9', name: 'get_weather', input: {} } },
        ],
        ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } }],
        ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: ' "Paris"}' } }],
        ['content_block_stop', { type: 'content_block_stop', index: 1 }],
        ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 15 } }],
        ['message_stop', { type: 'message_stop' }],
      ],
    });
    const deltas: ModelDelta[] = [];
    const turn = await client.complete({ ...request, stream: true }, { onDelta: (delta) => deltas.push(delta) });
    expect(received[0]).toMatchObject({ stream: true });
    expect(deltas).toEqual([
      { kind: 'text', text: 'Let me ' },
      { kind: 'text', text: 'check.' },
      { kind: 'tool_call', index: 0, id: 'toolu_9', name: 'get_weather' },
      { kind: 'tool_call', index: 0, argumentsFragment: '{"city":' },
      { kind: 'tool_call', index: 0, argumentsFragment: ' "Paris"}' },
    ]);
    expect(turn).toMatchObject({
      text: 'Let me check.',
      toolCalls: [{ id: 'toolu_9', name: 'get_weather', arguments: '{"city": "Paris"}' }],
      finishReason: 'tool_calls',
      usage: { prompt_tokens: 20, completion_tokens: 15, total_tokens: 35 },
    });
  });

  it('classifies an error event inside a stream', async () => {
    replies.push({
      kind: 'events',
      events: [['error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }]],
    });
    const error = await client.complete({ ...request, stream: true }, {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ kind: 'server' });
    expect((error as Error).message).toContain('Overloaded');
  });

  it.each([
    { status: 429, type: 'rate_limit_error', message: 'Number of request tokens has exceeded your rate limit', kind: 'rate_limit' },
    { status: 529, type: 'overloaded_error', message: 'Overloaded', kind: 'server' },
    { status: 401, type: 'authentication_error', message: 'invalid x-api-key', kind: 'authentication' },
    { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum', kind: 'context_overflow' },
  ])('classifies HTTP $status as $kind', async ({ status, type, message: providerMessage, kind }) => {
    replies.push({ kind: 'error', status, type, message: providerMessage });
    const error = await client.complete(request, {}).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind, status });
    expect((error as Error).message).toContain(providerMessage);
  });

  it('lists models', async () => {
    expect(await client.listModels()).toEqual(['claude-a', 'claude-b']);
  });
});
