import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type Letta from '@letta-ai/letta-client';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { model, client, api, stop } = await startAgentTestContext();
afterEach(() => model.reset());
afterAll(stop);

async function agentWithApprovalOn(tool: string) {
  const agent = await client.agents.create({
    model: 'openai/gpt-4o-mini',
    memory_blocks: [{ label: 'human', value: 'Name: Ada' }],
  } as Parameters<typeof client.agents.create>[0]);
  const toggled = await api(`/agents/${agent.id}/tools/approval/${tool}`, {
    method: 'PATCH',
    body: JSON.stringify({ requires_approval: true }),
  });
  expect(toggled.status).toBe(200);
  return agent;
}

describe('human approval of tool calls', () => {
  it('pauses with an approval request, refuses plain messages meanwhile, and runs the tool once approved', async () => {
    const agent = await agentWithApprovalOn('memory_insert');
    model.enqueue({ type: 'tool_calls', calls: [{ id: 'call_ins', name: 'memory_insert', arguments: { label: 'human', new_string: 'Likes jazz.' } }] });
    const paused = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'remember I like jazz' }] });
    expect(paused.stop_reason.stop_reason).toBe('requires_approval');
    expect(paused.messages.at(-1)).toMatchObject({
      message_type: 'approval_request_message',
      tool_call: { name: 'memory_insert', tool_call_id: 'call_ins' },
    });
    expect((await client.agents.blocks.retrieve('human', { agent_id: agent.id })).value).not.toContain('jazz');

    const refused = await api(`/agents/${agent.id}/messages`, {
      method: 'POST',
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hello?' }] }),
    });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { detail: Record<string, unknown> }).detail).toMatchObject({
      code: 'PENDING_APPROVAL',
      pending_request_id: expect.stringMatching(/^message-/),
    });

    model.enqueue({ type: 'text', text: 'Saved.' });
    const resumed = await client.agents.messages.create(agent.id, {
      messages: [{ type: 'approval', approvals: [{ type: 'approval', tool_call_id: 'call_ins', approve: true }] }],
    });
    expect(resumed.messages.map((message) => message.message_type)).toEqual(['tool_return_message', 'assistant_message']);
    expect(resumed.messages[0]).toMatchObject({ status: 'success', tool_call_id: 'call_ins' });
    expect(resumed.stop_reason.stop_reason).toBe('end_turn');
    expect((await client.agents.blocks.retrieve('human', { agent_id: agent.id })).value).toContain('Likes jazz.');
  });

  it('denies with a reason: the tool does not run and the model sees the reason', async () => {
    const agent = await agentWithApprovalOn('memory_insert');
    model.enqueue({ type: 'tool_calls', calls: [{ id: 'call_deny', name: 'memory_insert', arguments: { label: 'human', new_string: 'secret' } }] });
    await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'store a secret' }] });
    model.enqueue({ type: 'text', text: 'Understood, I will not store it.' });
    const resumed = await client.agents.messages.create(agent.id, {
      messages: [{ type: 'approval', approvals: [{ type: 'approval', tool_call_id: 'call_deny', approve: false, reason: 'no secrets in memory' }] }],
    });
    expect(resumed.messages[0]).toMatchObject({ message_type: 'tool_return_message', status: 'error' });
    expect(String((resumed.messages[0] as { tool_return: string }).tool_return)).toContain('no secrets in memory');
    expect((await client.agents.blocks.retrieve('human', { agent_id: agent.id })).value).not.toContain('secret');
    const toolMessage = model.requests.at(-1)?.messages.find((message) => message.role === 'tool');
    expect(JSON.stringify(toolMessage)).toContain('no secrets in memory');
  });

  it('accepts the legacy approve + approval_request_id form', async () => {
    const agent = await agentWithApprovalOn('memory_insert');
    model.enqueue({ type: 'tool_calls', calls: [{ id: 'call_legacy', name: 'memory_insert', arguments: { label: 'human', new_string: 'Plays chess.' } }] });
    const paused = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'I play chess' }] });
    const requestId = paused.messages.at(-1)?.id as string;
    model.enqueue({ type: 'text', text: 'ok' });
    const resumed = await api(`/agents/${agent.id}/messages`, {
      method: 'POST',
      body: JSON.stringify({ messages: [{ type: 'approval', approve: true, approval_request_id: requestId }] }),
    });
    expect(resumed.status).toBe(200);
    expect((await client.agents.blocks.retrieve('human', { agent_id: agent.id })).value).toContain('Plays chess.');
  });

  it('answers 400 to an approval when nothing is pending', async () => {
    const agent = await agentWithApprovalOn('memory_insert');
    const response = await api(`/agents/${agent.id}/messages`, {
      method: 'POST',
      body: JSON.stringify({ messages: [{ type: 'approval', approvals: [{ tool_call_id: 'nope', approve: true }] }] }),
    });
    expect(response.status).toBe(400);
  });
});

