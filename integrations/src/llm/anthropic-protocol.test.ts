import { startAnthropicProtocolServer } from '@engram/testing/model-server/protocols/anthropic';
import { protocolClientCases } from '@engram/testing/model-server/protocols/client-cases';
import type { ProtocolServer } from '@engram/testing/model-server/protocols/script';
import { afterAll, beforeAll, beforeEach, describe } from 'vitest';
import { createModelClient } from './client.js';
import type { ModelClientProvider } from './types.js';

const API_KEY = 'sk-ant-scripted';
let server: ProtocolServer;

beforeAll(async () => {
  server = await startAnthropicProtocolServer({ apiKey: API_KEY });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

type Block = Record<string, unknown>;
type Body = { messages: Array<{ role: string; content: Block[] }> };

const provider = (): ModelClientProvider => ({ providerType: 'anthropic', name: 'anthropic', apiKey: API_KEY, baseUrl: `${server.url}/v1` });

describe('the Anthropic client, on the protocol cases', () => {
  protocolClientCases({
    server: () => server,
    settings: () => ({ model: 'claude-sonnet-4-5', model_endpoint_type: 'anthropic', context_window: 200_000 }),
    complete: (request, onDelta) => createModelClient(provider()).complete(request, { onDelta }),
    completeWithBadCredentials: (request) => createModelClient({ ...provider(), apiKey: 'sk-ant-wrong' }).complete(request, {}),
    modelRequests: () => server.received.filter((request) => request.path === '/v1/messages').map((request) => request.body as Record<string, unknown>),
    toolResultsIn: (body) =>
      (body as Body).messages.flatMap((message) =>
        message.content.flatMap((block) => (block.type === 'tool_result' ? [[block.tool_use_id as string, block.content as string] as [string, string]] : [])),
      ),
    signaturesIn: (body) =>
      (body as Body).messages.flatMap((message) => message.content.flatMap((block) => (block.type === 'thinking' ? [block.signature as string] : []))),
    pairsById: true,
    providerName: 'anthropic provider',
    retryHintMs: 1000,
  });
});
