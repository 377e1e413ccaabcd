import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Message, Run } from '@engram/db';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { createAgent as createAgentWith } from '@engram/testing/factories/index';
import { until } from '@engram/testing';

const { stack, model, client, api, stop } = await startAgentTestContext();
afterEach(() => model.reset());
afterAll(stop);

const createAgent = (fields: Record<string, unknown> = {}) =>
  createAgentWith(stack, { memory_blocks: [{ label: 'human', value: 'The human is called Ada.' }], ...fields });

const patchMessage = (agentId: string, messageId: string, body: Record<string, unknown>, apiKey?: string) =>
  api(`/agents/${agentId}/messages/${messageId}`, { method: 'PATCH', body: JSON.stringify(body), key: apiKey });

async function history(agentId: string) {
  return (await client.agents.messages.list(agentId, { order: 'asc' })).items as unknown as Array<Record<string, unknown>>;
}

function waitForRun(runId: string, status: string) {
  return until(() => client.runs.retrieve(runId), (run) => run.status === status, { what: `run ${runId} ${status}` });
}

describe('editing a message', () => {
  it('rewrites user, assistant and reasoning messages; the listing and the next model call show the new text', async () => {
    const agent = await createAgent();
    model.enqueue({ type: 'text', text: 'Hello there!', reasoning: 'A greeting.' });
    await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'Hi' }] });
    const [user, reasoning, assistant] = await history(agent.id);
    expect([user?.message_type, reasoning?.message_type, assistant?.message_type]).toEqual(['user_message', 'reasoning_message', 'assistant_message']);

    const editedUser = await patchMessage(agent.id, user?.id as string, { message_type: 'user_message', content: 'Hi, I am Ada' });
    expect(editedUser.status).toBe(200);
    expect(await editedUser.json()).toMatchObject({ id: user?.id, message_type: 'user_message', content: 'Hi, I am Ada' });
    const editedAssistant = await patchMessage(agent.id, assistant?.id as string, {
      message_type: 'assistant_message',
      content: [{ type: 'text', text: 'Hello, Ada.' }],
    });
    expect(await editedAssistant.json()).toMatchObject({ id: assistant?.id, message_type: 'assistant_message', content: 'Hello, Ada.' });
    const editedReasoning = await patchMessage(agent.id, reasoning?.id as string, { message_type: 'reasoning_message', reasoning: 'She gave her name.' });
    expect(await editedReasoning.json()).toMatchObject({ message_type: 'reasoning_message', reasoning: 'She gave her name.', source: 'reasoner_model' });

    expect((await history(agent.id)).map((message) => message.content ?? message.reasoning)).toEqual([
      'Hi, I am Ada',
      'She gave her name.',
      'Hello, Ada.',
    ]);

    model.enqueue({ type: 'text', text: 'Yes.' });
    await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'Do you remember me?' }] });
    expect(model.requests.at(-1)?.messages.slice(1)).toEqual([
      { role: 'user', content: 'Hi, I am Ada' },
      { role: 'assistant', content: 'Hello, Ada.' },
      { role: 'user', content: 'Do you remember me?' },
    ]);
  });

  it('rewrites the system message, which the next model call sends as its system prompt', async () => {
    const agent = await createAgent();
    const systemId = agent.message_ids?.[0] as string;
    const edited = await patchMessage(agent.id, systemId, { message_type: 'system_message', content: 'You only speak in haiku.' });
    expect(await edited.json()).toMatchObject({ id: systemId, message_type: 'system_message', content: 'You only speak in haiku.' });

    model.enqueue({ type: 'text', text: 'Autumn moon rises' });
    await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'Hi' }] });
    expect(model.requests.at(-1)?.messages[0]).toEqual({ role: 'system', content: 'You only speak in haiku.' });
  });

  it('edits the send_message text and inner monologue of a legacy agent', async () => {
    const agent = await createAgent({ agent_type: 'memgpt_v2_agent' });
    model.enqueue({ type: 'tool_calls', text: 'Greet her.', calls: [{ name: 'send_message', arguments: { message: 'Hi Ada' } }] });
    await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'Hello' }] });
    const [, monologue, spoken] = await history(agent.id);
    expect([monologue?.message_type, spoken?.message_type]).toEqual(['reasoning_message', 'assistant_message']);

    await patchMessage(agent.id, spoken?.id as string, { message_type: 'assistant_message', content: 'Good morning, Ada' });
    await patchMessage(agent.id, monologue?.id as string, { message_type: 'reasoning_message', reasoning: 'Be polite.' });
    const [, newMonologue, newSpoken] = await history(agent.id);
    expect(newMonologue).toMatchObject({ reasoning: 'Be polite.' });
    expect(newSpoken).toMatchObject({ content: 'Good morning, Ada' });
    const stored = await Message.query(stack.db).forOrg(stack.tenant.organizationId).findById(spoken?.id as string);
    expect(JSON.parse(stored?.toolCalls?.[0]?.function.arguments ?? '{}')).toEqual({ message: 'Good morning, Ada' });
  });

  it('answers 422 when the type does not match the stored message, and 404 for unknown or foreign messages', async () => {
    const agent = await createAgent();
    model.enqueue({ type: 'text', text: 'Hello!' });
    await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'Hi' }] });
    const [user, assistant] = await history(agent.id);

    const wrongType = await patchMessage(agent.id, user?.id as string, { message_type: 'assistant_message', content: 'x' });
    expect(wrongType.status).toBe(422);
    expect(((await wrongType.json()) as { detail: Array<{ loc: unknown[] }> }).detail[0]?.loc).toEqual(['body', 'message_type']);
    // This assistant message has text but no reasoning part to rewrite.
    expect((await patchMessage(agent.id, assistant?.id as string, { message_type: 'reasoning_message', reasoning: 'x' })).status).toBe(422);
    expect((await patchMessage(agent.id, user?.id as string, { content: 'no type' })).status).toBe(422);

    const unknown = await patchMessage(agent.id, 'message-00000000-0000-4000-8000-000000000000', { message_type: 'user_message', content: 'x' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: 'Message not found' });

    const otherAgent = await createAgent();
    const viaOtherAgent = await patchMessage(otherAgent.id, user?.id as string, { message_type: 'user_message', content: 'x' });
    expect(viaOtherAgent.status).toBe(404);

    const tenant = await stack.createTenant();
    const foreign = await patchMessage(agent.id, user?.id as string, { message_type: 'user_message', content: 'x' }, tenant.apiKey.key);
    expect(foreign.status).toBe(404);
    expect((await history(agent.id))[0]).toMatchObject({ content: 'Hi' });
  });
});

