import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentTestContext, type AgentTestContext } from '@engram/testing/agent-test-context';
import { ConsoleClient } from '@engram/testing/cookie-jar';
import { AGENT_FILES_PER_PAGE } from '../../services/sharing/agent-file-gallery-service.js';
import { signUp, type ConsoleUser } from './console-test-support.js';

/**
 * Published agent files (spec 000 §5, §7, §9): the publishing rules with their messages, who sees a file at each
 * access level on every route, the list's pages, search and sorts, downloads that import back exactly, and one
 * vote per user.
 */
let ctx: AgentTestContext;
let owner: ConsoleUser;
let ownerKey: string;
let outsider: ConsoleUser;
let outsiderKey: string;
let agentId: string;

const publish = (body: Record<string, unknown>) =>
  owner.client.post('/agent-files', { agentId, name: 'helper', description: 'Helps with things', summary: 'A helper', accessLevel: 'public', ...body });

beforeAll(async () => {
  ctx = await startAgentTestContext();
  owner = await signUp(ctx.stack, { name: 'Publisher' });
  ownerKey = (await owner.client.post('/api-keys', { name: 'key' })).body.apiKey;
  outsider = await signUp(ctx.stack, { name: 'Reader' });
  outsiderKey = (await outsider.client.post('/api-keys', { name: 'key' })).body.apiKey;
  const tool = await ctx.call(ownerKey, 'POST', '/tools/', {
    source_code: 'def shelf_of(topic: str) -> str:\n    """Finds the shelf of a topic.\n\n    Args:\n        topic: The topic.\n    """\n    return "shelf 3"\n',
  });
  expect(tool.status, JSON.stringify(tool.body)).toBe(200);
  const agent = await ctx.call(ownerKey, 'POST', '/agents/', {
    model: 'openai/gpt-4o-mini',
    name: 'librarian',
    system: 'You are a careful librarian.',
    memory_blocks: [
      { label: 'persona', value: 'I know every shelf.' },
      { label: 'human', value: 'The reader likes owls.', limit: 4000 },
    ],
    tool_ids: [tool.body.id],
    tool_rules: [{ type: 'max_count_per_step', tool_name: 'shelf_of', max_count_limit: 2 }],
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(200);
  agentId = agent.body.id;
}, 120_000);

afterAll(async () => {
  await ctx?.stop();
});

describe('publishing', () => {
  it.each([
    ['an empty name', { name: '' }, 'Name is required'],
    ['a name of 26 characters', { name: 'a'.repeat(26) }, 'Name must be at most 25 characters long'],
    ['a name with a space', { name: 'has space' }, 'Name must be alphanumeric with underscores or dashes'],
    ['an empty description', { description: '' }, 'Description is required'],
    ['a description of 50001 characters', { description: 'd'.repeat(50_001) }, 'Description must be at most 50000 characters long'],
    ['an empty summary', { summary: '' }, 'Summary is required'],
    ['a summary of 201 characters', { summary: 's'.repeat(201) }, 'Summary must be at most 200 characters long'],
  ])('refuses %s', async (_label, change, message) => {
    const refused = await publish(change);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ errorCode: 'validation', message });
  });

  it('takes the longest values allowed, once per name in an organization, and only with the agent in the organization', async () => {
    const made = await publish({ name: `A-${'b'.repeat(21)}_9`, description: 'd'.repeat(50_000), summary: 's'.repeat(200), accessLevel: 'none' });
    expect(made.status, JSON.stringify(made.body).slice(0, 300)).toBe(201);
    expect(made.body).toMatchObject({ agentId, author: expect.any(String), downloadCount: 0, upvotes: 0, downvotes: 0, myVote: null, accessLevel: 'none' });
    const again = await publish({ name: `A-${'b'.repeat(21)}_9` });
    expect(again.status).toBe(409);
    expect(again.body.errorCode).toBe('conflict');
    expect((await outsider.client.post('/agent-files', { agentId, name: 'stolen', description: 'd', summary: 's', accessLevel: 'public' })).status).toBe(404);
    expect((await new ConsoleClient(ctx.stack.baseUrl).post('/agent-files', { agentId, name: 'anon', description: 'd', summary: 's', accessLevel: 'public' })).status).toBe(401);
  });
});

