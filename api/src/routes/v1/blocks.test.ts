import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import Letta from '@letta-ai/letta-client';
import { DEFAULT_BLOCK_LIMIT } from '@engram/core';
import { startAgentTestContext, type JsonResponse } from '@engram/testing/agent-test-context';

const { stack, client, api, post, patch, systemMessageText, stop } = await startAgentTestContext({ inProcessWorker: false });
afterAll(stop);

/** A label prefix of one test's own, so list filters only see the blocks that test made. */
const uniqueLabel = () => `b${randomUUID().slice(0, 8)}`;

function createAgentWith(blockIds: string[]) {
  return client.agents.create({ model: 'openai/gpt-4o-mini', block_ids: blockIds, include_base_tools: false });
}

const labelsOf = (blocks: Array<{ label?: string | null }>) => blocks.map((block) => block.label);

describe('creating and reading blocks', () => {
  it('creates a block with the defaults, reads it back and counts it', async () => {
    const before = await (await api('/blocks/count')).json();
    const label = uniqueLabel();
    const block = await client.blocks.create({ label, value: 'Ada likes tea.' });

    expect(block).toMatchObject({
      id: expect.stringMatching(/^block-[0-9a-f-]{36}$/),
      label,
      value: 'Ada likes tea.',
      limit: DEFAULT_BLOCK_LIMIT,
      read_only: false,
      is_template: false,
      metadata: {},
      tags: [],
      project_id: stack.tenant.projectId,
      created_by_id: stack.tenant.userId,
    });
    expect(await client.blocks.retrieve(block.id)).toEqual(block);
    expect(await (await api('/blocks/count')).json()).toBe(before + 1);

    // Both spellings of the collection path answer.
    for (const path of [`/blocks?label=${label}`, `/blocks/?label=${label}`]) {
      expect(labelsOf(await (await api(path)).json())).toEqual([label]);
    }
  });

  it('stores a null value as an empty block and strips null bytes', async () => {
    const empty = await (await post('/blocks', { label: uniqueLabel(), value: null })).json();
    expect(empty.value).toBe('');
    const stripped = await client.blocks.create({ label: uniqueLabel(), value: 'a\u0000b' });
    expect(stripped.value).toBe('ab');
  });

  it('refuses a value over the limit with a 422 that gives both sizes, on create and on edit', async () => {
    const tooLong = await post('/blocks', { label: uniqueLabel(), value: 'x'.repeat(11), limit: 10 });
    expect(tooLong.status).toBe(422);
    expect((await tooLong.json()).detail).toEqual([
      { loc: ['body', 'value'], msg: "Value is 11 characters long, over the block's limit of 10 characters", type: 'value_error' },
    ]);

    const block = await client.blocks.create({ label: uniqueLabel(), value: 'short', limit: 10 });
    const editTooLong = await patch(`/blocks/${block.id}`, { value: 'y'.repeat(12) });
    expect(editTooLong.status).toBe(422);
    expect((await editTooLong.json()).detail[0].msg).toBe("Value is 12 characters long, over the block's limit of 10 characters");

    const limitTooSmall = await patch(`/blocks/${block.id}`, { limit: 3 });
    expect(limitTooSmall.status).toBe(422);
    expect((await limitTooSmall.json()).detail).toEqual([
      { loc: ['body', 'limit'], msg: "Value is 5 characters long, over the block's limit of 3 characters", type: 'value_error' },
    ]);

    // Raising the limit and the value together is one valid edit.
    expect(await client.blocks.update(block.id, { value: 'y'.repeat(12), limit: 20 })).toMatchObject({ value: 'y'.repeat(12), limit: 20 });
  });

  it('answers 422 for malformed bodies and queries', async () => {
    const cases: Array<[Promise<JsonResponse>, Array<string | number>]> = [
      [post('/blocks', { value: 'no label' }), ['body', 'label']],
      [post('/blocks', { label: uniqueLabel() }), ['body', 'value']],
      [post('/blocks', { label: uniqueLabel(), value: 'v', limit: 0 }), ['body', 'limit']],
      [post('/blocks', { label: uniqueLabel(), value: 42 }), ['body', 'value']],
      [api('/blocks?connected_to_agents_count_gt=many'), ['query', 'connected_to_agents_count_gt']],
      [api('/blocks?limit=0'), ['query', 'limit']],
    ];
    for (const [request, loc] of cases) {
      const response = await request;
      expect(response.status, loc.join('.')).toBe(422);
      expect((await response.json()).detail[0].loc).toEqual(loc);
    }
    const block = await client.blocks.create({ label: uniqueLabel(), value: 'v' });
    const badPatch = await patch(`/blocks/${block.id}`, { limit: 'big' });
    expect(badPatch.status).toBe(422);
    expect((await badPatch.json()).detail[0].loc).toEqual(['body', 'limit']);
  });

  it('answers 404 for an unknown block and for one of another organization', async () => {
    const other = await stack.createTenant();
    const foreignClient = new Letta({ apiKey: other.apiKey.key, baseURL: stack.baseUrl, maxRetries: 0 });
    const label = uniqueLabel();
    const foreign = await foreignClient.blocks.create({ label, value: 'classified' });
    const identity = await (await post('/identities', { identifier_key: uniqueLabel(), name: 'Ada', identity_type: 'user' })).json();

    for (const id of [`block-${randomUUID()}`, foreign.id]) {
      const requests: Array<[string, Promise<JsonResponse>]> = [
        ['GET', api(`/blocks/${id}`)],
        ['PATCH', patch(`/blocks/${id}`, { value: 'stolen' })],
        ['DELETE', api(`/blocks/${id}`, { method: 'DELETE' })],
        ['GET agents', api(`/blocks/${id}/agents`)],
        ['attach identity', patch(`/blocks/${id}/identities/attach/${identity.id}`)],
      ];
      for (const [what, request] of requests) {
        const response = await request;
        expect(response.status, `${what} ${id}`).toBe(404);
        expect(await response.json()).toEqual({ detail: 'Block not found' });
      }
    }
    expect(await (await api(`/blocks?label=${label}`)).json()).toEqual([]);
    expect((await foreignClient.blocks.retrieve(foreign.id)).value).toBe('classified');
  });
});

