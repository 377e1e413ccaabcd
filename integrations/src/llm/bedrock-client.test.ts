import { startBedrockProtocolServer, type BedrockProtocolServer } from '@engram/testing/model-server/protocols/bedrock';
import { protocolClientCases } from '@engram/testing/model-server/protocols/client-cases';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createModelClient } from './client.js';
import { createEmbeddingClient } from './embeddings.js';
import type { ModelClientProvider } from './types.js';

const CREDENTIALS = { accessKeyId: 'AKIASCRIPTEDTEST0001', secretAccessKey: 'scripted/secret+access/key', region: 'eu-central-1' };
let server: BedrockProtocolServer;

beforeAll(async () => {
  server = await startBedrockProtocolServer(CREDENTIALS);
});
afterAll(() => server.close());
beforeEach(() => server.reset());

type Block = Record<string, unknown>;
type Body = { messages: Array<{ role: string; content: Block[] }> };

const provider = (): ModelClientProvider => ({
  providerType: 'bedrock',
  name: 'my-bedrock',
  accessKey: CREDENTIALS.accessKeyId,
  apiKey: CREDENTIALS.secretAccessKey,
  region: CREDENTIALS.region,
  baseUrl: server.url,
});

const modelRequests = () => server.received.filter((request) => /\/converse(-stream)?$/.test(request.path)).map((request) => request.body as Record<string, unknown>);

function toolResultsIn(body: Record<string, unknown>): Array<[string, string]> {
  return (body as Body).messages.flatMap((message) =>
    message.content.flatMap((block) => {
      const result = block.toolResult as { toolUseId: string; content: Array<{ text: string }> } | undefined;
      return result ? [[result.toolUseId, result.content[0]!.text] as [string, string]] : [];
    }),
  );
}

const signaturesIn = (body: Record<string, unknown>) =>
  (body as Body).messages.flatMap((message) =>
    message.content.flatMap((block) => {
      const signature = (block.reasoningContent as { reasoningText?: { signature?: string } } | undefined)?.reasoningText?.signature;
      return signature ? [signature] : [];
    }),
  );

const MODEL = 'anthropic.claude-sonnet-4-20250514-v1:0';

describe('the Bedrock client', () => {
  protocolClientCases({
    server: () => server,
    settings: () => ({ model: MODEL, model_endpoint_type: 'bedrock', context_window: 200_000 }),
    complete: (request, onDelta) => createModelClient(provider()).complete(request, { onDelta }),
    completeWithBadCredentials: (request) => createModelClient({ ...provider(), apiKey: 'not-the-secret' }).complete(request, {}),
    modelRequests,
    toolResultsIn,
    signaturesIn,
    pairsById: true,
    providerName: "bedrock provider 'my-bedrock'",
    retryHintMs: 1000,
  });

  it('signs Converse with SigV4 for the region, the model id in the path', async () => {
    server.enqueue({ type: 'answer', text: 'ok' });
    await createModelClient(provider()).complete(
      { settings: { model: MODEL, model_endpoint_type: 'bedrock', context_window: 1, enable_reasoner: true }, messages: [{ role: 'user', content: 'hi' }], tools: [], toolChoice: 'auto', parallelToolCalls: false, stream: false },
      {},
    );
    const [received] = server.received;
    expect(received!.path).toBe('/model/anthropic.claude-sonnet-4-20250514-v1%3A0/converse');
    expect(received!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIASCRIPTEDTEST0001\/\d{8}\/eu-central-1\/bedrock\/aws4_request/);
    expect(received!.body).toMatchObject({ additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } } });
  });

  it('lists the foundation models from the control plane', async () => {
    expect(await createModelClient(provider()).listModels()).toEqual(['anthropic.claude-sonnet-4-20250514-v1:0', 'amazon.nova-pro-v1:0']);
  });

  it('embeds with Titan, one text a request, and with Cohere, a batch', async () => {
    const embedder = createEmbeddingClient(provider());
    expect(await embedder.embed('amazon.titan-embed-text-v2:0', ['alpha', 'beta'])).toHaveLength(2);
    expect(await embedder.embed('cohere.embed-english-v3', ['alpha', 'beta', 'gamma'])).toHaveLength(3);
    expect(server.received.map((request) => request.path)).toEqual([
      '/model/amazon.titan-embed-text-v2%3A0/invoke',
      '/model/amazon.titan-embed-text-v2%3A0/invoke',
      '/model/cohere.embed-english-v3/invoke',
    ]);
  });
});
