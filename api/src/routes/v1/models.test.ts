import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Letta from '@letta-ai/letta-client';
import { reservePort, startScriptedModelServer, startTestStack, type ScriptedModelServer, type TestStack } from '@engram/testing';

let stack: TestStack;
let base: ScriptedModelServer;
let byok: ScriptedModelServer;
let client: Letta;

beforeAll(async () => {
  base = await startScriptedModelServer({ models: ['gpt-4o-mini', 'text-embedding-3-small'] });
  byok = await startScriptedModelServer({ models: ['house-model', 'house-embedder'] });
  stack = await startTestStack({
    baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: base.url }],
    inProcessWorker: false,
  });
  client = new Letta({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
  const created = await fetch(`${stack.baseUrl}/v1/providers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'house', provider_type: 'openai', api_key: 'sk-house-key', base_url: byok.url }),
  });
  expect(created.status).toBe(200);
});

afterAll(async () => {
  await stack?.stop();
  await base?.close();
  await byok?.close();
});

const get = async (path: string, apiKey = stack.apiKey): Promise<any> =>
  (await fetch(`${stack.baseUrl}/v1${path}`, { headers: { authorization: `Bearer ${apiKey}` } })).json();

describe('GET /v1/models', () => {
  it("lists every provider's LLMs as ready-to-use configs, through the real client", async () => {
    const models = await client.models.list();
    expect(models.map((entry) => entry.handle).sort()).toEqual(['house/house-model', 'openai/gpt-4o-mini']);
    expect(models.find((entry) => entry.handle === 'openai/gpt-4o-mini')).toMatchObject({
      name: 'gpt-4o-mini',
      display_name: 'gpt-4o-mini',
      model: 'gpt-4o-mini',
      model_type: 'llm',
      model_endpoint_type: 'openai',
      model_endpoint: base.url,
      provider_name: 'openai',
      provider_type: 'openai',
      provider_category: 'base',
      context_window: 128_000,
      max_context_window: 128_000,
      temperature: 0.7,
      parallel_tool_calls: false,
    });
    expect(models.find((entry) => entry.handle === 'house/house-model')).toMatchObject({
      provider_category: 'byok',
      model_endpoint: byok.url,
      context_window: 32_000,
    });
  });

  it('filters by provider category, name and type', async () => {
    const handles = (models: Array<{ handle?: string | null }>) => models.map((entry) => entry.handle);
    expect(handles(await get('/models/?provider_category=byok'))).toEqual(['house/house-model']);
    expect(handles(await get('/models?provider_category=base&provider_category=byok'))).toHaveLength(2);
    expect(handles(await client.models.list({ provider_name: 'openai' }))).toEqual(['openai/gpt-4o-mini']);
    expect(await client.models.list({ provider_type: 'anthropic' })).toEqual([]);
  });

  it('lists embedding models separately', async () => {
    const embeddings = await client.models.embeddings.list();
    expect(embeddings.map((entry) => entry.handle).sort()).toEqual(['house/house-embedder', 'openai/text-embedding-3-small']);
    expect(embeddings.find((entry) => entry.handle === 'openai/text-embedding-3-small')).toMatchObject({
      name: 'text-embedding-3-small',
      embedding_model: 'text-embedding-3-small',
      embedding_endpoint_type: 'openai',
      embedding_endpoint: base.url,
      embedding_dim: 1536,
      embedding_chunk_size: 300,
      provider_name: 'openai',
      provider_type: 'openai',
      model_type: 'embedding',
    });
  });

  it('leaves out a provider it cannot reach instead of failing', async () => {
    const other = await stack.createTenant();
    // Reserved, not listened on: connections to it are refused.
    const port = await reservePort();
    const created = await fetch(`${stack.baseUrl}/v1/providers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other.apiKey.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'offline', provider_type: 'openai', api_key: 'sk-offline', base_url: `http://127.0.0.1:${port}/v1` }),
    });
    expect(created.status).toBe(200);

    // The other organization sees the base provider and its own offline one, never this organization's.
    const models = await get('/models', other.apiKey.key);
    expect(models.map((entry: { handle: string }) => entry.handle)).toEqual(['openai/gpt-4o-mini']);
  });
});
