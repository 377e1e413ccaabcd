import { afterAll, describe, expect, it } from 'vitest';
import { createAgent } from '@engram/testing/factories/index';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, model, client, systemMessageText, stop } = await startAgentTestContext();
afterAll(stop);

type ToolReturn = { message_type: string; status?: string; tool_return?: string };

const agentWithMemoryTools = (fields: Record<string, unknown> = {}) =>
  createAgent(stack, {
    tools: ['memory', 'memory_apply_patch'],
    include_base_tools: false,
    memory_blocks: [
      { label: 'human', value: 'Name: Ada\nLikes: tea', description: 'What I know about the user.' },
      { label: 'persona', value: 'I am helpful.', read_only: true },
    ],
    ...fields,
  });

/** Runs one turn in which the model makes `calls` one after another, and returns each call's tool return. */
async function callTools(agentId: string, calls: Array<{ name: string; arguments: Record<string, unknown> }>): Promise<ToolReturn[]> {
  model.enqueue({ type: 'tool_calls', calls }, { type: 'text', text: 'Done.' });
  const response = await client.agents.messages.create(agentId, { messages: [{ role: 'user', content: 'Update your memory.' }] });
  return (response.messages as ToolReturn[]).filter((message) => message.message_type === 'tool_return_message');
}

const memory = (args: Record<string, unknown>) => ({ name: 'memory', arguments: args });
const labelsOf = async (agentId: string) => (await client.agents.blocks.list(agentId)).items.map((block) => block.label).sort();
const valueOf = async (agentId: string, label: string) => (await client.agents.blocks.retrieve(label, { agent_id: agentId })).value;

