import Letta from '@letta-ai/letta-client';
import { startAnthropicProtocolServer } from '@engram/testing/model-server/protocols/anthropic';
import { startBedrockProtocolServer } from '@engram/testing/model-server/protocols/bedrock';
import { startGeminiProtocolServer } from '@engram/testing/model-server/protocols/gemini';
import { startOpenAiProtocolServer } from '@engram/testing/model-server/protocols/openai';
import type { ProtocolServer } from '@engram/testing/model-server/protocols/script';
import { startTestStack } from '@engram/testing/stack';
import { afterAll, describe, expect, it } from 'vitest';

const AWS = { accessKeyId: 'AKIASCRIPTEDSTACK001', secretAccessKey: 'stack/secret/key', region: 'us-west-2' };
const openai = await startOpenAiProtocolServer({ apiKey: 'sk-openai', models: ['gpt-5-mini', 'my-deployment', 'text-embedding-3-small'] });
const anthropic = await startAnthropicProtocolServer({ apiKey: 'sk-ant' });
const gemini = await startGeminiProtocolServer({ apiKey: 'gemini-key', models: ['gemini-2.5-flash', 'text-embedding-004'] });
const bedrock = await startBedrockProtocolServer(AWS);

// Every protocol as an operator configures it from the environment (parseBaseProviders' shapes).
const stack = await startTestStack({
  baseProviders: [
    { name: 'openai', providerType: 'openai', apiKey: 'sk-openai', baseUrl: `${openai.url}/v1` },
    { name: 'anthropic', providerType: 'anthropic', apiKey: 'sk-ant', baseUrl: `${anthropic.url}/v1` },
    { name: 'google_ai', providerType: 'google_ai', apiKey: 'gemini-key', baseUrl: gemini.url },
    { name: 'google_vertex', providerType: 'google_vertex', apiKey: JSON.stringify(gemini.serviceAccount), baseUrl: gemini.url, region: 'us-central1', project: 'engram-test-project' },
    { name: 'azure', providerType: 'azure', apiKey: 'sk-openai', baseUrl: openai.url, apiVersion: '2025-03-01-preview' },
    { name: 'bedrock', providerType: 'bedrock', apiKey: AWS.secretAccessKey, accessKey: AWS.accessKeyId, region: AWS.region, baseUrl: bedrock.url },
  ],
});
const client = new Letta({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });

afterAll(async () => {
  await stack.stop();
  await Promise.all([openai.close(), anthropic.close(), gemini.close(), bedrock.close()]);
});

type Json = Record<string, unknown>;