describe('resetting messages', () => {
  it('keeps only the system message in context; history stays listed and the next call sees only the new message', async () => {
    const agent = await createAgent();
    const systemId = agent.message_ids?.[0];
    model.enqueue({ type: 'text', text: 'Nice to meet you.' });
    await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'I am Ada' }] });

    const reset = await client.agents.messages.reset(agent.id, { add_default_initial_messages: false });
    expect(reset).toMatchObject({ id: agent.id, message_ids: [systemId] });
    expect((await history(agent.id)).map((message) => message.content)).toEqual(['I am Ada', 'Nice to meet you.']);

    model.enqueue({ type: 'text', text: 'Hello, stranger.' });
    await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'Who am I?' }] });
    const request = model.requests.at(-1);
    expect(request?.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(request?.messages[1]).toEqual({ role: 'user', content: 'Who am I?' });
    expect(JSON.stringify(request?.messages[0])).toContain('The human is called Ada.');
  });

  it('answers 409 while a run is active, and resets once it ended', async () => {
    const agent = await createAgent();
    model.enqueue({ type: 'text', text: 'Slow answer.', delayMs: 1500 });
    const run = await client.agents.messages.createAsync(agent.id, { messages: [{ role: 'user', content: 'Take your time' }] });
    await until(() => model.requests.length > 0);

    const busy = await api(`/agents/${agent.id}/reset-messages`, { method: 'PATCH', body: '{}' });
    expect(busy.status).toBe(409);
    expect(JSON.stringify(await busy.json())).toContain(run.id);

    expect(await waitForRun(run.id, 'completed')).toMatchObject({ status: 'completed' });
    const afterRun = await client.agents.retrieve(agent.id);
    expect(afterRun.message_ids).toHaveLength(3);
    const reset = await client.agents.messages.reset(agent.id, {});
    expect(reset?.message_ids).toEqual(afterRun.message_ids?.slice(0, 1));
  });

  it('answers 404 for another organization’s agent', async () => {
    const agent = await createAgent();
    const tenant = await stack.createTenant();
    const foreign = await api(`/agents/${agent.id}/reset-messages`, { method: 'PATCH', body: '{}', key: tenant.apiKey.key });
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual({ detail: 'Agent not found' });
  });
});