describe("Letta's memory tool", () => {
  it('views the block list and one block with line numbers', async () => {
    const agent = await agentWithMemoryTools();
    const [list, one, missing] = await callTools(agent.id, [
      memory({ command: 'view', path: '/memories' }),
      memory({ command: 'view', path: '/memories/human' }),
      memory({ command: 'view', path: '/memories/nothing' }),
    ]);
    expect(list).toMatchObject({ status: 'success' });
    expect(list!.tool_return).toContain('/memories/human (20/20000 characters): What I know about the user.');
    expect(list!.tool_return).toContain('/memories/persona (13/20000 characters, read-only)');
    expect(one!.tool_return).toContain('     1→ Name: Ada\n     2→ Likes: tea');
    expect(missing).toMatchObject({ status: 'error' });
    expect(missing!.tool_return).toContain('there is no memory block at /memories/nothing');
  });

  it('creates a block, replaces and inserts text, and the prompt shows the result', async () => {
    const agent = await agentWithMemoryTools();
    const returns = await callTools(agent.id, [
      memory({ command: 'create', path: '/memories/projects', description: 'Projects the user works on.', file_text: 'Engram' }),
      memory({ command: 'str_replace', path: '/memories/human', old_string: 'Likes: tea', new_string: 'Likes: coffee' }),
      memory({ command: 'insert', path: '/memories/human', insert_line: 0, insert_text: 'User profile' }),
      memory({ command: 'insert', path: '/memories/projects', insert_text: 'Letta Code' }),
    ]);
    expect(returns.map((item) => item.status)).toEqual(['success', 'success', 'success', 'success']);
    expect(await labelsOf(agent.id)).toEqual(['human', 'persona', 'projects']);
    expect(await valueOf(agent.id, 'human')).toBe('User profile\nName: Ada\nLikes: coffee');
    expect(await valueOf(agent.id, 'projects')).toBe('Engram\nLetta Code');
    expect((await client.agents.blocks.retrieve('projects', { agent_id: agent.id })).description).toBe('Projects the user works on.');
    expect(await systemMessageText(agent.id)).toContain('Letta Code');
  });

  it('renames a block, changes a description, deletes a block, and keeps the character limit and read-only blocks', async () => {
    const agent = await agentWithMemoryTools();
    const [renamed, described, deleted, readOnly, overLimit, duplicate, unknown] = await callTools(agent.id, [
      memory({ command: 'rename', old_path: '/memories/human', new_path: '/memories/user' }),
      memory({ command: 'rename', path: '/memories/user', description: 'The user, in brief.' }),
      memory({ command: 'create', path: '/memories/scratch', description: 'Scratch space.' }),
      memory({ command: 'delete', path: '/memories/persona' }),
      memory({ command: 'str_replace', path: '/memories/user', old_string: 'Ada', new_string: 'A'.repeat(20_001) }),
      memory({ command: 'create', path: '/memories/user', description: 'Again.' }),
      memory({ command: 'shred', path: '/memories/user' }),
    ]);
    expect([renamed?.status, described?.status, deleted?.status]).toEqual(['success', 'success', 'success']);
    expect(readOnly).toMatchObject({ status: 'error' });
    expect(readOnly!.tool_return).toContain('read-only');
    expect(overLimit!.tool_return).toContain("over the block's limit of 20000");
    expect(duplicate!.tool_return).toContain('already exists at /memories/user');
    expect(unknown!.tool_return).toContain('unknown memory command "shred"');

    const [removed] = await callTools(agent.id, [memory({ command: 'delete', path: '/memories/scratch' })]);
    expect(removed).toMatchObject({ status: 'success' });
    expect(await labelsOf(agent.id)).toEqual(['persona', 'user']);
    const user = await client.agents.blocks.retrieve('user', { agent_id: agent.id });
    expect(user).toMatchObject({ value: 'Name: Ada\nLikes: tea', description: 'The user, in brief.' });
    const prompt = await systemMessageText(agent.id);
    expect(prompt).toContain('<user>');
    expect(prompt).not.toContain('<human>');
    expect(prompt).not.toContain('<scratch>');
  });

  it('loses neither of two concurrent edits of a shared block', async () => {
    const shared = await client.blocks.create({ label: 'team', value: 'Team notes.' });
    const [first, second] = [
      await agentWithMemoryTools({ block_ids: [shared.id] }),
      await agentWithMemoryTools({ block_ids: [shared.id] }),
    ];
    // Both model calls are held until both turns have asked, so the two edits race.
    let release!: () => void;
    const bothAsked = new Promise<void>((resolve) => (release = resolve));
    const insert = (text: string) => ({
      type: 'tool_calls' as const,
      until: bothAsked,
      calls: [memory({ command: 'insert', path: '/memories/team', insert_text: text })],
      match: (request: { messages: Array<{ content?: unknown }> }) => JSON.stringify(request.messages).includes(text),
    });
    model.enqueue(insert('Release on Friday.'), insert('Demo on Monday.'), { type: 'text', text: 'Noted.' }, { type: 'text', text: 'Noted.' });
    const turns = [
      client.agents.messages.create(first.id, { messages: [{ role: 'user', content: 'Remember: Release on Friday.' }] }),
      client.agents.messages.create(second.id, { messages: [{ role: 'user', content: 'Remember: Demo on Monday.' }] }),
    ];
    const started = Date.now();
    while (model.requests.filter((request) => JSON.stringify(request.messages).includes('Remember:')).length < 2 && Date.now() - started < 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    release();
    await Promise.all(turns);
    const value = (await client.blocks.retrieve(shared.id)).value;
    expect(value.split('\n').sort()).toEqual(['Demo on Monday.', 'Release on Friday.', 'Team notes.']);

    // One label for every agent that shares the block: neither may rename it under the other.
    const [renamed] = await callTools(first.id, [memory({ command: 'rename', old_path: '/memories/team', new_path: '/memories/mine' })]);
    expect(renamed).toMatchObject({ status: 'error' });
    expect(renamed!.tool_return).toContain('/memories/team is shared with 1 other agent, so it cannot be renamed');
    expect(await labelsOf(second.id)).toEqual(['human', 'persona', 'team']);
  });
});

describe("Letta's memory_apply_patch tool", () => {
  it('applies a patch to a block, or nothing when a hunk does not match', async () => {
    const agent = await agentWithMemoryTools();
    const patch = ['*** Begin Patch', '@@', ' Name: Ada', '-Likes: tea', '+Likes: coffee', '+City: Paris', '*** End Patch'].join('\n');
    const [applied, stale] = await callTools(agent.id, [
      { name: 'memory_apply_patch', arguments: { label: 'human', patch } },
      { name: 'memory_apply_patch', arguments: { label: 'human', patch: '@@\n-Likes: tea\n+Likes: milk' } },
    ]);
    expect(applied).toMatchObject({ status: 'success' });
    expect(stale).toMatchObject({ status: 'error' });
    expect(stale!.tool_return).toContain('hunk 1 were not found');
    expect(await valueOf(agent.id, 'human')).toBe('Name: Ada\nLikes: coffee\nCity: Paris');
  });
});
