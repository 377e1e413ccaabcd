import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, model, client, api, systemMessageText: systemPrompt, stop } = await startAgentTestContext();
afterEach(() => model.reset());
afterAll(stop);

const newAgent = (options: { timezone?: string; tools?: string[] } = {}) =>
  client.agents.create({ model: 'openai/gpt-4o-mini', include_base_tools: false, ...options });

const insert = (agentId: string, text: string, extra: { tags?: string[]; created_at?: string } = {}) =>
  client.agents.passages.create(agentId, { text, ...extra });

describe('agent archival memory routes', () => {
  it("inserts into the agent's own archive (created on first insert), lists, pages and deletes", async () => {
    const agent = await newAgent();
    expect(await client.archives.list({ agent_id: agent.id })).toMatchObject({ items: [] });

    const [first] = await insert(agent.id, 'The user is allergic to peanuts.', { tags: ['health'] });
    expect(first).toMatchObject({ text: 'The user is allergic to peanuts.', tags: ['health'], archive_id: expect.stringMatching(/^archive-/) });
    const archives = await client.archives.list({ agent_id: agent.id });
    expect(archives.items).toHaveLength(1);
    expect(archives.items[0]).toMatchObject({ id: first!.archive_id, name: `${agent.name}'s Archive` });
    await insert(agent.id, 'The user lives in Lisbon.');
    await insert(agent.id, 'The user has a cat named Miso.');

    const all = await client.agents.passages.list(agent.id);
    expect(all.map((passage) => passage.text)).toEqual(['The user is allergic to peanuts.', 'The user lives in Lisbon.', 'The user has a cat named Miso.']);
    const newestFirst = await client.agents.passages.list(agent.id, { ascending: false, limit: 2 });
    expect(newestFirst.map((passage) => passage.text)).toEqual(['The user has a cat named Miso.', 'The user lives in Lisbon.']);
    const after = await client.agents.passages.list(agent.id, { after: all[0]!.id, limit: 1 });
    expect(after.map((passage) => passage.id)).toEqual([all[1]!.id]);
    const filtered = await client.agents.passages.list(agent.id, { search: 'LISBON' });
    expect(filtered.map((passage) => passage.text)).toEqual(['The user lives in Lisbon.']);
    expect(await systemPrompt(agent.id)).toContain('Archival memory holds 3 memories');

    expect(await client.agents.passages.delete(all[1]!.id!, { agent_id: agent.id })).toEqual({ message: `Memory id=${all[1]!.id} successfully deleted` });
    expect((await client.agents.passages.list(agent.id)).map((passage) => passage.text)).not.toContain('The user lives in Lisbon.');
    expect((await api(`/agents/${agent.id}/archival-memory/${all[1]!.id}`, { method: 'DELETE' })).status).toBe(404);
    expect(await systemPrompt(agent.id)).toContain('Archival memory holds 2 memories');
  });

  it('searches with tags (any and all) and a date range, with timestamps in the agent timezone', async () => {
    const agent = await newAgent({ timezone: 'America/New_York' });
    await insert(agent.id, 'Trip to Kyoto in spring, saw the cherry blossoms.', { tags: ['travel', 'japan'], created_at: '2024-04-02T15:00:00Z' });
    await insert(agent.id, 'Trip to Porto in summer, ate grilled sardines.', { tags: ['travel'], created_at: '2024-07-10T12:00:00Z' });
    await insert(agent.id, 'Started learning Japanese grammar.', { tags: ['japan', 'study'], created_at: '2024-09-01T09:00:00Z' });

    const trips = await client.agents.passages.search(agent.id, { query: 'trip' });
    expect(trips.results.slice(0, 2).map((result) => result.content).sort()).toEqual([
      'Trip to Kyoto in spring, saw the cherry blossoms.',
      'Trip to Porto in summer, ate grilled sardines.',
    ]);
    expect(trips.count).toBe(trips.results.length);
    expect(trips.results.find((result) => result.content.includes('Kyoto'))?.timestamp).toBe('2024-04-02T11:00:00-04:00');

    const anyTag = await client.agents.passages.search(agent.id, { query: 'japan', tags: ['study', 'travel'], tag_match_mode: 'any' });
    expect(anyTag.count).toBe(3);
    const allTags = await client.agents.passages.search(agent.id, { query: 'japan', tags: ['travel', 'japan'], tag_match_mode: 'all' });
    expect(allTags.results.map((result) => result.content)).toEqual(['Trip to Kyoto in spring, saw the cherry blossoms.']);
    expect(allTags.results[0]?.tags?.sort()).toEqual(['japan', 'travel']);

    const summer = await client.agents.passages.search(agent.id, { query: 'trip', start_datetime: '2024-06-01', end_datetime: '2024-08-31' });
    expect(summer.results.map((result) => result.content)).toEqual(['Trip to Porto in summer, ate grilled sardines.']);
    // A date-time without an offset is in the agent's timezone: 11:00 in New York is 15:00 UTC, the Kyoto memory's time.
    const kyotoOnward = await client.agents.passages.search(agent.id, { query: 'trip', start_datetime: '2024-04-02T11:00:00', end_datetime: '2024-04-02' });
    expect(kyotoOnward.results.map((result) => result.content)).toEqual(['Trip to Kyoto in spring, saw the cherry blossoms.']);

    expect((await api(`/agents/${agent.id}/archival-memory/search?query=x&start_datetime=yesterday`)).status).toBe(422);
    expect((await api(`/agents/${agent.id}/archival-memory/search`)).status).toBe(422);
    expect((await api(`/agents/${agent.id}/archival-memory/search?query=x&tag_match_mode=some`)).status).toBe(422);
  });

  it('returns an empty search for an agent without archival memory, and 404 for an unknown agent', async () => {
    const agent = await newAgent();
    expect(await client.agents.passages.search(agent.id, { query: 'anything' })).toEqual({ results: [], count: 0 });
    expect((await api('/agents/agent-00000000-0000-4000-8000-000000000000/archival-memory')).status).toBe(404);
    expect((await api(`/agents/${agent.id}/archival-memory`, { method: 'POST', body: JSON.stringify({ text: 'x'.repeat(40_000) }) })).status).toBe(422);
  });

  it("keeps an agent's archival memory to its organization", async () => {
    const agent = await newAgent();
    const [passage] = await insert(agent.id, 'confidential');
    const key = (await stack.createTenant()).apiKey.key;
    expect((await api(`/agents/${agent.id}/archival-memory`, { key })).status).toBe(404);
    expect((await api(`/agents/${agent.id}/archival-memory/search?query=confidential`, { key })).status).toBe(404);
    expect((await api(`/agents/${agent.id}/archival-memory/${passage!.id}`, { method: 'DELETE', key })).status).toBe(404);
  });
});