describe('access levels', () => {
  it('show a file on every route to exactly whom its level says', { timeout: 60_000 }, async () => {
    const made = await publish({ name: 'levels', accessLevel: 'organization' });
    const id: string = made.body.id;
    const anonymous = new ConsoleClient(ctx.stack.baseUrl);
    const expected = {
      organization: { anonymous: 404, outsider: 404, owner: 200 },
      none: { anonymous: 404, outsider: 404, owner: 200 },
      'logged-in': { anonymous: 404, outsider: 200, owner: 200 },
      unlisted: { anonymous: 200, outsider: 200, owner: 200 },
      public: { anonymous: 200, outsider: 200, owner: 200 },
    } as const;
    for (const [level, statuses] of Object.entries(expected)) {
      expect((await owner.client.patch(`/agent-files/${id}/access-level`, { accessLevel: level })).status).toBe(200);
      for (const [name, client] of [
        ['anonymous', anonymous],
        ['outsider', outsider.client],
        ['owner', owner.client],
      ] as const) {
        for (const route of ['metadata', 'summary', 'details', 'download']) {
          expect((await client.get(`/agent-files/${id}/${route}`)).status, `${level}: ${name} ${route}`).toBe(statuses[name]);
        }
        const vote = await client.post(`/agent-files/${id}/vote`, { vote: 'up' });
        expect(vote.status, `${level}: ${name} votes`).toBe(name === 'anonymous' ? 401 : statuses[name]);
        const listed = (await client.get('/agent-files?search=levels')).body.agentFiles.map((file: { id: string }) => file.id);
        const shouldList = name === 'owner' || level === 'public' || (level === 'logged-in' && name === 'outsider');
        expect(listed, `${level}: ${name} lists`).toEqual(shouldList ? [id] : []);
      }
    }
    // The source agent's id is for the publishing organization only; changing the level is its alone.
    expect((await outsider.client.get(`/agent-files/${id}/metadata`)).body.agentId).toBeNull();
    expect((await owner.client.get(`/agent-files/${id}/metadata`)).body.agentId).toBe(agentId);
    expect((await outsider.client.patch(`/agent-files/${id}/access-level`, { accessLevel: 'none' })).status).toBe(404);
    const details = (await anonymous.get(`/agent-files/${id}/details`)).body;
    expect(details).toMatchObject({
      name: 'levels',
      system: 'You are a careful librarian.',
      llmConfig: { model: 'gpt-4o-mini' },
      toolRules: [{ type: 'max_count_per_step', tool_name: 'shelf_of', max_count_limit: 2 }],
    });
    expect(details.memory).toEqual(
      expect.arrayContaining([
        { label: 'persona', value: 'I know every shelf.', limit: expect.any(Number), description: expect.any(String) },
        { label: 'human', value: 'The reader likes owls.', limit: 4000, description: expect.any(String) },
      ]),
    );
    expect(details.tools.map((tool: { name: string }) => tool.name)).toContain('shelf_of');
  });
});

describe('a banned organization', () => {
  it('has its files answer 404 to everyone else, and leave the list, until it is unbanned', { timeout: 60_000 }, async () => {
    const made = await publish({ name: 'banned-shelf', accessLevel: 'public' });
    const id: string = made.body.id;
    const anonymous = new ConsoleClient(ctx.stack.baseUrl);
    const banned = async (at: Date | null) => ctx.stack.db('organizations').where({ id: owner.organizationId }).update({ bannedAt: at });
    await banned(new Date());
    for (const client of [anonymous, outsider.client]) {
      for (const route of ['metadata', 'summary', 'details', 'download']) {
        const answer = await client.get(`/agent-files/${id}/${route}`);
        expect(answer.status, route).toBe(404);
        expect(answer.body).toEqual((await client.get(`/agent-files/agent-file-unknown/${route}`)).body);
      }
      expect((await client.get('/agent-files?search=banned-shelf')).body.agentFiles).toEqual([]);
    }
    expect((await outsider.client.post(`/agent-files/${id}/vote`, { vote: 'up' })).status).toBe(404);
    await banned(null);
    expect((await anonymous.get(`/agent-files/${id}/metadata`)).status).toBe(200);
    expect((await anonymous.get('/agent-files?search=banned-shelf')).body.agentFiles.map((file: { id: string }) => file.id)).toEqual([id]);
  });
});

