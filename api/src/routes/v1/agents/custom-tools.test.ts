import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { model, client, stop } = await startAgentTestContext();
afterEach(() => model.reset());
afterAll(stop);

const ADD_NUMBERS = `
def add_numbers(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first number.
        b: The second number.

    Returns:
        The sum.
    """
    print("adding", a, b)
    return a + b
`;

const EXPLODE = `
def explode(reason: str) -> str:
    """Always fails.

    Args:
        reason: Why it fails.
    """
    raise ValueError(reason)
`;

async function agentWithTool(sourceCode: string) {
  const tool = await client.tools.create({ source_code: sourceCode });
  const agent = await client.agents.create({ model: 'openai/gpt-4o-mini', tool_ids: [tool.id] } as Parameters<typeof client.agents.create>[0]);
  return { tool, agent };
}

describe('custom tools in the agent loop', () => {
  it('runs a Python tool in the sandbox as its own step activity and returns its result to the model', async () => {
    const { agent } = await agentWithTool(ADD_NUMBERS);
    model.enqueue(
      { type: 'tool_calls', calls: [{ id: 'call_add', name: 'add_numbers', arguments: { a: 2, b: 40 } }] },
      { type: 'text', text: 'The sum is 42.' },
    );
    const response = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'add 2 and 40' }] });
    expect(response.messages.map((message) => message.message_type)).toEqual(['tool_call_message', 'tool_return_message', 'assistant_message']);
    expect(response.messages[1]).toMatchObject({ status: 'success', tool_call_id: 'call_add', tool_return: '42' });
    expect((response.messages[1] as { stdout?: string[] }).stdout?.join('')).toContain('adding 2 40');
    expect(model.requests[0]?.tools?.map((tool) => tool.function.name)).toContain('add_numbers');
    const toolMessage = model.requests[1]?.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toBe('42');
  });

  it('reports a failing tool to the model without failing the run', async () => {
    const { agent } = await agentWithTool(EXPLODE);
    model.enqueue(
      { type: 'tool_calls', calls: [{ id: 'call_boom', name: 'explode', arguments: { reason: 'disk on fire' } }] },
      { type: 'text', text: 'The tool failed.' },
    );
    const response = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'try it' }] });
    expect(response.stop_reason.stop_reason).toBe('end_turn');
    const toolReturn = response.messages[1] as { status: string; tool_return: string };
    expect(toolReturn.status).toBe('error');
    expect(toolReturn.tool_return).toMatch(/ValueError.*disk on fire/);
  });
});
