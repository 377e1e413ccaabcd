import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Message, Run } from '@engram/db';
import { collectSse, until } from '@engram/testing';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { createAgent as createAgentWith } from '@engram/testing/factories/index';

const { stack, model, client, api, stop } = await startAgentTestContext({ pingIntervalMs: 300 });
afterEach(() => model.reset());
afterAll(stop);

const createAgent = () =>
  createAgentWith(stack, {
    memory_blocks: [
      { label: 'human', value: 'The human is called Ada.' },
      { label: 'persona', value: 'I am a helpful agent.' },
    ],
  });

function dataFrames(events: Awaited<ReturnType<typeof collectSse>>) {
  return events.map((event) => event.data).filter((data): data is Record<string, unknown> => data !== '[DONE]');
}

describe('sending a message', () => {
  it('answers synchronously through the real client with the assistant text, stop reason and usage', async () => {
    const agent = await createAgent();
    model.enqueue({ type: 'text', text: 'Hello Ada!', usage: { prompt_tokens: 100, completion_tokens: 4, total_tokens: 104 } });
    const response = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'Hi, who am I?' }] });

    expect(response.messages).toEqual([expect.objectContaining({ message_type: 'assistant_message', content: 'Hello Ada!' })]);
    expect(response.stop_reason.stop_reason).toBe('end_turn');
    expect(response.usage).toMatchObject({ prompt_tokens: 100, completion_tokens: 4, total_tokens: 104, step_count: 1 });

    const sent = model.requests[0];
    expect(sent?.messages[0]).toMatchObject({ role: 'system' });
    expect(JSON.stringify(sent?.messages[0])).toContain('The human is called Ada.');
    expect(sent?.messages.at(-1)).toMatchObject({ role: 'user', content: 'Hi, who am I?' });

    const history = await client.agents.messages.list(agent.id);
    expect(history.items.map((message) => message.message_type)).toEqual(['user_message', 'assistant_message']);
  });

  it('runs tools in a loop: a memory edit is applied, returned to the model, then the turn ends', async () => {
    const agent = await createAgent();
    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'memory_insert', arguments: { label: 'human', new_string: 'Ada likes tea.' } }] },
      { type: 'text', text: 'Noted that you like tea.' },
    );
    const response = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'I like tea' }] });

    expect(response.messages.map((message) => message.message_type)).toEqual([
      'tool_call_message',
      'tool_return_message',
      'assistant_message',
    ]);
    expect(response.messages[1]).toMatchObject({ status: 'success' });
    expect(response.usage.step_count).toBe(2);
    const block = await client.agents.blocks.retrieve('human', { agent_id: agent.id });
    expect(block.value).toContain('Ada likes tea.');
    // The second model call sees the tool result and the recompiled memory.
    const second = model.requests[1];
    expect(second?.messages.some((message) => message.role === 'tool')).toBe(true);
    expect(JSON.stringify(second?.messages[0])).toContain('Ada likes tea.');
  });

  it('lets one agent edit a shared block that a second agent then sees, in its memory and its prompt', async () => {
    const shared = await client.blocks.create({ label: 'team', value: 'Team notes.' });
    const [writer, reader] = [
      await createAgentWith(stack, { block_ids: [shared.id] }),
      await createAgentWith(stack, { block_ids: [shared.id] }),
    ];
    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'memory_insert', arguments: { label: 'team', new_string: 'Release is on Friday.' } }] },
      { type: 'text', text: 'Noted for the team.' },
      { type: 'text', text: 'The release is on Friday.' },
    );
    await client.agents.messages.create(writer.id, { messages: [{ role: 'user', content: 'The release is on Friday' }] });
    expect((await client.agents.blocks.retrieve('team', { agent_id: reader.id })).value).toContain('Release is on Friday.');
    await client.agents.messages.create(reader.id, { messages: [{ role: 'user', content: 'When is the release?' }] });
    expect(JSON.stringify(model.requests.at(-1)?.messages[0])).toContain('Release is on Friday.');
  });

  it('answers 404 for an unknown agent and for another organization’s agent, and 422 for a malformed body', async () => {
    const missing = await api('/agents/agent-00000000-0000-4000-8000-000000000000/messages', {
      method: 'POST',
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'Agent not found' });

    const agent = await createAgent();
    const other = await stack.createTenant();
    const foreign = await fetch(`${stack.baseUrl}/v1/agents/${agent.id}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other.apiKey.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(foreign.status).toBe(404);

    const malformed = await api(`/agents/${agent.id}/messages`, {
      method: 'POST',
      body: JSON.stringify({ messages: [{ role: 'robot', content: 'hi' }] }),
    });
    expect(malformed.status).toBe(422);
    const detail = ((await malformed.json()) as { detail: Array<{ loc: unknown[] }> }).detail;
    expect(detail[0]?.loc.slice(0, 2)).toEqual(['body', 'messages']);

    const both = await api(`/agents/${agent.id}/messages`, {
      method: 'POST',
      body: JSON.stringify({ input: 'hi', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(both.status).toBe(422);
    expect(await Run.query(stack.db).forOrg(stack.tenant.organizationId).where({ agentId: agent.id }).resultSize()).toBe(0);
  });

  it('refuses with 422 a text part without text and an image part without a source, starting no run', async () => {
    const agent = await createAgent();
    const unsendable = [
      { input: [{ type: 'text' }] },
      { input: [{ type: 'image' }] },
      { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64' } }] }] },
    ];
    for (const body of unsendable) {
      for (const path of ['messages', 'messages/stream', 'messages/async']) {
        const answer = await api(`/agents/${agent.id}/${path}`, { method: 'POST', body: JSON.stringify(body) });
        expect(answer.status, `${path} ${JSON.stringify(body)}`).toBe(422);
      }
    }
    expect(await Run.query(stack.db).forOrg(stack.tenant.organizationId).where({ agentId: agent.id }).resultSize()).toBe(0);

    model.enqueue({ type: 'text', text: 'Still here.' });
    const response = await client.agents.messages.create(agent.id, { input: [{ type: 'text', text: 'Hello?' }] });
    expect(response.messages).toEqual([expect.objectContaining({ content: 'Still here.' })]);
  });

  it('fails the run with llm_api_error and the provider’s message, keeping only the input, outside the context', async () => {
    const agent = await createAgent();
    model.enqueue({ type: 'error', status: 400, message: 'model gpt-4o-mini does not support this request' });
    const response = await api(`/agents/${agent.id}/messages`, {
      method: 'POST',
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain('does not support this request');
    const runId = response.headers.get('x-run-id') as string;
    const run = await client.runs.retrieve(runId);
    expect(run).toMatchObject({ status: 'failed', stop_reason: 'llm_api_error' });
    const stored = await Message.query(stack.db).forOrg(stack.tenant.organizationId).where({ agentId: agent.id }).whereNot('role', 'system');
    expect(stored.map((message) => ({ role: message.role, runId: message.runId, content: message.content }))).toEqual([
      { role: 'user', runId, content: [{ type: 'text', text: 'hello' }] },
    ]);
    // The agent never answered it: its next turn does not read it.
    model.enqueue({ type: 'text', text: 'Hi!' });
    await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'hello again' }] });
    expect(model.requests.at(-1)?.messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['hello again']);
  });
});

describe('a turn that fails or is cancelled keeps what the user typed', () => {
  it('lists the input of a turn whose model kept answering 500 until the retries ran out, with the run’s error', async () => {
    const agent = await createAgent();
    model.onRequest(() => ({ type: 'error', status: 500, message: 'the provider is down' }));
    const otid = 'c0ffee00-5a4e-4d60-8f55-1f4f2f3f8a02';
    const response = await api(`/agents/${agent.id}/messages`, {
      method: 'POST',
      body: JSON.stringify({ messages: [{ role: 'user', content: 'are you there?', otid }] }),
    });
    expect(response.status).toBe(502);
    expect(model.requests.length).toBeGreaterThan(1);
    const runId = response.headers.get('x-run-id') as string;

    const history = await client.agents.messages.list(agent.id);
    expect(history.items).toEqual([expect.objectContaining({ message_type: 'user_message', content: 'are you there?', otid, run_id: runId })]);
    const run = await client.runs.retrieve(runId);
    expect(run).toMatchObject({ status: 'failed', stop_reason: 'llm_api_error', metadata: { error: { errorType: 'server' } } });
    expect(JSON.stringify(run.metadata)).toContain('the provider is down');
    const runMessages = await client.runs.messages.list(runId);
    expect(runMessages.items.map((message) => message.message_type)).toEqual(['user_message']);
  }, 90_000);

  it('lists the input of a turn cancelled during its first model call, and the run says it was cancelled', async () => {
    const agent = await createAgent();
    model.enqueue({ type: 'text', text: 'far too late', delayMs: 60_000 });
    const run = await client.agents.messages.createAsync(agent.id, { messages: [{ role: 'user', content: 'take all the time you need' }] });
    await until(() => model.requests.length > 0);
    expect(model.requests.at(-1)?.messages.at(-1)).toMatchObject({ role: 'user', content: 'take all the time you need' });
    await client.agents.messages.cancel(agent.id);
    const current = await until(() => client.runs.retrieve(run.id), (read) => read.status === 'cancelled');
    expect(current).toMatchObject({ status: 'cancelled', stop_reason: 'cancelled' });
    const history = await client.agents.messages.list(agent.id);
    expect(history.items).toEqual([expect.objectContaining({ message_type: 'user_message', content: 'take all the time you need', run_id: run.id })]);
  });

  it('keeps a queued send’s input out of the running turn’s context, and lists it after that turn’s answer', async () => {
    const agent = await createAgent();
    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'second' } }], delayMs: 1500 },
      { type: 'text', text: 'reply to first' },
      { type: 'text', text: 'reply to second' },
    );
    const first = await client.agents.messages.createAsync(agent.id, { messages: [{ role: 'user', content: 'first' }] });
    const queued = await client.agents.messages.createAsync(agent.id, { messages: [{ role: 'user', content: 'second' }] });
    // Accepted and stored before the first turn answered: nothing typed is lost, even if the worker stopped now.
    const accepted = await client.agents.messages.list(agent.id, { order: 'asc' });
    expect(accepted.items.map((message) => (message as { content?: unknown }).content)).toEqual(['first', 'second']);

    for (const runId of [first.id, queued.id]) {
      const current = await until(() => client.runs.retrieve(runId), (read) => read.status === 'completed');
      expect(current.status).toBe('completed');
    }
    const userTexts = (index: number) =>
      model.requests[index]?.messages.filter((message) => message.role === 'user').map((message) => message.content);
    expect(userTexts(0)).toEqual(['first']);
    expect(userTexts(1)).toEqual(['first']);
    // conversation_search ran while "second" was queued: it did not find it.
    expect(model.requests[1]?.messages.find((message) => message.role === 'tool')?.content).not.toContain('second');
    expect(userTexts(2)).toEqual(['first', 'second']);
    const history = await client.agents.messages.list(agent.id, { order: 'asc' });
    expect(history.items.map((message) => message.message_type)).toEqual([
      'user_message',
      'tool_call_message',
      'tool_return_message',
      'assistant_message',
      'user_message',
      'assistant_message',
    ]);
    expect(history.items.map((message) => (message as { content?: unknown }).content).filter((content) => typeof content === 'string')).toEqual([
      'first',
      'reply to first',
      'second',
      'reply to second',
    ]);
  });
});

describe('streaming', () => {
  it('streams whole messages with seq ids, then stop_reason, usage and [DONE]', async () => {
    const agent = await createAgent();
    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'tea' } }] },
      { type: 'text', text: 'Nothing about tea yet.' },
    );
    const response = await api(`/agents/${agent.id}/messages/stream`, {
      method: 'POST',
      body: JSON.stringify({ messages: [{ role: 'user', content: 'what do I like?' }], include_pings: false }),
    });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const events = await collectSse(response);
    expect(events.at(-1)?.data).toBe('[DONE]');
    const frames = dataFrames(events);
    expect(frames.map((frame) => frame.message_type)).toEqual([
      'tool_call_message',
      'tool_return_message',
      'assistant_message',
      'stop_reason',
      'usage_statistics',
    ]);
    const seqIds = frames.map((frame) => frame.seq_id);
    expect(seqIds).toEqual([1, 2, 3, 4, 5]);
  });

  it('streams tokens as they arrive when stream_tokens is set, and each message once', async () => {
    const agent = await createAgent();
    model.enqueue({ type: 'text', text: 'one two three four five', chunkDelayMs: 20 });
    const response = await api(`/agents/${agent.id}/messages`, {
      method: 'POST',
      body: JSON.stringify({ messages: [{ role: 'user', content: 'count' }], streaming: true, stream_tokens: true }),
    });
    const frames = dataFrames(await collectSse(response));
    expect(frames[0]).toMatchObject({ message_type: 'ping', run_id: expect.stringMatching(/^run-/) });
    const deltas = frames.filter((frame) => frame.message_type === 'assistant_message');
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.map((frame) => frame.content).join('')).toBe('one two three four five');
    expect(new Set(deltas.map((frame) => frame.id)).size).toBe(1);
    expect(frames.at(-1)).toMatchObject({ message_type: 'usage_statistics' });
  });

  it('names its call and tool on every streamed tool-call chunk, and on the approval request', async () => {
    const agent = await createAgent();
    const weather = { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
    model.enqueue({
      type: 'tool_calls',
      calls: [
        { id: 'call_oslo', name: 'get_weather', arguments: { city: 'Oslo, the capital of Norway' } },
        { id: 'call_rome', name: 'get_weather', arguments: { city: 'Rome, the capital of Italy' } },
      ],
    });
    const response = await api(`/agents/${agent.id}/messages/stream`, {
      method: 'POST',
      body: JSON.stringify({ messages: [{ role: 'user', content: 'weather in Oslo and Rome?' }], stream_tokens: true, client_tools: [weather] }),
    });
    const frames = dataFrames(await collectSse(response));
    const toolFrames = frames.filter((frame) => frame.message_type === 'tool_call_message' || frame.message_type === 'approval_request_message');
    const chunks = frames.filter((frame) => frame.message_type === 'tool_call_message');
    // The scripted server streams each call's arguments in several chunks after a header with the id and name.
    expect(chunks.length).toBeGreaterThan(4);
    expect(frames.some((frame) => frame.message_type === 'approval_request_message')).toBe(true);
    for (const frame of toolFrames) {
      const calls = [frame.tool_call, ...(frame.tool_calls as unknown[])] as Array<{ tool_call_id?: string; name?: string }>;
      for (const call of calls) expect(call, JSON.stringify(frame)).toMatchObject({ tool_call_id: expect.stringMatching(/^call_(oslo|rome)$/), name: 'get_weather' });
    }
    const argumentsOf = (id: string) =>
      chunks.map((frame) => frame.tool_call as { tool_call_id: string; arguments?: string }).filter((call) => call.tool_call_id === id).map((call) => call.arguments ?? '').join('');
    expect(JSON.parse(argumentsOf('call_oslo'))).toEqual({ city: 'Oslo, the capital of Norway' });
    expect(JSON.parse(argumentsOf('call_rome'))).toEqual({ city: 'Rome, the capital of Italy' });
  });

  it("reports the last step's prompt size as context_tokens, in the stream and in the run's usage", async () => {
    const agent = await createAgent();
    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'x' } }], usage: { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010 } },
      { type: 'text', text: 'done', usage: { prompt_tokens: 1234, completion_tokens: 5, total_tokens: 1239 } },
    );
    const response = await api(`/agents/${agent.id}/messages/stream`, { method: 'POST', body: JSON.stringify({ input: 'search', stream_tokens: true }) });
    const frames = dataFrames(await collectSse(response));
    const usage = frames.find((frame) => frame.message_type === 'usage_statistics');
    expect(usage).toMatchObject({ prompt_tokens: 2234, completion_tokens: 15, step_count: 2, context_tokens: 1234 });
    const runId = (usage!.run_ids as string[])[0]!;
    const stored = await api(`/runs/${runId}/usage`);
    expect(await stored.json()).toMatchObject({ prompt_tokens: 2234, context_tokens: 1234 });

    model.enqueue({ type: 'text', text: 'short', usage: { prompt_tokens: 321, completion_tokens: 2, total_tokens: 323 } });
    const sync = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'again' }] });
    expect(sync.usage).toMatchObject({ prompt_tokens: 321, context_tokens: 321 });
  });

  it('replays a finished run from any seq id with POST /runs/{id}/stream', async () => {
    const agent = await createAgent();
    model.enqueue({ type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'x' } }] }, { type: 'text', text: 'done' });
    const sync = await api(`/agents/${agent.id}/messages`, { method: 'POST', body: JSON.stringify({ input: 'go' }) });
    const runId = sync.headers.get('x-run-id') as string;
    const replay = await api(`/runs/${runId}/stream`, { method: 'POST', body: JSON.stringify({ starting_after: 2, include_pings: false }) });
    const frames = dataFrames(await collectSse(replay));
    expect(frames.map((frame) => [frame.seq_id, frame.message_type])).toEqual([
      [3, 'assistant_message'],
      [4, 'stop_reason'],
      [5, 'usage_statistics'],
    ]);
  });
});

describe('async runs, cancellation and ordering', () => {
  it('returns a run at once for /messages/async and completes it in the background', async () => {
    const agent = await createAgent();
    model.enqueue({ type: 'text', text: 'later', delayMs: 300 });
    const run = await client.agents.messages.createAsync(agent.id, { messages: [{ role: 'user', content: 'take your time' }] });
    expect(run).toMatchObject({ status: 'created', agent_id: agent.id, background: true });
    const current = await until(() => client.runs.retrieve(run.id), (read) => read.status === 'completed');
    expect(current).toMatchObject({ status: 'completed', stop_reason: 'end_turn' });
    const messages = await client.runs.messages.list(run.id);
    expect(messages.items.map((message) => message.message_type)).toEqual(['user_message', 'assistant_message']);
    const usage = await (await api(`/runs/${run.id}/usage`)).json();
    expect(usage).toMatchObject({ step_count: 1, total_tokens: expect.any(Number) });
  });

  it('cancels a running turn: the in-flight model call is abandoned and the run ends cancelled', async () => {
    const agent = await createAgent();
    model.enqueue({ type: 'hang' });
    const run = await client.agents.messages.createAsync(agent.id, { messages: [{ role: 'user', content: 'think forever' }] });
    await until(() => model.requests.length > 0);
    const cancelled = await client.agents.messages.cancel(agent.id);
    expect(cancelled).toEqual({ [run.id]: 'cancelled' });
    const current = await until(() => client.runs.retrieve(run.id), (read) => read.status === 'cancelled');
    expect(current).toMatchObject({ status: 'cancelled', stop_reason: 'cancelled' });
    const nothingLeft = await api(`/agents/${agent.id}/messages/cancel`, { method: 'POST', body: '{}' });
    expect(nothingLeft.status).toBe(409);
  });

  it('runs two concurrent sends to one agent one after the other, never interleaved', async () => {
    const agent = await createAgent();
    model.onRequest((request) => {
      const last = request.messages.at(-1);
      const text = typeof last?.content === 'string' ? last.content : '';
      return { type: 'text', text: `reply to ${text}`, delayMs: 200 };
    });
    // The async send returns once its run is queued, so "first" has arrived before "second" is sent;
    // "second" is sent while "first" is still running and must wait for it.
    const first = await client.agents.messages.createAsync(agent.id, { messages: [{ role: 'user', content: 'first' }] });
    const second = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'second' }] });
    expect(second.messages[0]).toMatchObject({ content: 'reply to second' });
    const firstRun = await Run.query(stack.db).findById(first.id);
    const secondRun = await Run.query(stack.db).findById(second.messages[0]?.run_id as string);
    expect(firstRun?.status).toBe('completed');
    expect(firstRun!.completedAt!.getTime()).toBeLessThanOrEqual(secondRun!.startedAt!.getTime());
    const history = await client.agents.messages.list(agent.id, { order: 'asc' });
    expect(history.items.map((message) => (message as { content?: unknown }).content)).toEqual([
      'first',
      'reply to first',
      'second',
      'reply to second',
    ]);
  });

  it('returns the existing run when a send is retried with the same otids', async () => {
    const agent = await createAgent();
    model.enqueue({ type: 'text', text: 'only once' });
    const body = { messages: [{ role: 'user', content: 'hi', otid: 'b4c1a6de-5a4e-4d60-8f55-1f4f2f3f8a01' }] };
    const first = await api(`/agents/${agent.id}/messages`, { method: 'POST', body: JSON.stringify(body) });
    const retry = await api(`/agents/${agent.id}/messages`, { method: 'POST', body: JSON.stringify(body) });
    expect(first.headers.get('x-run-id')).toBe(retry.headers.get('x-run-id'));
    expect(await retry.json()).toMatchObject({ messages: [expect.objectContaining({ content: 'only once' })] });
    expect(model.requests).toHaveLength(1);
  });
});
