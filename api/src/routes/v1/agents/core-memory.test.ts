import { afterAll, describe, expect, it } from 'vitest';
import Letta from '@letta-ai/letta-client';
import { AgentBlock } from '@engram/db';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, client, api, systemMessageText, stop } = await startAgentTestContext({ inProcessWorker: false });
afterAll(stop);

function createAgent() {
  return client.agents.create({
    model: 'openai/gpt-4o-mini',
    memory_blocks: [
      { label: 'human', value: 'The human is called Ada.', limit: 100 },
      { label: 'persona', value: 'I am a careful agent.', read_only: true },
      { label: 'notes', value: '' },
    ],
  });
}

describe('core memory blocks by label', () => {
  it('reads the memory, the block list (paged) and one block', async () => {
    const agent = await createAgent();

    const memory = await (await api(`/agents/${agent.id}/core-memory`)).json();
    expect(memory).toMatchObject({ file_blocks: [], prompt_template: expect.any(String) });
    expect(memory.blocks.map((block: { label: string }) => block.label)).toEqual(['human', 'persona', 'notes']);

    const labels: string[] = [];
    for await (const block of client.agents.blocks.list(agent.id, { limit: 1 })) labels.push(block.label!);
    expect(labels).toEqual(['human', 'persona', 'notes']);
    const [last] = await (await api(`/agents/${agent.id}/core-memory/blocks?order=desc&limit=1`)).json();
    expect(last.label).toBe('notes');

    const human = await client.agents.blocks.retrieve('human', { agent_id: agent.id });
    expect(human).toMatchObject({ label: 'human', value: 'The human is called Ada.', limit: 100, read_only: false });

    const missing = await api(`/agents/${agent.id}/core-memory/blocks/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: "Block with label 'nope' not found" });
  });

  it('edits a block and recompiles the system message', async () => {
    const agent = await createAgent();
    const updated = await client.agents.blocks.update('human', {
      agent_id: agent.id,
      value: 'The human is called Grace.',
      description: 'About the user',
      metadata: { source: 'api' },
    });
    expect(updated).toMatchObject({ value: 'The human is called Grace.', description: 'About the user', metadata: { source: 'api' } });

    const system = await systemMessageText(agent.id);
    expect(system).toContain('The human is called Grace.');
    expect(system).not.toContain('The human is called Ada.');
  });

  it('lets the API edit a read-only block', async () => {
    const agent = await createAgent();
    const response = await api(`/agents/${agent.id}/core-memory/blocks/persona`, {
      method: 'PATCH',
      body: JSON.stringify({ value: 'I changed my mind.' }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ value: 'I changed my mind.', read_only: true });
  });

  it('refuses a value over the limit, and a limit under the value, with 422', async () => {
    const agent = await createAgent();
    const tooLong = await api(`/agents/${agent.id}/core-memory/blocks/human`, {
      method: 'PATCH',
      body: JSON.stringify({ value: 'x'.repeat(101) }),
    });
    expect(tooLong.status).toBe(422);
    expect((await tooLong.json()).detail).toEqual([
      { loc: ['body', 'value'], msg: "Value is 101 characters long, over the block's limit of 100 characters", type: 'value_error' },
    ]);

    const tooSmall = await api(`/agents/${agent.id}/core-memory/blocks/human`, { method: 'PATCH', body: JSON.stringify({ limit: 5 }) });
    expect(tooSmall.status).toBe(422);
    expect((await tooSmall.json()).detail[0].loc).toEqual(['body', 'limit']);

    const badType = await api(`/agents/${agent.id}/core-memory/blocks/human`, { method: 'PATCH', body: JSON.stringify({ limit: 'big' }) });
    expect(badType.status).toBe(422);
    expect((await badType.json()).detail[0].loc).toEqual(['body', 'limit']);

    expect((await client.agents.blocks.retrieve('human', { agent_id: agent.id })).value).toBe('The human is called Ada.');
  });

  it('renames a block so it is found under its new label', async () => {
    const agent = await createAgent();
    await client.agents.blocks.update('notes', { agent_id: agent.id, label: 'journal', value: 'day one' });
    expect((await client.agents.blocks.retrieve('journal', { agent_id: agent.id })).value).toBe('day one');
    expect((await api(`/agents/${agent.id}/core-memory/blocks/notes`)).status).toBe(404);
    expect(await systemMessageText(agent.id)).toContain('<journal>');
    // The agent's own label for the block follows, so the per-agent unique-label rule keeps holding.
    const link = await AgentBlock.query(stack.db).where({ agentId: agent.id }).where('label', 'journal').first();
    expect(link).toBeDefined();
    const clash = await api(`/agents/${agent.id}/core-memory/blocks/journal`, {
      method: 'PATCH',
      body: JSON.stringify({ label: 'human' }),
    });
    expect(clash.status).toBe(409);
  });
});

describe('attaching and detaching blocks', () => {
  it('shares a block between agents, and an edit reaches both system messages', async () => {
    const owner = await createAgent();
    const project = await client.agents.create({
      model: 'openai/gpt-4o-mini',
      memory_blocks: [{ label: 'project', value: 'Launch on Friday.' }],
    });
    const projectBlock = project.blocks[0]!;

    const attached = await client.agents.blocks.attach(projectBlock.id!, { agent_id: owner.id });
    expect(attached.blocks.map((block) => block.label)).toEqual(['human', 'persona', 'notes', 'project']);
    expect(await systemMessageText(owner.id)).toContain('Launch on Friday.');

    const again = await client.agents.blocks.attach(projectBlock.id!, { agent_id: owner.id });
    expect(again.blocks).toHaveLength(4);

    await client.agents.blocks.update('project', { agent_id: project.id, value: 'Launch moved to Monday.' });
    expect(await systemMessageText(owner.id)).toContain('Launch moved to Monday.');

    const detached = await client.agents.blocks.detach(projectBlock.id!, { agent_id: owner.id });
    expect(detached.blocks.map((block) => block.label)).toEqual(['human', 'persona', 'notes']);
    expect(await systemMessageText(owner.id)).not.toContain('Launch moved to Monday.');
    expect((await client.agents.blocks.retrieve('project', { agent_id: project.id })).value).toBe('Launch moved to Monday.');
  });

  it('refuses a second block under a taken label, and unknown blocks', async () => {
    const first = await createAgent();
    const second = await createAgent();
    const otherHuman = second.blocks.find((block) => block.label === 'human')!;

    const conflict = await api(`/agents/${first.id}/core-memory/blocks/attach/${otherHuman.id}`, { method: 'PATCH' });
    expect(conflict.status).toBe(409);
    expect((await conflict.json()).detail).toContain("'human'");

    const unknown = await api(`/agents/${first.id}/core-memory/blocks/attach/block-00000000-0000-4000-8000-000000000000`, { method: 'PATCH' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: 'Block not found' });
  });

  it("cannot reach another organization's blocks", async () => {
    const other = await stack.createTenant();
    const foreignClient = new Letta({ apiKey: other.apiKey.key, baseURL: stack.baseUrl, maxRetries: 0 });
    const foreign = await foreignClient.agents.create({
      model: 'openai/gpt-4o-mini',
      memory_blocks: [{ label: 'secret', value: 'classified' }],
    });
    const mine = await createAgent();

    const attach = await api(`/agents/${mine.id}/core-memory/blocks/attach/${foreign.blocks[0]!.id}`, { method: 'PATCH' });
    expect(attach.status).toBe(404);
    const read = await api(`/agents/${foreign.id}/core-memory/blocks/secret`);
    expect(read.status).toBe(404);
    expect(await read.json()).toEqual({ detail: 'Agent not found' });
  });
});
