import { startGeminiProtocolServer, type GeminiProtocolServer } from '@engram/testing/model-server/protocols/gemini';
import { protocolClientCases } from '@engram/testing/model-server/protocols/client-cases';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createModelClient } from './client.js';
import { createEmbeddingClient } from './embeddings.js';
import type { ModelClientProvider } from './types.js';

const API_KEY = 'gemini-scripted-key';
let server: GeminiProtocolServer;

beforeAll(async () => {
  server = await startGeminiProtocolServer({ apiKey: API_KEY });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

type Content = { role: string; parts: Array<Record<string, unknown>> };
type Body = { contents: Content[] };

const modelRequests = () => server.received.filter((request) => /:(stream)?[gG]enerateContent$/.test(request.path)).map((request) => request.body as Record<string, unknown>);

function toolResultsIn(body: Record<string, unknown>): Array<[string, string]> {
  return (body as Body).contents.flatMap((content) =>
    content.parts.flatMap((part) => {
      const result = part.functionResponse as { name: string; response: { result: string } } | undefined;
      return result ? [[result.name, result.response.result] as [string, string]] : [];
    }),
  );
}

const signaturesIn = (body: Record<string, unknown>) =>
  (body as Body).contents.flatMap((content) => content.parts.flatMap((part) => (typeof part.thoughtSignature === 'string' ? [part.thoughtSignature] : [])));

describe('the Gemini API client', () => {
  const provider = (): ModelClientProvider => ({ providerType: 'google_ai', name: 'google_ai', apiKey: API_KEY, baseUrl: server.url });
  protocolClientCases({
    server: () => server,
    settings: () => ({ model: 'gemini-2.5-flash', model_endpoint_type: 'google_ai', context_window: 1_048_576 }),
    complete: (request, onDelta) => createModelClient(provider()).complete(request, { onDelta }),
    completeWithBadCredentials: (request) => createModelClient({ ...provider(), apiKey: 'wrong-key' }).complete(request, {}),
    modelRequests,
    toolResultsIn,
    signaturesIn,
    pairsById: false,
    providerName: 'google_ai provider',
    retryHintMs: 3000,
  });

  it('sends the key in x-goog-api-key to the model path, and lists models by id', async () => {
    expect(await createModelClient(provider()).listModels()).toEqual(['gemini-2.5-flash', 'text-embedding-004']);
    expect(server.received[0]!.path).toBe('/v1beta/models');
    expect(server.received[0]!.headers['x-goog-api-key']).toBe(API_KEY);
  });

  it('embeds a batch of texts', async () => {
    const vectors = await createEmbeddingClient(provider()).embed('text-embedding-004', ['alpha', 'beta', 'gamma']);
    expect(vectors).toHaveLength(3);
    expect(vectors[0]).toHaveLength(32);
    expect(server.received[0]!.path).toBe('/v1beta/models/text-embedding-004:batchEmbedContents');
  });
});

describe('the Vertex AI client', () => {
  const provider = (): ModelClientProvider => ({
    providerType: 'google_vertex',
    name: 'my-vertex',
    apiKey: JSON.stringify(server.serviceAccount),
    baseUrl: server.url,
    region: 'europe-west4',
  });
  protocolClientCases({
    server: () => server,
    settings: () => ({ model: 'gemini-2.5-pro', model_endpoint_type: 'google_vertex', context_window: 1_048_576 }),
    complete: (request, onDelta) => createModelClient(provider()).complete(request, { onDelta }),
    completeWithBadCredentials: (request) =>
      createModelClient({ ...provider(), apiKey: JSON.stringify({ ...server.serviceAccount, client_email: 'intruder@elsewhere.iam.gserviceaccount.com' }) }).complete(request, {}),
    modelRequests,
    toolResultsIn,
    signaturesIn,
    pairsById: false,
    providerName: "google_vertex provider 'my-vertex'",
    retryHintMs: 2000,
  });

  it("calls the project's regional model path with a bearer token the service account got from its token_uri", async () => {
    server.enqueue({ type: 'answer', text: 'ok' });
    await createModelClient(provider()).complete(
      {
        settings: { model: 'gemini-2.5-pro', model_endpoint_type: 'google_vertex', context_window: 1 },
        messages: [{ role: 'user', content: 'hi' }],
        tools: [],
        toolChoice: 'auto',
        parallelToolCalls: false,
        stream: false,
      },
      {},
    );
    const [exchange, call] = server.received;
    expect(exchange!.path).toBe('/token');
    expect(call!.path).toBe('/v1beta1/projects/engram-test-project/locations/europe-west4/publishers/google/models/gemini-2.5-pro:generateContent');
    expect(server.issuedTokens).toContain(call!.headers.authorization?.replace('Bearer ', ''));
  });

  it('embeds through predict', async () => {
    const vectors = await createEmbeddingClient(provider()).embed('text-embedding-005', ['alpha', 'beta']);
    expect(vectors).toHaveLength(2);
    expect(server.received.at(-1)!.path).toMatch(/publishers\/google\/models\/text-embedding-005:predict$/);
  });
});