describe('previewing the raw provider payload', () => {
  /** A chat completion body without the fields that differ between a sync send and a streamed one. */
  const withoutStreamFields = (body: Record<string, unknown>) => {
    const { stream: _stream, stream_options: _options, ...rest } = body;
    return rest;
  };

  it('returns exactly the body the model server then receives for a real send of the same input, storing nothing', async () => {
    const agent = await createAgent();
    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'tea' } }] },
      { type: 'text', text: 'Nothing about tea.' },
    );
    await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'What do I like?' }] });
    model.reset();
    const runsBefore = await Run.query(stack.db).forOrg(stack.tenant.organizationId).where({ agentId: agent.id }).resultSize();
    const messagesBefore = await history(agent.id);

    const body = { messages: [{ role: 'user', content: 'Remember that I like tea.' }] };
    const response = await api(`/agents/${agent.id}/messages/preview-raw-payload`, { method: 'POST', body: JSON.stringify(body) });
    expect(response.status).toBe(200);
    const preview = (await response.json()) as Record<string, unknown>;
    expect(model.requests).toHaveLength(0);
    expect(await Run.query(stack.db).forOrg(stack.tenant.organizationId).where({ agentId: agent.id }).resultSize()).toBe(runsBefore);
    expect(await history(agent.id)).toEqual(messagesBefore);

    model.enqueue({ type: 'text', text: 'Noted.' });
    await client.agents.messages.create(agent.id, body as Parameters<typeof client.agents.messages.create>[1]);
    const received = model.requests[0] as unknown as Record<string, unknown>;
    expect(preview.messages).toEqual(received.messages);
    expect(preview.tools).toEqual(received.tools);
    expect(withoutStreamFields(preview)).toEqual(withoutStreamFields(received));
    expect(preview.messages).toContainEqual(expect.objectContaining({ role: 'tool' }));
  });

  it('asks for a stream when the send would stream tokens', async () => {
    const agent = await createAgent();
    const response = await api(`/agents/${agent.id}/messages/preview-raw-payload`, {
      method: 'POST',
      body: JSON.stringify({ input: 'hi', streaming: true, stream_tokens: true }),
    });
    expect(await response.json()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('renders an Anthropic Messages body for an agent on an anthropic endpoint', async () => {
    const agent = await createAgent({
      model: undefined,
      llm_config: { model: 'claude-sonnet-4-5', model_endpoint_type: 'anthropic', context_window: 200_000 },
    });
    const response = await api(`/agents/${agent.id}/messages/preview-raw-payload`, { method: 'POST', body: JSON.stringify({ input: 'hi' }) });
    const payload = (await response.json()) as { system: string; messages: unknown[]; tools: Array<Record<string, unknown>> };
    expect(payload).toMatchObject({ model: 'claude-sonnet-4-5', max_tokens: expect.any(Number) });
    expect(payload.system).toContain('The human is called Ada.');
    expect(payload.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
    expect(payload.tools.map((tool) => tool.name)).toContain('conversation_search');
    expect(payload.tools[0]).toHaveProperty('input_schema');
  });

  it('answers 404 for an unknown agent and 422 for a malformed send body', async () => {
    const missing = await api('/agents/agent-00000000-0000-4000-8000-000000000000/messages/preview-raw-payload', {
      method: 'POST',
      body: JSON.stringify({ input: 'hi' }),
    });
    expect(missing.status).toBe(404);
    const agent = await createAgent();
    const both = await api(`/agents/${agent.id}/messages/preview-raw-payload`, {
      method: 'POST',
      body: JSON.stringify({ input: 'hi', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(both.status).toBe(422);
  });
});