describe('downloads', () => {
  it('serve the file as published, count each download, and import back with POST /v1/agents/import exactly', { timeout: 60_000 }, async () => {
    const made = await publish({ name: 'round-trip', accessLevel: 'public' });
    const response = await fetch(`${ctx.stack.baseUrl}/api/agent-files/${made.body.id}/download`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="round-trip.af"');
    const file = (await response.json()) as { agents: Array<{ messages: unknown[] }>; created_at?: string };
    expect(file.agents[0]!.messages).toEqual([]);

    // Another organization imports it exactly as downloaded.
    const form = new FormData();
    form.append('file', new Blob([JSON.stringify(file)], { type: 'application/json' }), 'round-trip.af');
    const imported = await fetch(`${ctx.stack.baseUrl}/v1/agents/import`, { method: 'POST', headers: { authorization: `Bearer ${outsiderKey}` }, body: form });
    expect(imported.status, await imported.clone().text()).toBe(200);
    const [importedId] = ((await imported.json()) as { agent_ids: string[] }).agent_ids;
    const reexported = await ctx.call(outsiderKey, 'GET', `/agents/${importedId}/export?scrub_messages=true`);
    expect(reexported.status).toBe(200);
    const { created_at: _publishedAt, ...published } = file;
    const { created_at: _exportedAt, ...again } = reexported.body;
    expect(again).toEqual(published);

    const second = await new ConsoleClient(ctx.stack.baseUrl).get(`/agent-files/${made.body.id}/download`);
    expect(second.status).toBe(200);
    expect((await owner.client.get(`/agent-files/${made.body.id}/metadata`)).body.downloadCount).toBe(2);
    // Reading the metadata or details is not a download.
    await outsider.client.get(`/agent-files/${made.body.id}/details`);
    expect((await owner.client.get(`/agent-files/${made.body.id}/summary`)).body.downloadCount).toBe(2);
  });
});

describe('votes', () => {
  it('count once per user: again the same way changes nothing, the other way turns the vote', async () => {
    const made = await publish({ name: 'votes', accessLevel: 'public' });
    const id: string = made.body.id;
    const up = await outsider.client.post(`/agent-files/${id}/vote`, { vote: 'up' });
    expect(up.body).toMatchObject({ upvotes: 1, downvotes: 0, myVote: 'up' });
    expect((await outsider.client.post(`/agent-files/${id}/vote`, { vote: 'up' })).body).toMatchObject({ upvotes: 1, downvotes: 0 });
    await Promise.all([1, 2, 3].map(() => outsider.client.post(`/agent-files/${id}/vote`, { vote: 'up' })));
    expect((await owner.client.get(`/agent-files/${id}/metadata`)).body).toMatchObject({ upvotes: 1, downvotes: 0, myVote: null });
    expect((await outsider.client.post(`/agent-files/${id}/vote`, { vote: 'down' })).body).toMatchObject({ upvotes: 0, downvotes: 1, myVote: 'down' });
    expect((await owner.client.post(`/agent-files/${id}/vote`, { vote: 'up' })).body).toMatchObject({ upvotes: 1, downvotes: 1, myVote: 'up' });
    expect((await outsider.client.post(`/agent-files/${id}/vote`, { vote: 'sideways' })).status).toBe(400);
  });
});

describe('the list', () => {
  it(`pages by ${AGENT_FILES_PER_PAGE}, searches, and sorts by downloads or by votes`, { timeout: 120_000 }, async () => {
    const publisher = await signUp(ctx.stack, { name: 'Prolific' });
    const key = (await publisher.client.post('/api-keys', { name: 'key' })).body.apiKey;
    const agent = await ctx.call(key, 'POST', '/agents/', { model: 'openai/gpt-4o-mini', name: 'many' });
    const ids: string[] = [];
    for (let index = 0; index < AGENT_FILES_PER_PAGE + 2; index += 1) {
      const made = await publisher.client.post('/agent-files', { agentId: agent.body.id, name: `zebra-${index}`, description: 'd', summary: `zebra number ${index}`, accessLevel: 'public' });
      expect(made.status).toBe(201);
      ids.push(made.body.id);
    }
    const first = await outsider.client.get('/agent-files?search=zebra');
    expect(first.body.agentFiles).toHaveLength(AGENT_FILES_PER_PAGE);
    expect(first.body.hasNextPage).toBe(true);
    const second = await outsider.client.get(`/agent-files?search=zebra&offset=${AGENT_FILES_PER_PAGE}`);
    expect(second.body.agentFiles).toHaveLength(2);
    expect(second.body.hasNextPage).toBe(false);
    expect(new Set([...first.body.agentFiles, ...second.body.agentFiles].map((file: { id: string }) => file.id))).toEqual(new Set(ids));

    for (let count = 0; count < 3; count += 1) await fetch(`${ctx.stack.baseUrl}/api/agent-files/${ids[7]}/download`);
    await fetch(`${ctx.stack.baseUrl}/api/agent-files/${ids[3]}/download`);
    await outsider.client.post(`/agent-files/${ids[11]}/vote`, { vote: 'up' });
    await publisher.client.post(`/agent-files/${ids[11]}/vote`, { vote: 'up' });
    await outsider.client.post(`/agent-files/${ids[7]}/vote`, { vote: 'down' });
    const byDownloads = (await outsider.client.get('/agent-files?search=zebra&sortBy=downloads')).body.agentFiles.map((file: { id: string }) => file.id);
    expect(byDownloads.slice(0, 2)).toEqual([ids[7], ids[3]]);
    const byVotes = (await outsider.client.get('/agent-files?search=zebra&sortBy=votes')).body.agentFiles.map((file: { id: string }) => file.id);
    expect(byVotes[0]).toBe(ids[11]);
    expect(byVotes.at(-1)).not.toBe(ids[7]);
    const lastPage = (await outsider.client.get(`/agent-files?search=zebra&sortBy=votes&offset=${AGENT_FILES_PER_PAGE}`)).body.agentFiles.map((file: { id: string }) => file.id);
    expect(lastPage.at(-1)).toBe(ids[7]);
    expect((await outsider.client.get('/agent-files?search=number%2013')).body.agentFiles.map((file: { name: string }) => file.name)).toEqual(['zebra-13']);
  });
});