async function v1(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${stack.baseUrl}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** The model requests a server received, in order (model lists, token exchanges and embeddings left out). */
const modelRequests = (server: ProtocolServer) =>
  server.received.filter((request) => /\/(responses|chat\/completions|messages|converse(-stream)?|models\/[^/]+:(stream)?[gG]enerateContent)$/.test(request.path)).map((request) => request.body as Json);

describe('model providers of every protocol', () => {
  it('lists the base providers of every type with their models and context windows', async () => {
    const { body: models } = await v1('GET', '/models/');
    const handles = (models as Array<{ handle: string; context_window: number }>).map((model) => model.handle);
    expect(handles).toEqual(
      expect.arrayContaining([
        'openai/gpt-5-mini',
        'anthropic/claude-sonnet-4-5',
        'google_ai/gemini-2.5-flash',
        'google_vertex/gemini-2.5-flash',
        'azure/my-deployment',
        'bedrock/anthropic.claude-sonnet-4-20250514-v1:0',
      ]),
    );
    const bedrockModel = (models as Array<{ handle: string; context_window: number; model_endpoint_type: string }>).find((model) => model.handle.startsWith('bedrock/anthropic.'));
    expect(bedrockModel).toMatchObject({ model_endpoint_type: 'bedrock', context_window: 128_000 });
  });

  it('keeps one agent working as it moves between providers mid-conversation, its tool calls and reasoning converted for each', async () => {
    const agent = await client.agents.create({ model: 'anthropic/claude-sonnet-4-5', include_base_tools: false, tools: ['archival_memory_insert'] });
    const { body: models } = await v1('GET', '/models/');
    /** Moves the agent to a model of another provider, asking for its reasoning. */
    const switchTo = async (handle: string) => {
      const config = (models as Array<Json & { handle: string }>).find((model) => model.handle === handle);
      expect(config, handle).toBeDefined();
      const updated = await v1('PATCH', `/agents/${agent.id}`, { llm_config: { ...config, enable_reasoner: true } });
      expect(updated.status).toBe(200);
    };
    /** One turn: the model reasons, stores a memory with a tool call, then answers. */
    const turn = async (server: ProtocolServer, name: string) => {
      server.enqueue(
        { type: 'answer', reasoning: `Thinking on ${name}.`, signature: `sig-${name}`, calls: [{ name: 'archival_memory_insert', arguments: { content: `Fact told to ${name}.` } }] },
        { type: 'answer', text: `Stored by ${name}.` },
      );
      const response = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: `Remember this, ${name}.` }] });
      expect(response.stop_reason).toMatchObject({ stop_reason: 'end_turn' });
      const types = response.messages.map((message) => message.message_type);
      expect(types).toEqual(['reasoning_message', 'tool_call_message', 'tool_return_message', 'assistant_message']);
      expect(response.messages[0]).toMatchObject({ reasoning: `Thinking on ${name}.`, source: 'reasoner_model' });
      expect(response.messages.at(-1)).toMatchObject({ content: `Stored by ${name}.` });
      const [first, second] = modelRequests(server).slice(-2) as [Json, Json];
      // Within the run, the step after the tool call sends this provider's own reasoning back, signed.
      expect(JSON.stringify(second)).toContain(`sig-${name}`);
      return first;
    };

    await switchTo('anthropic/claude-sonnet-4-5');
    await turn(anthropic, 'anthropic');

    await switchTo('google_ai/gemini-2.5-flash');
    const toGemini = await turn(gemini, 'gemini');
    // Anthropic's tool call and its result reach Gemini as a function call and a function response; its signed
    // thinking does not (no other provider can verify it).
    const geminiParts = (toGemini.contents as Array<{ parts: Json[] }>).flatMap((content) => content.parts);
    expect(geminiParts).toContainEqual({ functionCall: { name: 'archival_memory_insert', args: { content: 'Fact told to anthropic.' } } });
    expect(geminiParts.some((part) => (part.functionResponse as Json | undefined)?.name === 'archival_memory_insert')).toBe(true);
    expect(JSON.stringify(toGemini)).not.toContain('sig-anthropic');

    await switchTo('bedrock/anthropic.claude-sonnet-4-20250514-v1:0');
    const toBedrock = await turn(bedrock, 'bedrock');
    const bedrockBlocks = (toBedrock.messages as Array<{ content: Json[] }>).flatMap((message) => message.content);
    expect(bedrockBlocks.filter((block) => block.toolUse).length).toBe(2);
    expect(bedrockBlocks.filter((block) => block.toolResult).length).toBe(2);
    expect(JSON.stringify(toBedrock)).not.toMatch(/sig-(anthropic|gemini)/);

    await switchTo('openai/gpt-5-mini');
    const toOpenAi = await turn(openai, 'openai');
    const items = toOpenAi.input as Json[];
    expect(items.filter((item) => item.type === 'function_call').map((item) => item.name)).toEqual(['archival_memory_insert', 'archival_memory_insert', 'archival_memory_insert']);
    expect(items.filter((item) => item.type === 'function_call_output')).toHaveLength(3);
    expect(items.some((item) => item.type === 'reasoning')).toBe(false);

    await switchTo('google_vertex/gemini-2.5-flash');
    await turn(gemini, 'vertex');

    await switchTo('anthropic/claude-sonnet-4-5');
    const backToAnthropic = await turn(anthropic, 'anthropic-again');
    // Its own thinking of the first turn goes back with its signature; the others' reasoning stays out.
    const serialized = JSON.stringify(backToAnthropic);
    expect(serialized).toContain('sig-anthropic');
    expect(serialized).not.toMatch(/sig-(gemini|bedrock|openai|vertex)/);

    const passages = await client.agents.passages.list(agent.id);
    expect(passages.map((passage) => passage.text).sort()).toEqual(
      ['anthropic', 'anthropic-again', 'bedrock', 'gemini', 'openai', 'vertex'].map((name) => `Fact told to ${name}.`).sort(),
    );
  });

  it("retries a model call the provider rate-limited, after the provider's hint, and the run answers", async () => {
    const agent = await client.agents.create({ model: 'bedrock/anthropic.claude-sonnet-4-20250514-v1:0', include_base_tools: false });
    bedrock.enqueue({ type: 'error', status: 429, message: 'Too many requests, please wait before trying again.', retryAfterSeconds: 1 }, { type: 'answer', text: 'Answered on the retry.' });
    const response = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'Hello?' }] });
    expect(response.messages.at(-1)).toMatchObject({ message_type: 'assistant_message', content: 'Answered on the retry.' });
    expect(bedrock.pending()).toBe(0);
  });

  it('stops a run whose provider refuses the key with llm_api_error, naming the provider', async () => {
    const created = await v1('POST', '/providers/', { name: 'gemini-wrong-key', provider_type: 'google_ai', api_key: 'not-the-key', base_url: gemini.url });
    expect(created.status).toBe(200);
    const agent = await client.agents.create({ model: 'gemini-wrong-key/gemini-2.5-flash', include_base_tools: false });
    const sent = await v1('POST', `/agents/${agent.id}/messages`, { messages: [{ role: 'user', content: 'Hello?' }] });
    expect(sent.status).toBe(401);
    expect(JSON.stringify(sent.body)).toContain("The google_ai provider 'gemini-wrong-key' refused its credentials: API key not valid");
    const runs = await v1('GET', `/runs/?agent_id=${agent.id}`);
    expect(runs.body).toEqual([expect.objectContaining({ status: 'failed', stop_reason: 'llm_api_error' })]);
  });

  it.each([
    ['google_ai/text-embedding-004', gemini, /models\/text-embedding-004:batchEmbedContents$/],
    ['google_vertex/text-embedding-005', gemini, /publishers\/google\/models\/text-embedding-005:predict$/],
    ['azure/text-embedding-3-small', openai, /^\/openai\/deployments\/text-embedding-3-small\/embeddings$/],
    ['bedrock/amazon.titan-embed-text-v2:0', bedrock, /^\/model\/amazon\.titan-embed-text-v2%3A0\/invoke$/],
    ['bedrock/cohere.embed-english-v3', bedrock, /^\/model\/cohere\.embed-english-v3\/invoke$/],
  ] as const)('embeds archival memory with %s, on insert and on search', async (embedding, server, path) => {
    const agent = await client.agents.create({ model: 'anthropic/claude-sonnet-4-5', embedding, include_base_tools: false });
    const embeddingCalls = () => server.received.filter((request) => path.test(request.path)).length;
    const before = embeddingCalls();
    await client.agents.passages.create(agent.id, { text: 'The user plays the cello every Sunday.' });
    await client.agents.passages.create(agent.id, { text: 'The user keeps bees on the roof.' });
    const afterInsert = embeddingCalls();
    expect(afterInsert).toBeGreaterThan(before);
    const found = await v1('GET', `/agents/${agent.id}/archival-memory/search?query=${encodeURIComponent('which instrument')}`);
    expect(found.status).toBe(200);
    expect(embeddingCalls()).toBeGreaterThan(afterInsert);
    expect(JSON.stringify(found.body)).toContain('cello');
  });
});
