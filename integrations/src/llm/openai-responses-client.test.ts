import { startOpenAiProtocolServer, type OpenAiProtocolServer } from '@engram/testing/model-server/protocols/openai';
import { protocolClientCases, requestFor } from '@engram/testing/model-server/protocols/client-cases';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createModelClient } from './client.js';
import { createEmbeddingClient } from './embeddings.js';
import type { ModelClientProvider } from './types.js';

const API_KEY = 'sk-scripted-key';
let server: OpenAiProtocolServer;

beforeAll(async () => {
  server = await startOpenAiProtocolServer({ apiKey: API_KEY, models: ['gpt-5-mini', 'my-gpt-deployment', 'text-embedding-3-small'] });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

type Body = Record<string, unknown> & { input?: Array<Record<string, unknown>>; messages?: Array<Record<string, unknown>> };

const modelRequests = () =>
  server.received.filter((request) => request.path.endsWith('/responses') || request.path.endsWith('/chat/completions')).map((request) => request.body as Body);

/** Tool results of either OpenAI API: Responses' `function_call_output` items, Chat Completions' tool messages. */
function toolResultsIn(body: Body): Array<[string, string]> {
  if (body.input) return body.input.filter((item) => item.type === 'function_call_output').map((item) => [item.call_id as string, item.output as string]);
  return (body.messages ?? []).filter((message) => message.role === 'tool').map((message) => [message.tool_call_id as string, message.content as string]);
}

const signaturesIn = (body: Body) =>
  (body.input ?? []).filter((item) => item.type === 'reasoning').map((item) => item.encrypted_content as string);

describe('the OpenAI Responses client', () => {
  const provider: () => ModelClientProvider = () => ({ providerType: 'openai', name: 'openai', apiKey: API_KEY, baseUrl: `${server.url}/v1` });
  protocolClientCases({
    server: () => server,
    settings: () => ({ model: 'gpt-5-mini', model_endpoint_type: 'openai', context_window: 128_000 }),
    complete: (request, onDelta) => createModelClient(provider()).complete(request, { onDelta }),
    completeWithBadCredentials: (request) => createModelClient({ ...provider(), apiKey: 'sk-wrong' }).complete(request, {}),
    modelRequests,
    toolResultsIn,
    signaturesIn,
    pairsById: true,
    providerName: 'openai',
    retryHintMs: 2000,
  });

  it('asks for encrypted reasoning and stores nothing at OpenAI', async () => {
    server.enqueue({ type: 'answer', text: 'ok' });
    await createModelClient(provider()).complete(requestFor({ settings: () => ({ model: 'gpt-5-mini', model_endpoint_type: 'openai', context_window: 1 }) } as never), {});
    const [sent] = modelRequests();
    expect(server.received[0]!.path).toBe('/v1/responses');
    expect(sent).toMatchObject({ model: 'gpt-5-mini', store: false, include: ['reasoning.encrypted_content'], reasoning: { summary: 'auto' } });
  });
});

describe('the Azure OpenAI client', () => {
  const provider: () => ModelClientProvider = () => ({ providerType: 'azure', name: 'my-azure', apiKey: API_KEY, baseUrl: server.url, apiVersion: '2025-03-01-preview' });
  protocolClientCases({
    server: () => server,
    settings: () => ({ model: 'my-gpt-deployment', model_endpoint_type: 'azure', context_window: 128_000 }),
    complete: (request, onDelta) => createModelClient(provider()).complete(request, { onDelta }),
    completeWithBadCredentials: (request) => createModelClient({ ...provider(), apiKey: 'wrong-azure-key' }).complete(request, {}),
    modelRequests,
    toolResultsIn,
    signaturesIn,
    pairsById: true,
    providerName: "azure provider 'my-azure'",
    retryHintMs: 1000,
  });

  it("calls the deployment's path with the api-version and the api-key header", async () => {
    server.enqueue({ type: 'answer', text: 'ok' });
    const settings = { model: 'my-gpt-deployment', model_endpoint_type: 'azure', context_window: 1 };
    await createModelClient(provider()).complete(requestFor({ settings: () => settings } as never), {});
    const [received] = server.received;
    expect(received!.path).toBe('/openai/deployments/my-gpt-deployment/chat/completions');
    expect(received!.query.get('api-version')).toBe('2025-03-01-preview');
    expect(received!.headers['api-key']).toBe(API_KEY);
    expect(received!.headers.authorization).toBeUndefined();
  });

  it('sends an Entra ID token as a bearer token instead of a key', async () => {
    server.enqueue({ type: 'answer', text: 'ok' });
    const settings = { model: 'my-gpt-deployment', model_endpoint_type: 'azure', context_window: 1 };
    const failure = await createModelClient({ ...provider(), apiKey: 'Bearer entra-token' })
      .complete(requestFor({ settings: () => settings } as never), {})
      .catch((error: unknown) => error);
    expect(server.received[0]!.headers.authorization).toBe('Bearer entra-token');
    // The scripted server knows keys only, so the token is refused: what matters is how it was sent.
    expect(failure).toMatchObject({ kind: 'authentication' });
  });

  it('embeds through the deployment', async () => {
    const vectors = await createEmbeddingClient(provider()).embed('text-embedding-3-small', ['alpha', 'beta']);
    expect(vectors).toHaveLength(2);
    expect(server.received[0]!.path).toBe('/openai/deployments/text-embedding-3-small/embeddings');
  });
});
