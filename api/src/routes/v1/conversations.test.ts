import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Run, Step } from '@engram/db';
import type { ChatRequest } from '@engram/testing';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, model, client, api, stop } = await startAgentTestContext();
afterEach(() => model.reset());
afterAll(stop);

function createAgent() {
  return client.agents.create({
    model: 'openai/gpt-4o-mini',
    memory_blocks: [
      { label: 'human', value: 'The human is called Ada.' },
      { label: 'persona', value: 'I am a helpful agent.' },
    ],
  });
}

const textOf = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));
const lastUserText = (request: ChatRequest) => textOf(request.messages.filter((message) => message.role === 'user').at(-1)?.content);
const saidLast = (text: string) => (request: ChatRequest) => lastUserText(request) === text;
const promptOf = (text: string) => model.requests.find(saidLast(text));

/** Sends one message to a conversation through the client and reads its stream to the end. */
async function send(conversationId: string, text: string, extra: { agent_id?: string } = {}) {
  const stream = await client.conversations.messages.create(conversationId, { messages: [{ role: 'user', content: text }], ...extra });
  const frames: Array<Record<string, unknown>> = [];
  for await (const frame of stream) frames.push(frame as unknown as Record<string, unknown>);
  return frames.filter((frame) => frame.message_type !== 'ping');
}