describe('client-side tools', () => {
  it('pauses on a client tool call and resumes with the tool return the client sends', async () => {
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini' } as Parameters<typeof client.agents.create>[0]);
    model.enqueue({ type: 'tool_calls', calls: [{ id: 'call_weather', name: 'get_weather', arguments: { city: 'Oslo' } }] });
    const paused = await client.agents.messages.create(agent.id, {
      messages: [{ role: 'user', content: 'weather in Oslo?' }],
      client_tools: [{ name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
    });
    expect(paused.stop_reason.stop_reason).toBe('requires_approval');
    expect(model.requests[0]?.tools?.map((tool) => tool.function.name)).toContain('get_weather');

    model.enqueue({ type: 'text', text: 'It is 3°C in Oslo.' });
    const resumed = (await client.agents.messages.create(agent.id, {
      messages: [{ type: 'tool_return', tool_returns: [{ tool_call_id: 'call_weather', status: 'success', tool_return: '3°C, cloudy' }] }],
    })) as Letta.Agents.Messages.LettaResponse;
    expect(resumed.messages.map((message) => message.message_type)).toEqual(['tool_return_message', 'assistant_message']);
    expect(JSON.stringify(model.requests.at(-1)?.messages)).toContain('3°C, cloudy');
  });
});

describe('tool rules and step limits', () => {
  it('ends the turn with stop reason tool_rule when an exit_loop tool is called', async () => {
    const agent = await client.agents.create({
      model: 'openai/gpt-4o-mini',
      tool_rules: [{ type: 'exit_loop', tool_name: 'conversation_search' }],
    } as Parameters<typeof client.agents.create>[0]);
    model.enqueue({ type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'x' } }] });
    const response = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'search' }] });
    expect(response.stop_reason.stop_reason).toBe('tool_rule');
    expect(model.requests).toHaveLength(1);
  });

  it('forces the run_first tool on a fresh agent and constrains children afterwards', async () => {
    const agent = await client.agents.create({
      model: 'openai/gpt-4o-mini',
      tool_rules: [
        { type: 'run_first', tool_name: 'conversation_search' },
        { type: 'constrain_child_tools', tool_name: 'conversation_search', children: ['memory_insert'] },
      ],
      memory_blocks: [{ label: 'human', value: '' }],
    } as Parameters<typeof client.agents.create>[0]);
    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'a' } }] },
      { type: 'tool_calls', calls: [{ name: 'memory_insert', arguments: { label: 'human', new_string: 'x' } }] },
      { type: 'text', text: 'done' },
    );
    await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'go' }] });
    const [first, second] = model.requests;
    expect(first?.tools?.map((tool) => tool.function.name)).toEqual(['conversation_search']);
    expect(first?.tool_choice).toBeDefined();
    expect(second?.tools?.map((tool) => tool.function.name)).toEqual(['memory_insert']);
  });

  it('reports a disallowed call back to the model instead of executing it', async () => {
    const agent = await client.agents.create({
      model: 'openai/gpt-4o-mini',
      tool_rules: [{ type: 'max_count_per_step', tool_name: 'conversation_search', max_count_limit: 1 }],
    } as Parameters<typeof client.agents.create>[0]);
    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'a' } }] },
      { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'b' } }] },
      { type: 'text', text: 'ok' },
    );
    const response = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'go' }] });
    const returns = response.messages.filter((message) => message.message_type === 'tool_return_message');
    expect(returns.map((message) => (message as { status: string }).status)).toEqual(['success', 'error']);
    expect(model.requests[1]?.tools?.map((tool) => tool.function.name) ?? []).not.toContain('conversation_search');
  });

  it('stops with max_steps when the model keeps calling tools', async () => {
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini' } as Parameters<typeof client.agents.create>[0]);
    model.onRequest(() => ({ type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'again' } }] }));
    const response = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'loop' }], max_steps: 3 });
    expect(response.stop_reason.stop_reason).toBe('max_steps');
    expect(response.usage.step_count).toBe(3);
    expect(model.requests).toHaveLength(3);
  });
});

describe('paging the message history', () => {
  it('pages with after/before cursors and returns the latest page in chronological order', async () => {
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini' } as Parameters<typeof client.agents.create>[0]);
    model.onRequest((request) => ({ type: 'text', text: `echo ${JSON.stringify(request.messages.at(-1)?.content)}` }));
    for (const word of ['a', 'b', 'c']) await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: word }] });
    const latest = await client.agents.messages.list(agent.id, { limit: 2 });
    expect(latest.items.map((message) => (message as { content: string }).content)).toEqual(['c', 'echo "c"']);
    const oldest = await client.agents.messages.list(agent.id, { limit: 2, order: 'asc' });
    expect(oldest.items.map((message) => (message as { content: string }).content)).toEqual(['a', 'echo "a"']);
    const next = await client.agents.messages.list(agent.id, { limit: 2, order: 'asc', after: oldest.items[1]?.id });
    expect(next.items.map((message) => (message as { content: string }).content)).toEqual(['b', 'echo "b"']);
    const all = [];
    for await (const message of client.agents.messages.list(agent.id, { limit: 2, order: 'asc' })) all.push(message);
    expect(all).toHaveLength(6);
  });
});
