import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { createAgent } from '@engram/testing/factories/index';

const { stack, client, api, post, stop } = await startAgentTestContext({ inProcessWorker: false });
afterAll(stop);

/** A label prefix of one test's own, so list filters only see the blocks that test made. */
const uniqueLabel = () => `i${randomUUID().slice(0, 8)}`;

async function createBlock(body: Record<string, unknown>): Promise<{ id: string; label: string }> {
  const response = await post('/_internal_blocks/', body);
  expect(response.status).toBe(200);
  return response.json();
}

const createAgentWith = (blockIds: string[]) => createAgent(stack, { block_ids: blockIds, include_base_tools: false });

async function listedIds(query: string): Promise<string[]> {
  const response = await api(`/_internal_blocks?${query}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as Array<{ id: string }>).map((block) => block.id);
}

describe('/_internal_blocks', () => {
  it('filters by how many agents use a block', async () => {
    const prefix = uniqueLabel();
    const unused = await createBlock({ label: `${prefix}-a`, value: 'nobody' });
    const single = await createBlock({ label: `${prefix}-b`, value: 'one agent' });
    const shared = await createBlock({ label: `${prefix}-c`, value: 'two agents' });
    await createAgentWith([single.id, shared.id]);
    await createAgentWith([shared.id]);

    const scope = `label_search=${prefix}`;
    expect(await listedIds(scope)).toEqual([unused.id, single.id, shared.id]);
    expect(await listedIds(`${scope}&connected_to_agents_count_eq=1`)).toEqual([single.id]);
    expect(await listedIds(`${scope}&connected_to_agents_count_eq=0&connected_to_agents_count_eq=2`)).toEqual([unused.id, shared.id]);
    expect(await listedIds(`${scope}&connected_to_agents_count_gt=0`)).toEqual([single.id, shared.id]);
    expect(await listedIds(`${scope}&connected_to_agents_count_lt=2`)).toEqual([unused.id, single.id]);
    expect(await listedIds(`${scope}&connected_to_agents_count_gt=0&connected_to_agents_count_lt=2`)).toEqual([single.id]);
  });

  it('searches labels, descriptions and values, and filters by label, template and identity', async () => {
    const prefix = uniqueLabel();
    const persona = await createBlock({ label: `${prefix}-persona`, value: 'I speak FRENCH', description: 'Who the agent is' });
    const human = await createBlock({ label: `${prefix}-human`, value: 'Speaks english', description: 'About the user' });
    const template = await createBlock({ label: `${prefix}-persona`, value: 'template', is_template: true, template_name: `${prefix}-tpl` });
    const key = uniqueLabel();
    const identity = await (await post('/identities', { identifier_key: key, name: 'Ada', identity_type: 'user', block_ids: [human.id] })).json();

    const scope = `label_search=${prefix}`;
    expect(await listedIds(`${scope}&value_search=french`)).toEqual([persona.id]);
    expect(await listedIds(`${scope}&value_search=speak`)).toEqual([persona.id, human.id]);
    expect(await listedIds(`${scope}&description_search=USER`)).toEqual([human.id]);
    expect(await listedIds(`label_search=${prefix}-PERS`)).toEqual([persona.id]);
    expect(await listedIds(`label=${prefix}-persona`)).toEqual([persona.id]);
    expect(await listedIds(`label=${prefix}-persona&templates_only=true`)).toEqual([template.id]);
    expect(await listedIds(`templates_only=true&name=${prefix}-tpl`)).toEqual([template.id]);
    expect(await listedIds(`identity_id=${identity.id}`)).toEqual([human.id]);
    expect(await listedIds(`identifier_keys=${key}`)).toEqual([human.id]);
    expect(await listedIds(`${scope}&order=desc&limit=1`)).toEqual([human.id]);
  });

  it('creates with the limit enforced, lists a block’s agents and deletes it', async () => {
    const tooLong = await post('/_internal_blocks', { label: uniqueLabel(), value: 'x'.repeat(6), limit: 5 });
    expect(tooLong.status).toBe(422);
    expect((await tooLong.json()).detail[0].msg).toBe("Value is 6 characters long, over the block's limit of 5 characters");
    const malformed = await post('/_internal_blocks', { label: '', value: 'v' });
    expect(malformed.status).toBe(422);
    expect((await malformed.json()).detail[0].loc).toEqual(['body', 'label']);

    const block = await createBlock({ label: uniqueLabel(), value: 'v', read_only: true });
    expect(block).toMatchObject({ read_only: true, value: 'v' });
    const agent = await createAgentWith([block.id]);

    const agents = await (await api(`/_internal_blocks/${block.id}/agents?include=agent.blocks`)).json();
    expect(agents.map((listed: { id: string }) => listed.id)).toEqual([agent.id]);
    expect(agents[0].blocks.map((attached: { id: string }) => attached.id)).toEqual([block.id]);

    const deleted = await api(`/_internal_blocks/${block.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toBeNull();
    expect((await api(`/blocks/${block.id}`)).status).toBe(404);
    expect((await client.agents.retrieve(agent.id, { include: ['agent.blocks'] })).blocks).toEqual([]);
  });

  it("answers 404 for an unknown block and another organization's, and never lists them", async () => {
    const other = await stack.createTenant();
    const label = uniqueLabel();
    const foreign = await (await post('/_internal_blocks', { label, value: 'classified' }, other.apiKey.key)).json();

    for (const id of [`block-${randomUUID()}`, foreign.id]) {
      for (const response of [await api(`/_internal_blocks/${id}`, { method: 'DELETE' }), await api(`/_internal_blocks/${id}/agents`)]) {
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual({ detail: 'Block not found' });
      }
    }
    expect(await listedIds(`label=${label}`)).toEqual([]);
    expect((await api(`/_internal_blocks/${foreign.id}/agents`, { key: other.apiKey.key })).status).toBe(200);
  });
});
