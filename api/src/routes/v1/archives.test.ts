import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_EMBEDDING_CONFIG, LOCAL_EMBEDDING_HANDLE } from '@engram/integrations/archival';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, model, client, api, post, systemMessageText: systemPrompt, stop } = await startAgentTestContext({
  models: ['gpt-4o-mini', 'text-embedding-3-small'],
  inProcessWorker: false,
});
afterAll(stop);

const newAgent = () => client.agents.create({ model: 'openai/gpt-4o-mini', include_base_tools: false });

describe('archives', () => {
  it('creates an archive with the local embedder by default, reads, renames, lists and deletes it', async () => {
    const archive = await client.archives.create({ name: 'notes', description: 'meeting notes' });
    expect(archive).toMatchObject({
      id: expect.stringMatching(/^archive-[0-9a-f-]{36}$/),
      name: 'notes',
      description: 'meeting notes',
      vector_db_provider: 'native',
      embedding_config: LOCAL_EMBEDDING_CONFIG,
      metadata: {},
    });
    expect(await client.archives.retrieve(archive.id)).toEqual(archive);

    const renamed = await client.archives.update(archive.id, { name: 'minutes' });
    expect(renamed).toMatchObject({ name: 'minutes', description: 'meeting notes' });
    const listed = await client.archives.list({ name: 'minutes' });
    expect(listed.items.map((item) => item.id)).toContain(archive.id);

    await client.archives.delete(archive.id);
    expect((await api(`/archives/${archive.id}`)).status).toBe(404);
  });

  it('resolves an embedding handle through the providers, and names the local embedder by its handle', async () => {
    const remote = await client.archives.create({ name: 'remote', embedding: 'openai/text-embedding-3-small' });
    expect(remote.embedding_config).toMatchObject({ embedding_model: 'text-embedding-3-small', handle: 'openai/text-embedding-3-small' });
    const local = await client.archives.create({ name: 'local', embedding: LOCAL_EMBEDDING_HANDLE });
    expect(local.embedding_config).toEqual(LOCAL_EMBEDDING_CONFIG);
    expect((await post('/archives/', { name: 'x', embedding: 'nowhere/model' })).status).toBe(400);
    expect((await post('/archives/', { description: 'no name' })).status).toBe(422);
    expect((await post('/archives/', { name: 'x', surprise: true })).status).toBe(422);
  });

  it('attaches archives to agents, lists them both ways, and detaches them', async () => {
    const archive = await client.archives.create({ name: 'shared' });
    const [first, second] = await Promise.all([newAgent(), newAgent()]);
    expect(await client.agents.archives.attach(archive.id, { agent_id: first.id })).toBeNull();
    await client.agents.archives.attach(archive.id, { agent_id: second.id });
    await client.agents.archives.attach(archive.id, { agent_id: second.id });

    const users = await (await api(`/archives/${archive.id}/agents`)).json();
    expect(users.map((agent: { id: string }) => agent.id).sort()).toEqual([first.id, second.id].sort());
    const ofFirst = await client.archives.list({ agent_id: first.id });
    expect(ofFirst.items.map((item) => item.id)).toEqual([archive.id]);

    expect(await client.agents.archives.detach(archive.id, { agent_id: first.id })).toBeNull();
    expect((await client.archives.list({ agent_id: first.id })).items).toEqual([]);
    expect((await api(`/agents/${first.id}/archives/attach/archive-00000000-0000-4000-8000-000000000000`, { method: 'PATCH' })).status).toBe(404);
  });

  it('adds passages to an archive, shows them to every agent using it, and deletes one with 204', async () => {
    const archive = await client.archives.create({ name: 'facts' });
    const agent = await newAgent();
    await client.agents.archives.attach(archive.id, { agent_id: agent.id });

    const passage = await client.archives.passages.create(archive.id, { text: 'Ada was born in 1815.', tags: ['history'], metadata: { source: 'book' } });
    expect(passage).toMatchObject({ archive_id: archive.id, text: 'Ada was born in 1815.', tags: ['history'], metadata: { source: 'book' }, is_deleted: false });
    expect(passage.embedding).toHaveLength(256);
    const batch = await client.archives.passages.createMany(archive.id, { passages: [{ text: 'one' }, { text: 'two', created_at: '2020-01-01T00:00:00Z' }] });
    expect(batch.map((item) => item.text)).toEqual(['one', 'two']);
    expect(batch[1]?.created_at).toBe('2020-01-01T00:00:00.000Z');

    const memory = await client.agents.passages.list(agent.id);
    expect(memory.map((item) => item.text)).toEqual(['two', 'Ada was born in 1815.', 'one']);
    expect(await systemPrompt(agent.id)).toContain('Archival memory holds 3 memories');
    expect(await systemPrompt(agent.id)).toContain('Archival memory tags: history');

    await client.archives.passages.delete(passage.id!, { archive_id: archive.id });
    expect((await client.agents.passages.list(agent.id)).map((item) => item.text)).toEqual(['two', 'one']);
    expect((await api(`/archives/${archive.id}/passages/${passage.id}`, { method: 'DELETE' })).status).toBe(404);
    expect(await systemPrompt(agent.id)).toContain('Archival memory holds 2 memories');

    await client.archives.delete(archive.id);
    expect(await client.agents.passages.list(agent.id)).toEqual([]);
    expect(await systemPrompt(agent.id)).not.toContain('Archival memory holds');
  });

  it('embeds passages of a provider-backed archive through its /embeddings endpoint, in batches', async () => {
    const archive = await client.archives.create({
      name: 'remote',
      embedding_config: { ...LOCAL_EMBEDDING_CONFIG, embedding_endpoint_type: 'openai', embedding_model: 'embed-test', embedding_dim: 32, handle: 'openai/embed-test', batch_size: 2 },
    });
    model.reset();
    const created = await client.archives.passages.createMany(archive.id, { passages: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] });
    expect(created.map((passage) => passage.embedding?.length)).toEqual([32, 32, 32]);
    expect(model.embeddingRequests).toEqual([
      { model: 'embed-test', input: ['a', 'b'] },
      { model: 'embed-test', input: ['c'] },
    ]);
    const found = await client.passages.search({ archive_id: archive.id, query: 'b' });
    expect(found[0]?.passage.text).toBe('b');
  });

  it("keeps each organization's archives and passages to itself", async () => {
    const archive = await client.archives.create({ name: 'private' });
    const passage = await client.archives.passages.create(archive.id, { text: 'secret plans' });
    const other = await stack.createTenant();
    const key = other.apiKey.key;
    expect((await api(`/archives/${archive.id}`, { key })).status).toBe(404);
    expect((await api(`/archives/${archive.id}/passages/${passage.id}`, { method: 'DELETE', key })).status).toBe(404);
    expect(await (await api('/archives/', { key })).json()).toEqual([]);
    expect(await (await post('/passages/search', { query: 'secret plans' }, key)).json()).toEqual([]);
    expect((await post('/passages/search', { archive_id: archive.id, query: 'secret' }, key)).status).toBe(404);
  });
});

