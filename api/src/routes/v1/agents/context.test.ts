import { afterAll, describe, expect, it } from 'vitest';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, client, api, stop } = await startAgentTestContext({ inProcessWorker: false });
afterAll(stop);

const context = (agentId: string, apiKey = stack.apiKey) => api(`/agents/${agentId}/context`, { key: apiKey });

describe('the context window overview', () => {
  it('breaks the window into parts whose token estimates add up', async () => {
    const agent = await client.agents.create({
      model: 'openai/gpt-4o-mini',
      memory_blocks: [{ label: 'human', value: 'The human is called Ada and likes sailing.' }],
      initial_message_sequence: [
        { role: 'user', content: 'Hello, I am Ada.' },
        { role: 'assistant', content: 'Nice to meet you, Ada.' },
      ],
    });
    const response = await context(agent.id);
    expect(response.status).toBe(200);
    const overview = await response.json();

    expect(overview).toMatchObject({
      context_window_size_max: 128_000,
      num_messages: 3,
      num_recall_memory: 3,
      num_archival_memory: 0,
      summary_memory: null,
      num_tokens_summary_memory: 0,
    });
    const parts =
      overview.num_tokens_system +
      overview.num_tokens_core_memory +
      overview.num_tokens_external_memory_summary +
      overview.num_tokens_summary_memory +
      overview.num_tokens_functions_definitions +
      overview.num_tokens_messages;
    expect(overview.context_window_size_current).toBe(parts);

    expect(overview.core_memory).toMatch(/^<memory_blocks>[\s\S]*The human is called Ada and likes sailing\.[\s\S]*<\/memory_blocks>$/);
    expect(overview.num_tokens_core_memory).toBe(Math.ceil(overview.core_memory.length / 4));
    expect(overview.external_memory_summary).toContain(`Agent ID: ${agent.id}`);
    expect(overview.system_prompt).not.toContain('<memory_blocks>');
    expect(overview.system_prompt.length).toBeGreaterThan(0);
    expect(overview.num_tokens_messages).toBeGreaterThan(0);

    expect(overview.functions_definitions.map((definition: { function: { name: string } }) => definition.function.name).sort()).toEqual(
      agent.tools.map((tool) => tool.name).sort(),
    );
    expect(overview.functions_definitions[0]).toMatchObject({ type: 'function', function: { parameters: { type: 'object' } } });
    expect(overview.messages.map((message: { role: string }) => message.role)).toEqual(['system', 'user', 'assistant']);
    expect(overview.messages[0].id).toBe(agent.message_ids![0]);
  });

  it("is not available for another organization's agent", async () => {
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini' });
    const other = await stack.createTenant();
    const response = await context(agent.id, other.apiKey.key);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: 'Agent not found' });
  });
});
