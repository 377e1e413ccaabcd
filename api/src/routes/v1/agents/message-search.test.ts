import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Letta from '@letta-ai/letta-client';
import { Message, type MessageRole } from '@engram/db';
import { startTestStack, type TestStack } from '@engram/testing';

let stack: TestStack;
let client: Letta;
let otherKey: string;
let agentId: string;

/** Response bodies are checked field by field, so they are read untyped. */
type JsonResponse = Omit<Response, 'json'> & { json(): Promise<any> };

const search = (body: unknown, key = stack.apiKey): Promise<JsonResponse> =>
  fetch(`${stack.baseUrl}/v1/agents/messages/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

type SearchResult = { embedded_text: string; message: { id: string; role: string; agent_id: string }; fts_rank: number | null; vector_rank: number | null; rrf_score: number };

async function store(organizationId: string, agent: string, role: MessageRole, text: string, createdAt: string) {
  await Message.query(stack.db).insert({
    id: `message-${randomUUID()}`,
    organizationId,
    agentId: agent,
    role,
    content: [{ type: 'text', text }],
    createdAt: new Date(createdAt),
  } as unknown as Message);
}

beforeAll(async () => {
  stack = await startTestStack({ inProcessWorker: false, baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: 'http://127.0.0.1:9' }] });
  client = new Letta({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
  const org = stack.tenant.organizationId;
  agentId = (await client.agents.create({ model: 'openai/gpt-4o-mini', include_base_tools: false })).id;
  const second = (await client.agents.create({ model: 'openai/gpt-4o-mini', include_base_tools: false })).id;
  await store(org, agentId, 'user', 'We adopted a golden retriever puppy named Max last week.', '2025-01-10T10:00:00Z');
  await store(org, agentId, 'assistant', 'Congratulations on the new puppy! Retrievers are wonderful dogs.', '2025-01-10T10:00:05Z');
  await store(org, agentId, 'user', 'What is the weather like in Paris tomorrow?', '2025-02-01T08:00:00Z');
  await store(org, second, 'user', 'My golden retriever keeps chewing my shoes.', '2025-03-01T12:00:00Z');
  await store(org, second, 'assistant', 'Try giving the dog more chew toys and exercise.', '2025-03-01T12:00:03Z');

  const other = await stack.createTenant();
  otherKey = other.apiKey.key;
  const otherClient = new Letta({ apiKey: otherKey, baseURL: stack.baseUrl, maxRetries: 0 });
  const stranger = (await otherClient.agents.create({ model: 'openai/gpt-4o-mini', include_base_tools: false })).id;
  await store(other.organizationId, stranger, 'user', 'A golden retriever from another organization.', '2025-01-15T00:00:00Z');
});

afterAll(async () => {
  await stack?.stop();
});

describe('POST /agents/messages/search', () => {
  it('ranks by words in fts mode, across the agents of the organization only', async () => {
    const results: SearchResult[] = await (await search({ query: 'golden retriever', search_mode: 'fts' })).json();
    expect(results.map((result) => result.embedded_text)).toEqual([
      'My golden retriever keeps chewing my shoes.',
      'We adopted a golden retriever puppy named Max last week.',
      'Congratulations on the new puppy! Retrievers are wonderful dogs.',
    ]);
    expect(results.map((result) => result.fts_rank)).toEqual([1, 2, 3]);
    expect(results.every((result) => result.vector_rank === null)).toBe(true);
    expect(results[0]?.rrf_score).toBeCloseTo(1 / 61, 10);
    expect(new Set(results.map((result) => result.message.agent_id)).size).toBe(2);
    expect(results[0]?.message).toMatchObject({ role: 'user', id: expect.stringMatching(/^message-/) });
  });

  it('ranks by meaning in vector mode, and fuses both in hybrid mode (the default) by reciprocal rank', async () => {
    const vector: SearchResult[] = await (await search({ query: 'puppies', search_mode: 'vector', limit: 3 })).json();
    expect(vector).toHaveLength(3);
    expect(vector[0]?.embedded_text).toContain('puppy');
    expect(vector.map((result) => result.vector_rank)).toEqual([1, 2, 3]);
    expect(vector.every((result) => result.fts_rank === null)).toBe(true);

    const hybrid: SearchResult[] = await (await search({ query: 'golden retriever puppy' })).json();
    expect(hybrid[0]?.embedded_text).toBe('We adopted a golden retriever puppy named Max last week.');
    expect(hybrid[0]).toMatchObject({ fts_rank: 1, vector_rank: 1 });
    expect(hybrid[0]?.rrf_score).toBeCloseTo(0.5 / 61 + 0.5 / 61, 10);
    const scores = hybrid.map((result) => result.rrf_score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const result of hybrid) {
      const expected = (result.fts_rank ? 0.5 / (60 + result.fts_rank) : 0) + (result.vector_rank ? 0.5 / (60 + result.vector_rank) : 0);
      expect(result.rrf_score).toBeCloseTo(expected, 10);
    }
  });

  it('filters by role and by date', async () => {
    const assistant: SearchResult[] = await (await search({ query: 'dog retriever', roles: ['assistant'] })).json();
    expect(assistant.length).toBeGreaterThan(0);
    expect(assistant.every((result) => result.message.role === 'assistant')).toBe(true);

    const january: SearchResult[] = await (await search({ query: 'golden retriever', search_mode: 'fts', start_date: '2025-01-01', end_date: '2025-01-31' })).json();
    expect(january.map((result) => result.embedded_text)).toEqual([
      'We adopted a golden retriever puppy named Max last week.',
      'Congratulations on the new puppy! Retrievers are wonderful dogs.',
    ]);
  });

  it('validates the request', async () => {
    expect((await search({ query: 'x', limit: 0 })).status).toBe(422);
    expect((await search({ query: 'x', limit: 101 })).status).toBe(422);
    expect((await search({ query: 'x', search_mode: 'semantic' })).status).toBe(422);
    expect((await search({})).status).toBe(422);
    expect((await search({ query: 'x', start_date: 'soon' })).status).toBe(422);
  });

  it("is the other organization's own search there", async () => {
    const results: SearchResult[] = await (await search({ query: 'golden retriever' }, otherKey)).json();
    expect(results.map((result) => result.embedded_text)).toEqual(['A golden retriever from another organization.']);
  });
});

describe('POST /messages/search (1.x client)', () => {
  it('returns list results with the owning agent, filtered by agent', async () => {
    const results = await client.messages.search({ query: 'golden retriever', search_mode: 'fts', agent_id: agentId });
    expect(results).toEqual([
      {
        message_type: 'user_message',
        message_id: expect.stringMatching(/^message-/),
        agent_id: agentId,
        conversation_id: null,
        created_at: '2025-01-10T10:00:00.000Z',
        content: 'We adopted a golden retriever puppy named Max last week.',
      },
      expect.objectContaining({ message_type: 'assistant_message', agent_id: agentId }),
    ]);
  });
});