describe('a block shared by several agents', () => {
  it('is one row: an API edit, even of a read-only block, reaches every agent and its system message', async () => {
    const label = uniqueLabel();
    const block = await client.blocks.create({ label, value: 'Launch on Friday.', read_only: true });
    const first = await createAgentWith([block.id]);
    const second = await createAgentWith([block.id]);

    const updated = await client.blocks.update(block.id, { value: 'Launch moved to Monday.', description: 'Team plans' });
    expect(updated).toMatchObject({ id: block.id, value: 'Launch moved to Monday.', description: 'Team plans', read_only: true });

    for (const agent of [first, second]) {
      const seen = await client.agents.blocks.retrieve(label, { agent_id: agent.id });
      expect(seen).toMatchObject({ id: block.id, value: 'Launch moved to Monday.' });
      const system = await systemMessageText(agent.id);
      expect(system).toContain('Launch moved to Monday.');
      expect(system).not.toContain('Launch on Friday.');
    }
  });

  it('survives deleting one of its agents', async () => {
    const label = uniqueLabel();
    const block = await client.blocks.create({ label, value: 'Shared notes' });
    const doomed = await createAgentWith([block.id]);
    const survivor = await createAgentWith([block.id]);

    await client.agents.delete(doomed.id);

    expect((await client.blocks.retrieve(block.id)).value).toBe('Shared notes');
    expect((await client.agents.blocks.retrieve(label, { agent_id: survivor.id })).id).toBe(block.id);
    const users = await (await api(`/blocks/${block.id}/agents`)).json();
    expect(users.map((agent: { id: string }) => agent.id)).toEqual([survivor.id]);
  });

  it('lists its agents as AgentState, paged, with the relationships asked for', async () => {
    const block = await client.blocks.create({ label: uniqueLabel(), value: 'v' });
    const older = await createAgentWith([block.id]);
    const newer = await createAgentWith([block.id]);

    const ids: string[] = [];
    for await (const agent of client.blocks.agents.list(block.id, { limit: 1 })) ids.push(agent.id);
    expect(ids).toEqual([newer.id, older.id]);

    const [withBlocks] = await (await api(`/blocks/${block.id}/agents?order=asc&limit=1&include=agent.blocks`)).json();
    expect(withBlocks).toMatchObject({ id: older.id, name: older.name, agent_type: 'letta_v1_agent', tools: [] });
    expect(withBlocks.blocks.map((attached: { id: string }) => attached.id)).toEqual([block.id]);
    const [plain] = await (await api(`/blocks/${block.id}/agents?order=asc&limit=1`)).json();
    expect(plain.blocks).toEqual([]);
  });

  it('renames the block for every agent, and refuses a label one of them already uses', async () => {
    const label = uniqueLabel();
    const block = await client.blocks.create({ label, value: 'v' });
    const taken = await client.blocks.create({ label: `${label}-taken`, value: 'w' });
    const agent = await createAgentWith([block.id, taken.id]);

    await client.blocks.update(block.id, { label: `${label}-renamed` });
    expect((await client.agents.blocks.retrieve(`${label}-renamed`, { agent_id: agent.id })).id).toBe(block.id);
    expect(await systemMessageText(agent.id)).toContain(`<${label}-renamed>`);

    const conflict = await patch(`/blocks/${block.id}`, { label: `${label}-taken` });
    expect(conflict.status).toBe(409);
    expect((await client.blocks.retrieve(block.id)).label).toBe(`${label}-renamed`);
  });

  it('deleting the block takes it out of every agent and prompt', async () => {
    const label = uniqueLabel();
    const block = await client.blocks.create({ label, value: 'Soon to be gone.' });
    const agent = await createAgentWith([block.id]);

    const deleted = await api(`/blocks/${block.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toBeNull();

    expect((await api(`/blocks/${block.id}`)).status).toBe(404);
    expect((await api(`/agents/${agent.id}/core-memory/blocks/${label}`)).status).toBe(404);
    expect(await systemMessageText(agent.id)).not.toContain('Soon to be gone.');
    expect((await client.agents.retrieve(agent.id)).id).toBe(agent.id);
  });
});

describe('listing blocks', () => {
  it('filters by label, template, project and tags, in creation order by default', async () => {
    const label = uniqueLabel();
    const first = await client.blocks.create({ label, value: 'one', tags: ['red', 'blue'] });
    const second = await client.blocks.create({ label, value: 'two', tags: ['red'] });
    const template = await client.blocks.create({ label, value: 'tpl', is_template: true, template_name: `${label}-tpl` });

    const ids = (blocks: Array<{ id: string }>) => blocks.map((block) => block.id);
    expect(ids(await (await api(`/blocks?label=${label}`)).json())).toEqual([first.id, second.id]);
    expect(ids(await (await api(`/blocks?label=${label}&order=desc`)).json())).toEqual([second.id, first.id]);
    expect(ids(await (await api(`/blocks?label=${label}&after=${first.id}`)).json())).toEqual([second.id]);
    expect(ids(await (await api(`/blocks?label=${label}&templates_only=true`)).json())).toEqual([template.id]);
    expect(ids(await (await api(`/blocks?name=${label}-tpl&templates_only=true`)).json())).toEqual([template.id]);
    expect(ids(await (await api(`/blocks?label=${label}&tags=blue`)).json())).toEqual([first.id]);
    expect(ids(await (await api(`/blocks?label=${label}&tags=red&tags=blue&match_all_tags=true`)).json())).toEqual([first.id]);
    expect(ids(await (await api(`/blocks?label=${label}&project_id=${first.project_id}`)).json())).toEqual([first.id, second.id]);
    expect(await (await api(`/blocks?label=${label}&project_id=project-${randomUUID()}`)).json()).toEqual([]);

    const paged: string[] = [];
    for await (const block of client.blocks.list({ label, limit: 1 })) paged.push(block.id);
    expect(paged).toEqual([first.id, second.id]);
  });

  it('searches labels, descriptions and values, case-insensitively and literally', async () => {
    const label = uniqueLabel();
    const plain = await client.blocks.create({ label: `${label}-Plans`, value: 'Ship 100% of it', description: 'Quarterly GOALS' });
    const other = await client.blocks.create({ label: `${label}-notes`, value: 'Ship 100 of it', description: 'misc' });

    const ids = async (query: string) => ((await (await api(`/blocks?${query}`)).json()) as Array<{ id: string }>).map((block) => block.id);
    expect(await ids(`label_search=${label}-pla`)).toEqual([plain.id]);
    expect(await ids(`label_search=${label}&description_search=goals`)).toEqual([plain.id]);
    expect(await ids(`label_search=${label}&value_search=${encodeURIComponent('100%')}`)).toEqual([plain.id]);
    expect(await ids(`label_search=${label}&value_search=ship`)).toEqual([plain.id, other.id]);
  });
});

describe('identities of a block', () => {
  it('attaches and detaches an identity, which the identity filters then see', async () => {
    const label = uniqueLabel();
    const block = await client.blocks.create({ label, value: 'v' });
    const key = uniqueLabel();
    const identity = await (await post('/identities', { identifier_key: key, name: 'Ada', identity_type: 'user' })).json();

    const attached = await patch(`/blocks/${block.id}/identities/attach/${identity.id}`);
    expect(attached.status).toBe(200);
    expect(await attached.json()).toMatchObject({ id: block.id, label });
    // Attaching again changes nothing.
    expect((await patch(`/blocks/${block.id}/identities/attach/${identity.id}`)).status).toBe(200);

    expect((await (await api(`/identities/${identity.id}`)).json()).block_ids).toEqual([block.id]);
    expect(labelsOf(await (await api(`/blocks?identity_id=${identity.id}`)).json())).toEqual([label]);
    expect(labelsOf(await (await api(`/blocks?identifier_keys=${key}&identifier_keys=nobody`)).json())).toEqual([label]);

    await patch(`/blocks/${block.id}/identities/detach/${identity.id}`);
    expect((await (await api(`/identities/${identity.id}`)).json()).block_ids).toEqual([]);
    expect(await (await api(`/blocks?identity_id=${identity.id}`)).json()).toEqual([]);

    const unknown = await patch(`/blocks/${block.id}/identities/attach/identity-${randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: 'Identity not found' });
  });
});