describe('archival memory tools in the agent loop', () => {
  it('inserts a memory with archival_memory_insert and finds it again with archival_memory_search', async () => {
    const agent = await newAgent({ tools: ['archival_memory_insert', 'archival_memory_search'] });
    expect(agent.tools.map((tool) => tool.name).sort()).toEqual(['archival_memory_insert', 'archival_memory_search']);
    model.enqueue(
      { type: 'tool_calls', calls: [{ id: 'call_store', name: 'archival_memory_insert', arguments: { content: 'The user plays the cello every Sunday.', tags: ['hobby'] } }] },
      { type: 'text', text: 'Noted.' },
    );
    const stored = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'Remember that I play the cello on Sundays.' }] });
    expect(stored.messages[1]).toMatchObject({ message_type: 'tool_return_message', status: 'success', tool_return: 'None' });
    expect(await systemPrompt(agent.id)).toContain('Archival memory holds 1 memory; search them with archival_memory_search.');
    expect(await systemPrompt(agent.id)).toContain('Archival memory tags: hobby');

    model.enqueue(
      { type: 'tool_calls', calls: [{ id: 'call_find', name: 'archival_memory_search', arguments: { query: 'what instrument does the user play', top_k: 3 } }] },
      { type: 'text', text: 'You play the cello.' },
    );
    const answered = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'What instrument do I play?' }] });
    const toolReturn = answered.messages[1] as { status: string; tool_return: string };
    expect(toolReturn.status).toBe('success');
    const results = JSON.parse(toolReturn.tool_return) as Array<{ id: string; content: string; tags: string[]; timestamp: string; relevance: object }>;
    expect(results[0]).toMatchObject({ content: 'The user plays the cello every Sunday.', tags: ['hobby'], id: expect.stringMatching(/^passage-/) });
    expect(results[0]?.relevance).toMatchObject({ rrf_score: expect.any(Number) });
    const modelSaw = model.requests.at(-1)?.messages.findLast((message) => message.role === 'tool');
    expect(modelSaw?.content).toContain('The user plays the cello every Sunday.');

    const memory = await client.agents.passages.list(agent.id);
    expect(memory.map((passage) => passage.text)).toEqual(['The user plays the cello every Sunday.']);
  });

  it('reports bad arguments to the model as a tool error', async () => {
    const agent = await newAgent({ tools: ['archival_memory_search'] });
    model.enqueue(
      { type: 'tool_calls', calls: [{ id: 'call_bad', name: 'archival_memory_search', arguments: { query: 'x', start_datetime: 'last week' } }] },
      { type: 'text', text: 'Sorry.' },
    );
    const response = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'search' }] });
    expect(response.messages[1]).toMatchObject({ status: 'error', tool_return: expect.stringContaining("'start_datetime' must be an ISO 8601 date") });
  });
});