/** A deferred the test settles, to hold a model call open until something else happened. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('conversations through the client', () => {
  it('creates, retrieves, renames, archives, lists and deletes conversations', async () => {
    const agent = await createAgent();
    const first = await client.conversations.create({ agent_id: agent.id, summary: 'Trip planning' });
    expect(first).toMatchObject({ agent_id: agent.id, summary: 'Trip planning', archived: false, archived_at: null, last_message_at: null });
    expect(first.id).toMatch(/^conv-/);
    expect(first.in_context_message_ids).toHaveLength(1);
    const second = await client.conversations.create({ agent_id: agent.id, description: 'Recipes', context_window_limit: 8000 });
    await client.conversations.create({ agent_id: agent.id, hidden: true });

    expect(await client.conversations.retrieve(first.id)).toMatchObject({ id: first.id, summary: 'Trip planning' });
    const renamed = await client.conversations.update(second.id, { summary: 'Cooking' });
    expect(renamed).toMatchObject({ summary: 'Cooking', description: 'Recipes', context_window_limit: 8000 });

    const listed = await client.conversations.list({ agent_id: agent.id, order: 'asc' });
    expect(listed.map((conversation) => conversation.id)).toEqual([first.id, second.id]);

    const archived = await client.conversations.update(first.id, { archived: true });
    expect(archived.archived).toBe(true);
    expect(archived.archived_at).toEqual(expect.any(String));
    expect((await client.conversations.list({ agent_id: agent.id })).map((conversation) => conversation.id)).toEqual([second.id]);
    expect((await client.conversations.list({ agent_id: agent.id, archive_status: 'archived' })).map((conversation) => conversation.id)).toEqual([first.id]);
    expect((await client.conversations.list({ agent_id: agent.id, summary_search: 'cook' })).map((conversation) => conversation.id)).toEqual([second.id]);

    await client.conversations.delete(second.id);
    const gone = await api(`/conversations/${second.id}`);
    expect(gone.status).toBe(404);
    expect(await client.conversations.list({ agent_id: agent.id, archive_status: 'all' })).toHaveLength(1);

    const missingAgent = await api('/conversations/', { method: 'POST', body: '{}' });
    expect(missingAgent.status).toBe(422);
  });

  it('keeps each conversation its own history, and the default conversation is the agent\'s /messages history', async () => {
    const agent = await createAgent();
    const conversation = await client.conversations.create({ agent_id: agent.id });
    model.enqueue({ type: 'text', text: 'Hello from the agent.', match: saidLast('hello from the default') });
    model.enqueue({ type: 'text', text: 'Hello in a thread.', match: saidLast('hello in a thread') });

    const direct = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'hello from the default' }] });
    expect(direct.messages.at(-1)).toMatchObject({ content: 'Hello from the agent.' });
    const frames = await send(conversation.id, 'hello in a thread');
    expect(frames.map((frame) => frame.message_type)).toEqual(['assistant_message', 'stop_reason', 'usage_statistics']);

    // The thread's prompt has its own window: it never saw the default conversation's turn.
    expect(JSON.stringify(promptOf('hello in a thread')?.messages)).not.toContain('hello from the default');

    const threadMessages = await client.conversations.messages.list(conversation.id);
    expect(threadMessages.items.map((message) => [message.message_type, 'content' in message ? message.content : null])).toEqual([
      ['user_message', 'hello in a thread'],
      ['assistant_message', 'Hello in a thread.'],
    ]);
    const agentHistory = await client.agents.messages.list(agent.id);
    expect(agentHistory.items.map((message) => message.id)).toHaveLength(2);
    const defaultHistory = await client.conversations.messages.list('default', { agent_id: agent.id });
    expect(defaultHistory.items).toEqual(agentHistory.items);

    const retrieved = await client.conversations.retrieve(conversation.id);
    expect(retrieved.last_message_at).toEqual(expect.any(String));
    expect(retrieved.in_context_message_ids).toHaveLength(3);

    const [run] = await Run.query(stack.db).where({ conversationId: conversation.id });
    expect((await client.runs.retrieve(run!.id)).conversation_id).toBe(conversation.id);
    const listedRuns = await client.runs.list({ conversation_id: conversation.id });
    expect(listedRuns.items.map((listed) => listed.id)).toEqual([run!.id]);

    // `default` needs the agent.
    const noAgent = await api('/conversations/default/messages');
    expect(noAgent.status).toBe(422);
  });

  it('runs two conversations of one agent at once while each stays in arrival order', { timeout: 120_000 }, async () => {
    const agent = await createAgent();
    const [a, b] = [await client.conversations.create({ agent_id: agent.id }), await client.conversations.create({ agent_id: agent.id })];
    const bAnswered = gate();
    // A's first model call is held until B has been answered: were the conversations one queue, B would never run.
    model.enqueue({ type: 'text', text: 'answer a1', match: saidLast('a1'), until: bAnswered.opened });
    model.enqueue({ type: 'text', text: 'answer a2', match: saidLast('a2') });
    model.enqueue({ type: 'text', text: 'answer b1', match: saidLast('b1') });

    const a1 = send(a.id, 'a1');
    await expect.poll(() => promptOf('a1'), { timeout: 60_000 }).toBeDefined();
    const a2 = send(a.id, 'a2');
    await send(b.id, 'b1');
    // A's second message waits behind its first: no model call for it yet.
    expect(promptOf('a2')).toBeUndefined();
    const [runA1] = await Run.query(stack.db).where({ conversationId: a.id }).orderBy('createdAt').limit(1);
    expect(runA1!.status).toBe('running');
    bAnswered.open();
    await Promise.all([a1, a2]);

    // A2's prompt follows A1's whole turn, and neither conversation saw the other's messages. (Quoted: the system
    // prompt names the agent, whose id may contain "a1" or "b1".)
    const a2Prompt = JSON.stringify(promptOf('a2')?.messages);
    expect(a2Prompt.indexOf('"a1"')).toBeLessThan(a2Prompt.indexOf('"answer a1"'));
    expect(a2Prompt).not.toContain('"b1"');
    expect(JSON.stringify(promptOf('b1')?.messages)).not.toContain('"a1"');
    const runs = await Run.query(stack.db).whereIn('conversationId', [a.id, b.id]);
    const [byA, byB] = [runs.filter((run) => run.conversationId === a.id), runs.filter((run) => run.conversationId === b.id)];
    const [first, second] = byA.sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime());
    // The runs overlap: B's whole run lies inside A's first run.
    expect(byB[0]!.startedAt!.getTime()).toBeGreaterThan(first!.startedAt!.getTime());
    expect(byB[0]!.completedAt!.getTime()).toBeLessThan(first!.completedAt!.getTime());
    expect(second!.startedAt!.getTime()).toBeGreaterThanOrEqual(first!.completedAt!.getTime());
    expect(runs.every((run) => run.status === 'completed')).toBe(true);
  });

  it("puts a block edited in one conversation into another's next prompt", { timeout: 60_000 }, async () => {
    const agent = await createAgent();
    const [a, b] = [await client.conversations.create({ agent_id: agent.id }), await client.conversations.create({ agent_id: agent.id })];
    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'memory_replace', arguments: { label: 'human', old_string: 'Ada', new_string: 'Grace' } }], match: saidLast('call me Grace') },
      { type: 'text', text: 'Noted, Grace.', match: (request) => lastUserText(request) === 'call me Grace' && request.messages.some((message) => message.role === 'tool') },
      { type: 'text', text: 'You are Grace.', match: saidLast('who am I?') },
    );
    await send(a.id, 'call me Grace');
    await send(b.id, 'who am I?');
    const system = JSON.stringify(promptOf('who am I?')?.messages[0]);
    expect(system).toContain('The human is called Grace.');
    expect(system).not.toContain('The human is called Ada.');
    expect((await client.agents.blocks.retrieve('human', { agent_id: agent.id })).value).toBe('The human is called Grace.');
  });

  it('keeps an isolated block edited in one conversation out of another, while a shared block changes in both', { timeout: 90_000 }, async () => {
    const agent = await createAgent();
    const created = await api(`/conversations/?agent_id=${agent.id}`, { method: 'POST', body: JSON.stringify({ isolated_block_labels: ['human'] }) });
    expect(created.status).toBe(200);
    const a = (await created.json()) as { id: string; isolated_block_labels: string[] };
    expect(a.isolated_block_labels).toEqual(['human']);
    const b = await client.conversations.create({ agent_id: agent.id });
    expect(b).toMatchObject({ isolated_block_labels: [] });
    const isTool = (said: string) => (request: ChatRequest) => lastUserText(request) === said && request.messages.some((message) => message.role === 'tool');
    model.enqueue(
      {
        type: 'tool_calls',
        calls: [
          { name: 'memory_replace', arguments: { label: 'human', old_string: 'Ada', new_string: 'Grace' } },
          { name: 'memory_replace', arguments: { label: 'persona', old_string: 'helpful', new_string: 'cheerful' } },
        ],
        match: saidLast('call me Grace, be cheerful'),
      },
      { type: 'text', text: 'Noted.', match: isTool('call me Grace, be cheerful') },
      { type: 'text', text: 'Hello.', match: saidLast('who am I in B?') },
      { type: 'text', text: 'Hello again.', match: saidLast('who am I in A?') },
    );
    await send(a.id, 'call me Grace, be cheerful');
    await send(b.id, 'who am I in B?');
    await send(a.id, 'who am I in A?');

    const inB = JSON.stringify(promptOf('who am I in B?')?.messages[0]);
    expect(inB).toContain('The human is called Ada.');
    expect(inB).toContain('I am a cheerful agent.');
    const inA = JSON.stringify(promptOf('who am I in A?')?.messages[0]);
    expect(inA).toContain('The human is called Grace.');
    expect(inA).toContain('I am a cheerful agent.');
    // The agent's own block is untouched by the isolated edit; the shared one carries the edit.
    expect((await client.agents.blocks.retrieve('human', { agent_id: agent.id })).value).toBe('The human is called Ada.');
    expect((await client.agents.blocks.retrieve('persona', { agent_id: agent.id })).value).toBe('I am a cheerful agent.');

    // A later edit of the shared block elsewhere reaches the isolated conversation's prompt too; its copy stays.
    await client.agents.blocks.update('persona', { agent_id: agent.id, value: 'I am a patient agent.' });
    model.enqueue({ type: 'text', text: 'Still you.', match: saidLast('and now?') });
    await send(a.id, 'and now?');
    const later = JSON.stringify(promptOf('and now?')?.messages[0]);
    expect(later).toContain('I am a patient agent.');
    expect(later).toContain('The human is called Grace.');

    // A fork keeps the isolation, starting from the source's copy.
    const fork = await client.conversations.fork(a.id);
    expect(fork).toMatchObject({ isolated_block_labels: ['human'] });
    model.enqueue({ type: 'text', text: 'Forked.', match: saidLast('in the fork') });
    await send(fork.id, 'in the fork');
    expect(JSON.stringify(promptOf('in the fork')?.messages[0])).toContain('The human is called Grace.');
  });

  it("lets Letta's memory tool edit and view a conversation's own copy of an isolated block", { timeout: 90_000 }, async () => {
    const agent = await client.agents.create({
      model: 'openai/gpt-4o-mini',
      memory_blocks: [{ label: 'human', value: 'The human is called Ada.' }],
      tools: ['memory'],
      include_base_tools: false,
    } as Parameters<typeof client.agents.create>[0]);
    const isolated = await api(`/conversations/?agent_id=${agent.id}`, { method: 'POST', body: JSON.stringify({ isolated_block_labels: ['human'] }) });
    const a = (await isolated.json()) as { id: string };
    const b = await client.conversations.create({ agent_id: agent.id });
    const toolResult = (said: string) => (request: ChatRequest) => lastUserText(request) === said && request.messages.at(-1)?.role === 'tool';
    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'memory', arguments: { command: 'str_replace', path: '/memories/human', old_string: 'Ada', new_string: 'Grace' } }], match: saidLast('rename me') },
      { type: 'text', text: 'Renamed.', match: toolResult('rename me') },
    );
    await send(a.id, 'rename me');
    for (const [conversation, said] of [[a.id, 'view in A'], [b.id, 'view in B']] as const) {
      model.enqueue(
        { type: 'tool_calls', calls: [{ name: 'memory', arguments: { command: 'view', path: '/memories/human' } }], match: saidLast(said) },
        { type: 'text', text: 'Seen.', match: toolResult(said) },
      );
      await send(conversation, said);
    }
    const viewed = (said: string) => textOf(model.requests.find(toolResult(said))?.messages.at(-1)?.content);
    expect(viewed('view in A')).toContain('The human is called Grace.');
    expect(viewed('view in B')).toContain('The human is called Ada.');
    expect((await client.agents.blocks.retrieve('human', { agent_id: agent.id })).value).toBe('The human is called Ada.');
  });

  it('keeps both of two concurrent edits of one block', { timeout: 60_000 }, async () => {
    const agent = await createAgent();
    const [a, b] = [await client.conversations.create({ agent_id: agent.id }), await client.conversations.create({ agent_id: agent.id })];
    for (const [said, fact] of [['likes tea', 'Ada likes tea.'], ['likes jazz', 'Ada likes jazz.']] as const) {
      model.enqueue(
        { type: 'tool_calls', calls: [{ name: 'memory_insert', arguments: { label: 'human', new_string: fact } }], match: saidLast(said) },
        { type: 'text', text: 'Noted.', match: (request) => lastUserText(request) === said && request.messages.some((message) => message.role === 'tool') },
      );
    }
    await Promise.all([send(a.id, 'likes tea'), send(b.id, 'likes jazz')]);
    const value = (await client.agents.blocks.retrieve('human', { agent_id: agent.id })).value;
    expect(value).toContain('Ada likes tea.');
    expect(value).toContain('Ada likes jazz.');
  });

  it('forks a conversation at a message with a freshly compiled system message', { timeout: 60_000 }, async () => {
    const agent = await createAgent();
    const source = await client.conversations.create({ agent_id: agent.id, summary: 'Source' });
    model.enqueue({ type: 'text', text: 'first answer', match: saidLast('first') }, { type: 'text', text: 'second answer', match: saidLast('second') });
    await send(source.id, 'first');
    await send(source.id, 'second');
    const history = await client.conversations.messages.list(source.id, { order: 'asc' });
    const firstAnswer = history.items.find((message) => message.message_type === 'assistant_message')!;

    await client.agents.blocks.update('human', { agent_id: agent.id, value: 'The human is called Lin.' });
    const fork = await client.conversations.fork(source.id, { message_id: firstAnswer.id });
    expect(fork).toMatchObject({ agent_id: agent.id, summary: 'Source' });
    expect(fork.id).not.toBe(source.id);
    const sourceWindow = (await client.conversations.retrieve(source.id)).in_context_message_ids!;
    expect(fork.in_context_message_ids!.slice(1)).toEqual(sourceWindow.slice(1, 3));
    expect(fork.in_context_message_ids![0]).not.toBe(sourceWindow[0]);

    const forkedHistory = await client.conversations.messages.list(fork.id, { order: 'asc' });
    expect(forkedHistory.items.map((message) => ('content' in message ? message.content : null))).toEqual(['first', 'first answer']);

    model.enqueue({ type: 'text', text: 'third answer', match: saidLast('third') });
    await send(fork.id, 'third');
    const prompt = promptOf('third')!;
    expect(JSON.stringify(prompt.messages[0])).toContain('The human is called Lin.');
    expect(prompt.messages.slice(1).map((message) => textOf(message.content))).toEqual(['first', 'first answer', 'third']);

    const missing = await api(`/conversations/${source.id}/fork?message_id=message-00000000-0000-4000-8000-000000000000`, { method: 'POST' });
    expect(missing.status).toBe(404);
    const fromDefault = await client.conversations.fork('default', { agent_id: agent.id });
    expect(fromDefault.in_context_message_ids).toHaveLength(1);
  });

  it('cancels one conversation while another keeps running', { timeout: 120_000 }, async () => {
    const agent = await createAgent();
    const [a, b] = [await client.conversations.create({ agent_id: agent.id }), await client.conversations.create({ agent_id: agent.id })];
    const bReleased = gate();
    model.enqueue({ type: 'hang', match: saidLast('wait forever') });
    model.enqueue({ type: 'text', text: 'b answer', match: saidLast('b keeps going'), until: bReleased.opened });

    const aFrames = send(a.id, 'wait forever');
    const bFrames = send(b.id, 'b keeps going');
    await expect.poll(() => (promptOf('wait forever') && promptOf('b keeps going') ? 'both' : 'waiting'), { timeout: 60_000 }).toBe('both');

    const cancelled = await client.conversations.cancel(a.id);
    expect(Object.values(cancelled)).toEqual(['cancelled']);
    await expect.poll(async () => (await Run.query(stack.db).where({ conversationId: a.id }).first())?.status, { timeout: 60_000 }).toBe('cancelled');
    expect((await Run.query(stack.db).where({ conversationId: b.id }).first())?.status).toBe('running');
    bReleased.open();
    expect((await bFrames).find((frame) => frame.message_type === 'assistant_message')).toMatchObject({ content: 'b answer' });
    expect((await aFrames).find((frame) => frame.message_type === 'stop_reason')).toMatchObject({ stop_reason: 'cancelled' });
    const nothingLeft = await api(`/conversations/${a.id}/cancel`, { method: 'POST' });
    expect(nothingLeft.status).toBe(409);
  });

  it('resumes the stream of an active run, compacts and recompiles a conversation', { timeout: 60_000 }, async () => {
    const agent = await createAgent();
    const conversation = await client.conversations.create({ agent_id: agent.id });
    const released = gate();
    model.enqueue({ type: 'text', text: 'resumed answer', match: saidLast('resume me'), until: released.opened });
    const sent = send(conversation.id, 'resume me');
    await expect.poll(() => promptOf('resume me'), { timeout: 30_000 }).toBeDefined();
    const resumed = await client.conversations.messages.stream(conversation.id);
    released.open();
    const frames: Array<Record<string, unknown>> = [];
    for await (const frame of resumed) frames.push(frame as unknown as Record<string, unknown>);
    expect(frames.find((frame) => frame.message_type === 'assistant_message')).toMatchObject({ content: 'resumed answer' });
    await sent;
    expect((await api(`/conversations/${conversation.id}/stream`, { method: 'POST', body: '{}' })).status).toBe(404);

    model.enqueue({ type: 'text', text: 'more', match: saidLast('second turn') });
    await send(conversation.id, 'second turn');
    model.enqueue({ type: 'text', text: 'They talked about resuming.' });
    const compacted = await client.conversations.messages.compact(conversation.id);
    expect(compacted).toEqual({ summary: 'They talked about resuming.', num_messages_before: 5, num_messages_after: 4 });
    const window = (await client.conversations.retrieve(conversation.id)).in_context_message_ids!;
    expect(window).toHaveLength(4);
    // The agent's own window is untouched by the conversation's compaction.
    expect((await client.agents.retrieve(agent.id)).message_ids).toHaveLength(1);

    await client.agents.blocks.update('human', { agent_id: agent.id, value: 'The human is called Noor.' });
    const dry = await client.conversations.recompile(conversation.id, { dry_run: true });
    expect(dry).toContain('The human is called Noor.');
    const compiled = await client.conversations.recompile('default', { agent_id: agent.id });
    expect(compiled).toBe(dry);
    expect(await client.agents.recompile(agent.id)).toBe(compiled);
  });
});

describe("a conversation's model overrides", () => {
  it('runs with its model, model settings and context window, and compacts at its window', { timeout: 120_000 }, async () => {
    const agent = await createAgent();
    const conversation = await client.conversations.create({
      agent_id: agent.id,
      model: 'openai/gpt-4o',
      model_settings: { provider_type: 'openai', temperature: 0.25, max_output_tokens: 300 },
      context_window_limit: 20_000,
    });
    expect(conversation).toMatchObject({ model: 'openai/gpt-4o', context_window_limit: 20_000 });
    // About 10,000 tokens by the usual estimate: most of the window the next step reports as used.
    const longMessage = `Remember this: ${'kumquat '.repeat(5_000)}`;
    model.enqueue({ type: 'text', text: 'Remembered.', match: saidLast(longMessage) });
    await send(conversation.id, longMessage);
    expect(promptOf(longMessage)).toMatchObject({ model: 'gpt-4o', temperature: 0.25, max_tokens: 300 });
    const [run] = await Run.query(stack.db).where({ conversationId: conversation.id });
    const [step] = await Step.query(stack.db).where({ runId: run!.id });
    expect(step).toMatchObject({ model: 'gpt-4o', contextWindowLimit: 20_000 });

    // The agent's own conversation keeps the agent's model.
    model.enqueue({ type: 'text', text: 'Plain answer.', match: saidLast('in the default conversation') });
    await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'in the default conversation' }] });
    expect(promptOf('in the default conversation')?.model).toBe('gpt-4o-mini');

    // 19,000 of the conversation's 20,000 tokens used: past the compaction threshold (it would not be in the agent's window).
    model.enqueue(
      { type: 'text', text: 'Short answer.', match: saidLast('and now?'), usage: { prompt_tokens: 19_000 } },
      { type: 'text', text: 'The user asked to remember kumquats.', match: (request) => textOf(request.messages[0]?.content).includes('You maintain the long-term memory') },
    );
    await send(conversation.id, 'and now?');
    const summaryRequest = model.requests.find((request) => textOf(request.messages[0]?.content).includes('You maintain the long-term memory'));
    expect(summaryRequest?.model).toBe('gpt-4o');
    expect(textOf(summaryRequest?.messages[1]?.content)).toContain('kumquat kumquat');
    const history = await client.conversations.messages.list(conversation.id, { order: 'asc' });
    const window = (await client.conversations.retrieve(conversation.id)).in_context_message_ids!;
    // System message, the summary, then the last turn; the long message left the window (it stays in the history).
    expect(window).toHaveLength(4);
    expect(history.items.map((message) => ('content' in message ? textOf(message.content) : ''))).toContainEqual(
      expect.stringMatching(/^Summary of the earlier conversation \(2 messages\):\nThe user asked to remember kumquats\.$/),
    );
  });

  it('refuses a model override whose provider is not configured', async () => {
    const agent = await createAgent();
    const refused = await api('/conversations/?agent_id=' + agent.id, { method: 'POST', body: JSON.stringify({ model: 'nowhere/some-model' }) });
    expect(refused.status).toBe(400);
    const conversation = await client.conversations.create({ agent_id: agent.id });
    const badUpdate = await api(`/conversations/${conversation.id}`, { method: 'PATCH', body: JSON.stringify({ model: 'nowhere/some-model' }) });
    expect(badUpdate.status).toBe(400);
    expect((await client.conversations.retrieve(conversation.id)).model).toBeNull();
  });
});

describe("messages by conversation", () => {
  it('lists and searches one conversation, and search results name their conversation', { timeout: 60_000 }, async () => {
    const agent = await createAgent();
    const other = await createAgent();
    const conversation = await client.conversations.create({ agent_id: agent.id });
    model.enqueue(
      { type: 'text', text: 'Persimmons ripen in autumn.', match: saidLast('persimmon in a thread') },
      { type: 'text', text: 'Persimmons are sweet.', match: saidLast('persimmon at home') },
    );
    await send(conversation.id, 'persimmon in a thread');
    await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'persimmon at home' }] });

    const inThread = await client.agents.messages.list(agent.id, { conversation_id: conversation.id, order: 'asc' });
    expect(inThread.items.map((message) => ('content' in message ? message.content : null))).toEqual(['persimmon in a thread', 'Persimmons ripen in autumn.']);
    const atHome = await client.agents.messages.list(agent.id, { conversation_id: 'default', order: 'asc' });
    expect(atHome.items.map((message) => ('content' in message ? message.content : null))).toEqual(['persimmon at home', 'Persimmons are sweet.']);
    expect((await api(`/agents/${other.id}/messages?conversation_id=${conversation.id}`)).status).toBe(404);

    const found = await client.messages.search({ query: 'persimmon', search_mode: 'fts', conversation_id: conversation.id });
    expect(found.map((result) => ['content' in result ? result.content : null, result.conversation_id, result.agent_id])).toEqual(
      expect.arrayContaining([
        ['persimmon in a thread', conversation.id, agent.id],
        ['Persimmons ripen in autumn.', conversation.id, agent.id],
      ]),
    );
    expect(found).toHaveLength(2);
    const foundAtHome = await client.messages.search({ query: 'persimmon', search_mode: 'fts', agent_id: agent.id, conversation_id: 'default' });
    expect(foundAtHome.map((result) => ['content' in result ? result.content : null, result.conversation_id]).sort()).toEqual([
      ['Persimmons are sweet.', null],
      ['persimmon at home', null],
    ]);
    const unknown = await api('/messages/search', { method: 'POST', body: JSON.stringify({ query: 'persimmon', conversation_id: 'conv-00000000-0000-4000-8000-000000000000' }) });
    expect(unknown.status).toBe(404);

    const ranked = await api('/agents/messages/search', { method: 'POST', body: JSON.stringify({ query: 'ripen autumn', search_mode: 'fts' }) });
    const rankedBody = (await ranked.json()) as Array<{ message: { conversation_id: string | null; agent_id: string } }>;
    expect(rankedBody.filter((result) => result.message.agent_id === agent.id).map((result) => result.message.conversation_id)).toEqual([conversation.id]);
  });
});

describe('the rest of the client\'s runtime calls', () => {
  it('lists messages across agents and conversations, and retrieves one', async () => {
    const agent = await createAgent();
    const conversation = await client.conversations.create({ agent_id: agent.id });
    model.enqueue({ type: 'text', text: 'listed answer', match: saidLast('list me') });
    await send(conversation.id, 'list me');
    const all = await client.messages.list({ limit: 2 });
    expect(all.map((message) => ('content' in message ? message.content : null))).toEqual(['listed answer', 'list me']);
    const inConversation = await client.messages.list({ conversation_id: conversation.id, order: 'asc' });
    expect(inConversation.map((message) => message.message_type)).toEqual(['user_message', 'assistant_message']);
    const one = await client.messages.retrieve(inConversation[1]!.id);
    expect(one).toEqual([expect.objectContaining({ id: inConversation[1]!.id, message_type: 'assistant_message', content: 'listed answer' })]);
    expect((await api('/messages/message-00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('searches tools by words of their names and descriptions', async () => {
    await client.tools.create({
      source_code: 'def convert_currency(amount: float, to: str) -> str:\n    """Convert an amount of money to another currency.\n\n    Args:\n        amount: The amount.\n        to: The currency code.\n    """\n    return str(amount)\n',
    });
    const found = await client.tools.search({ query: 'currency exchange' });
    expect(found[0]).toMatchObject({ tool: expect.objectContaining({ name: 'convert_currency' }), fts_rank: 1, vector_rank: null });
    expect(found[0]!.combined_score).toBeGreaterThan(0);
    const memoryTools = await client.tools.search({ query: 'memory', tool_types: ['letta_sleeptime_core'] });
    expect(memoryTools.every((result) => result.tool.tool_type === 'letta_sleeptime_core')).toBe(true);
    expect(await client.tools.search({ query: 'zzzunmatched' })).toEqual([]);
  });
});