describe('POST /passages/search', () => {
  it('searches one archive, an agent, or the whole organization, with scores and ranks', async () => {
    const archive = await client.archives.create({ name: 'pets' });
    await client.archives.passages.createMany(archive.id, {
      passages: [
        { text: 'The cat sleeps on the windowsill all afternoon.', tags: ['cat'] },
        { text: 'Our dog loves long walks in the park.', tags: ['dog'] },
        { text: 'Quarterly revenue grew by eight percent.', tags: ['finance'] },
      ],
    });
    const results = await client.passages.search({ archive_id: archive.id, query: 'where does the cat sleep' });
    expect(results[0]?.passage.text).toContain('cat sleeps');
    expect(results[0]?.score).toBeGreaterThan(0);
    expect(results[0]?.metadata).toMatchObject({ fts_rank: 1, vector_rank: 1 });
    expect(results.map((result) => result.score)).toEqual([...results.map((result) => result.score)].sort((a, b) => b - a));

    const tagged = await client.passages.search({ archive_id: archive.id, query: 'animals', tags: ['dog', 'finance'], tag_match_mode: 'any' });
    expect(tagged.map((result) => result.passage.tags?.[0]).sort()).toEqual(['dog', 'finance']);
    const newest = await client.passages.search({ archive_id: archive.id, limit: 1 });
    expect(newest.map((result) => result.passage.text)).toEqual(['Quarterly revenue grew by eight percent.']);
  });
});
