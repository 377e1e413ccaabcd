import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { GroupTurn, Message } from '@engram/db';
import { collectSse, type ChatRequest } from '@engram/testing';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { createAgent, type CreatedAgent } from '@engram/testing/factories/index';

const { stack, model, api, post, patch, send, systemMessageText, stop } = await startAgentTestContext();
afterEach(() => model.reset());
afterAll(stop);

/** An agent whose system prompt says its name, so the scripted model can tell who is asking. */
function member(name: string, fields: Record<string, unknown> = {}): Promise<CreatedAgent> {
  return createAgent(stack, { name, memory_blocks: [{ label: 'persona', value: `I am ${name}.` }], ...fields });
}

const systemText = (request: ChatRequest) => String(request.messages[0]?.content ?? '');
const asks = (name: string) => (request: ChatRequest) => systemText(request).includes(`I am ${name}.`);
const textsOf = (request: ChatRequest) =>
  request.messages.slice(1).map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content)));

/** Every agent answers "<name> says <n>", counting its own answers. */
function eachAnswersByName(names: string[]) {
  const counts = new Map<string, number>();
  model.onRequest((request) => {
    const name = names.find((candidate) => asks(candidate)(request));
    if (!name) return undefined;
    counts.set(name, (counts.get(name) ?? 0) + 1);
    return { type: 'text', text: `${name} says ${counts.get(name)}` };
  });
}

async function json(response: Response): Promise<any> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return text ? JSON.parse(text) : undefined;
}

const speakers = (messages: Array<{ message_type: string; name?: string | null }>) =>
  messages.filter((message) => message.message_type === 'assistant_message').map((message) => message.name);

describe('groups', () => {
  it('are created, listed, counted, changed and deleted, and share their blocks with every member', async () => {
    const [ann, bob, cid] = await Promise.all([member('Ann'), member('Bob'), member('Cid')]);
    const block = await json(await post('/blocks/', { label: 'team', value: 'We ship on Fridays.' }));

    const group = await json(await post('/groups/', { agent_ids: [ann.id, bob.id], description: 'the team', shared_block_ids: [block.id] }));
    expect(group).toMatchObject({
      id: expect.stringMatching(/^group-/),
      manager_type: 'round_robin',
      agent_ids: [ann.id, bob.id],
      shared_block_ids: [block.id],
      manager_agent_id: null,
      turns_counter: 0,
    });
    for (const agent of [ann, bob]) {
      const blocks = await json(await api(`/agents/${agent.id}/core-memory/blocks`));
      expect(blocks.map((found: { id: string }) => found.id)).toContain(block.id);
      expect(await systemMessageText(agent.id)).toContain('We ship on Fridays.');
    }

    expect((await json(await api('/groups/'))).map((found: { id: string }) => found.id)).toContain(group.id);
    expect(await json(await api('/groups/count'))).toBeGreaterThanOrEqual(1);
    expect(await json(await api(`/groups/${group.id}`))).toEqual(group);
    expect((await json(await api(`/agents/${ann.id}/groups`))).map((found: { id: string }) => found.id)).toEqual([group.id]);
    expect(await json(await api(`/agents/${ann.id}/groups?manager_type=dynamic`))).toEqual([]);

    // Cid joins and gets the shared block; Ann leaves and loses it.
    const changed = await json(await patch(`/groups/${group.id}`, { agent_ids: [bob.id, cid.id], description: 'the new team', manager_config: { manager_type: 'round_robin', max_turns: 4 } }));
    expect(changed).toMatchObject({ agent_ids: [bob.id, cid.id], description: 'the new team', max_turns: 4 });
    const blockIdsOf = async (agentId: string) => (await json(await api(`/agents/${agentId}/core-memory/blocks`))).map((found: { id: string }) => found.id);
    expect(await blockIdsOf(cid.id)).toContain(block.id);
    expect(await blockIdsOf(ann.id)).not.toContain(block.id);

    expect(await json(await patch(`/groups/${group.id}/blocks/detach/${block.id}`))).toBeNull();
    expect(await blockIdsOf(bob.id)).not.toContain(block.id);
    expect((await json(await api(`/groups/${group.id}`))).shared_block_ids).toEqual([]);
    expect(await json(await patch(`/groups/${group.id}/blocks/attach/${block.id}`))).toBeNull();
    expect(await blockIdsOf(cid.id)).toContain(block.id);

    expect(await json(await send('DELETE', `/groups/${group.id}`))).toEqual({ message: `Group id=${group.id} successfully deleted` });
    expect((await api(`/groups/${group.id}`)).status).toBe(404);
    expect((await api(`/agents/${bob.id}`)).status).toBe(200);
  });

  it('refuses voice_sleeptime and swarm with a 422 naming what is supported, and unknown members by position', async () => {
    const agent = await member('Solo');
    for (const managerConfig of [{ manager_type: 'swarm' }, { manager_type: 'voice_sleeptime', manager_agent_id: agent.id }]) {
      const refused = await post('/groups/', { agent_ids: [agent.id], description: 'x', manager_config: managerConfig });
      expect(refused.status).toBe(422);
      const detail = (await refused.json()).detail[0];
      expect(detail.loc).toEqual(['body', 'manager_config', 'manager_type']);
      expect(detail.msg).toContain('round_robin, supervisor, dynamic, sleeptime');
    }
    const unknown = await post('/groups/', { agent_ids: [agent.id, 'agent-00000000-0000-4000-8000-000000000000'], description: 'x' });
    expect(unknown.status).toBe(422);
    expect((await unknown.json()).detail[0].loc).toEqual(['body', 'agent_ids', 1]);
    const noManager = await post('/groups/', { agent_ids: [agent.id], description: 'x', manager_config: { manager_type: 'dynamic' } });
    expect(noManager.status).toBe(422);
  });

  it('round_robin: members answer in turn, each seeing the conversation so far, and the transcript lists each thing said once', async () => {
    const [ann, bob, cid] = await Promise.all([member('Ann'), member('Bob'), member('Cid')]);
    const group = await json(await post('/groups/', { agent_ids: [ann.id, bob.id, cid.id], description: 'round table' }));
    eachAnswersByName(['Ann', 'Bob', 'Cid']);

    const answer = await json(await post(`/groups/${group.id}/messages`, { messages: [{ role: 'user', content: 'What do we ship?' }] }));
    expect(speakers(answer.messages)).toEqual(['Ann', 'Bob', 'Cid']);
    expect(answer.messages.filter((message: { message_type: string }) => message.message_type === 'assistant_message').map((message: { content: string; sender_id: string }) => [message.content, message.sender_id])).toEqual([
      ['Ann says 1', ann.id],
      ['Bob says 1', bob.id],
      ['Cid says 1', cid.id],
    ]);
    expect(answer.stop_reason).toEqual({ message_type: 'stop_reason', stop_reason: 'end_turn' });
    expect(answer.usage.run_ids).toHaveLength(3);

    // Each speaker was sent what it had not seen: the user's words, then the earlier speakers' replies by name.
    const [toAnn, toBob, toCid] = [asks('Ann'), asks('Bob'), asks('Cid')].map((asked) => model.requests.find(asked)!);
    expect(textsOf(toAnn!)).toEqual(['What do we ship?']);
    expect(textsOf(toBob!)).toEqual(['What do we ship?', 'Ann: Ann says 1']);
    expect(textsOf(toCid!)).toEqual(['What do we ship?', 'Ann: Ann says 1', 'Bob: Bob says 1']);

    // A second turn: Ann first sees what Bob and Cid said after her.
    model.requests.length = 0;
    await json(await post(`/groups/${group.id}/messages`, { messages: [{ role: 'user', content: 'And when?' }] }));
    expect(textsOf(model.requests.find(asks('Ann'))!).slice(-3)).toEqual(['Bob: Bob says 1', 'Cid: Cid says 1', 'And when?']);

    const transcript = await json(await api(`/groups/${group.id}/messages?limit=20`));
    expect(transcript.map((message: { message_type: string; name: string | null; content: string }) => [message.message_type, message.name, message.content])).toEqual([
      ['user_message', null, 'What do we ship?'],
      ['assistant_message', 'Ann', 'Ann says 1'],
      ['assistant_message', 'Bob', 'Bob says 1'],
      ['assistant_message', 'Cid', 'Cid says 1'],
      ['user_message', null, 'And when?'],
      ['assistant_message', 'Ann', 'Ann says 2'],
      ['assistant_message', 'Bob', 'Bob says 2'],
      ['assistant_message', 'Cid', 'Cid says 2'],
    ]);
    const stored = await Message.query(stack.db).where({ groupId: group.id });
    expect(stored.length).toBeGreaterThan(8);
    expect(stored.every((message) => message.groupId === group.id)).toBe(true);
    // Bob's own history, filtered to the group: its copies of what was said, and its answers.
    const bobsGroupMessages = await json(await api(`/agents/${bob.id}/messages?group_id=${group.id}&limit=50`));
    expect(bobsGroupMessages.filter((message: { message_type: string }) => message.message_type === 'assistant_message').map((message: { content: string }) => message.content)).toEqual(['Bob says 1', 'Bob says 2']);
    expect(await json(await api(`/agents/${bob.id}/messages?group_id=group-00000000-0000-4000-8000-000000000000`))).toEqual([]);
  }, 120_000);

  it("a member chatting directly while the group speaks never interleaves: the group's run waits behind the direct one", async () => {
    const [ann, bob] = await Promise.all([member('Ann'), member('Bob')]);
    const group = await json(await post('/groups/', { agent_ids: [ann.id, bob.id], description: 'busy pair' }));
    model.onRequest((request) => (asks('Ann')(request) ? { type: 'text', text: 'Ann says hi', delayMs: 1500 } : undefined));
    model.onRequest((request) => {
      if (!asks('Bob')(request)) return undefined;
      const last = textsOf(request).at(-1)!;
      return last === 'Direct question' ? { type: 'text', text: 'Bob answers directly', delayMs: 2000 } : { type: 'text', text: 'Bob answers the group' };
    });

    const turn = post(`/groups/${group.id}/messages`, { messages: [{ role: 'user', content: 'Group question' }] });
    const direct = await json(await post(`/agents/${bob.id}/messages`, { messages: [{ role: 'user', content: 'Direct question' }] }));
    const answer = await json(await turn);
    expect(direct.messages.map((message: { content?: string }) => message.content)).toEqual(['Bob answers directly']);
    expect(speakers(answer.messages)).toEqual(['Ann', 'Bob']);

    // Bob's group run started after its direct run ended, and read that exchange before the group's messages.
    const toBob = model.requests.filter(asks('Bob'));
    expect(toBob.map((request) => textsOf(request))).toEqual([
      ['Direct question'],
      ['Direct question', 'Bob answers directly', 'Group question', 'Ann: Ann says hi'],
    ]);
    const history = await json(await api(`/agents/${bob.id}/messages?order=asc`));
    expect(history.map((message: { message_type: string; content: string }) => [message.message_type, message.content])).toEqual([
      ['user_message', 'Direct question'],
      ['assistant_message', 'Bob answers directly'],
      ['user_message', 'Group question'],
      ['user_message', 'Ann: Ann says hi'],
      ['assistant_message', 'Bob answers the group'],
    ]);
  }, 120_000);

  it('ends a turn with an error, not a hang, when a member is deleted before its turn to speak', async () => {
    const [ann, bob] = await Promise.all([member('Ann'), member('Bob')]);
    const group = await json(await post('/groups/', { agent_ids: [ann.id, bob.id], description: 'shrinking' }));
    model.onRequest((request) => (asks('Ann')(request) ? { type: 'text', text: 'Ann says hi', delayMs: 1500 } : undefined));
    const turn = post(`/groups/${group.id}/messages`, { messages: [{ role: 'user', content: 'Anyone?' }] });
    await expect.poll(() => model.requests.filter(asks('Ann')).length, { timeout: 30_000 }).toBe(1);
    expect((await send('DELETE', `/agents/${bob.id}`)).status).toBe(200);
    const answer = await json(await turn);
    expect(speakers(answer.messages)).toEqual(['Ann']);
    expect(answer.stop_reason.stop_reason).toBe('error');
    expect(await GroupTurn.query(stack.db).where({ groupId: group.id }).first()).toMatchObject({
      status: 'failed',
      failure: { errorType: 'invalid_group', message: `Agent ${bob.id} of the group was deleted during its turn.` },
    });
  }, 120_000);

  it('streams a turn with each member\'s frames marked with its name and id, then the turn\'s stop reason and usage', async () => {
    const [ann, bob] = await Promise.all([member('Ann'), member('Bob')]);
    const group = await json(await post('/groups/', { agent_ids: [ann.id, bob.id], description: 'pair' }));
    eachAnswersByName(['Ann', 'Bob']);
    const response = await api(`/groups/${group.id}/messages/stream`, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }) });
    expect(response.status).toBe(200);
    const events = await collectSse(response);
    const frames = events.map((event) => event.data).filter((data): data is Record<string, any> => data !== '[DONE]');
    const spoken = frames.filter((frame) => frame.message_type === 'assistant_message');
    expect(spoken.map((frame) => [frame.name, frame.sender_id, frame.content])).toEqual([
      ['Ann', ann.id, 'Ann says 1'],
      ['Bob', bob.id, 'Bob says 1'],
    ]);
    expect(frames.filter((frame) => frame.message_type === 'stop_reason')).toEqual([{ message_type: 'stop_reason', stop_reason: 'end_turn' }]);
    expect(frames.at(-1)).toMatchObject({ message_type: 'usage_statistics', step_count: 2 });
    expect(events.at(-1)?.data).toBe('[DONE]');
  }, 120_000);

  it('dynamic: the manager picks who speaks next until a reply says the termination token', async () => {
    const [lead, ann, bob] = await Promise.all([member('Lead'), member('Ann'), member('Bob')]);
    const group = await json(await post('/groups/', { agent_ids: [ann.id, bob.id], description: 'dynamic', manager_config: { manager_type: 'dynamic', manager_agent_id: lead.id, max_turns: 5 } }));
    const picks = ['Bob', 'Ann'];
    model.onRequest((request) => (asks('Lead')(request) ? { type: 'text', text: picks.shift() ?? 'Bob' } : undefined));
    model.onRequest((request) => (asks('Bob')(request) ? { type: 'text', text: 'Bob here, over to Ann' } : undefined));
    model.onRequest((request) => (asks('Ann')(request) ? { type: 'text', text: 'Ann here. DONE!' } : undefined));

    const answer = await json(await post(`/groups/${group.id}/messages`, { messages: [{ role: 'user', content: 'Who knows?' }] }));
    expect(speakers(answer.messages)).toEqual(['Lead', 'Bob', 'Lead', 'Ann']);
    // The manager was asked to choose among the members, never the one who just spoke.
    const choices = model.requests.filter(asks('Lead'));
    expect(textsOf(choices[0]!).at(-1)).toContain('from: Ann, Bob');
    expect(textsOf(choices[1]!).at(-1)).toContain('from: Ann.');
    expect(textsOf(choices[1]!)).toContain('Bob: Bob here, over to Ann');
    expect((await GroupTurn.query(stack.db).where({ groupId: group.id }).first())?.stopReason).toBe('end_turn');
  }, 120_000);

  it('dynamic: max_turns ends the turn when nobody says the termination token', async () => {
    const [lead, ann, bob] = await Promise.all([member('Lead'), member('Ann'), member('Bob')]);
    const group = await json(await post('/groups/', { agent_ids: [ann.id, bob.id], description: 'dynamic', manager_config: { manager_type: 'dynamic', manager_agent_id: lead.id, max_turns: 2, termination_token: 'STOP' } }));
    model.onRequest((request) => (asks('Lead')(request) ? { type: 'text', text: 'Ann' } : undefined));
    eachAnswersByName(['Ann', 'Bob']);
    const answer = await json(await post(`/groups/${group.id}/messages`, { messages: [{ role: 'user', content: 'Talk.' }] }));
    // Ann spoke first, so the second choice (Ann is named again) falls to the only other candidate, Bob.
    expect(speakers(answer.messages)).toEqual(['Lead', 'Ann', 'Lead', 'Bob']);
  }, 120_000);

  it('supervisor: the manager delegates to every member through its group tool, then answers', async () => {
    const [boss, ann, bob] = await Promise.all([member('Boss'), member('Ann'), member('Bob')]);
    const group = await json(await post('/groups/', { agent_ids: [ann.id, bob.id], description: 'supervised', manager_config: { manager_type: 'supervisor', manager_agent_id: boss.id } }));
    const bossTools = (await json(await api(`/agents/${boss.id}/tools`))).map((tool: { name: string }) => tool.name);
    expect(bossTools).toContain('send_message_to_all_agents_in_group');
    let bossCalls = 0;
    model.onRequest((request) => {
      if (!asks('Boss')(request)) return undefined;
      bossCalls += 1;
      return bossCalls === 1
        ? { type: 'tool_calls', calls: [{ name: 'send_message_to_all_agents_in_group', arguments: { message: 'Estimate the work.' } }] }
        : { type: 'text', text: 'The team estimates three days.' };
    });
    eachAnswersByName(['Ann', 'Bob']);

    const answer = await json(await post(`/groups/${group.id}/messages`, { messages: [{ role: 'user', content: 'How long?' }] }));
    expect(answer.messages.at(-1)).toMatchObject({ message_type: 'assistant_message', name: 'Boss', content: 'The team estimates three days.' });
    const toolReturn = answer.messages.find((message: { message_type: string }) => message.message_type === 'tool_return_message');
    const replies = JSON.parse(toolReturn.tool_return);
    expect(replies).toEqual([
      { agent_id: ann.id, response: ['Ann says 1'] },
      { agent_id: bob.id, response: ['Bob says 1'] },
    ]);
    // The members got the manager's message, marked as coming from it.
    expect(textsOf(model.requests.find(asks('Ann'))!).at(-1)).toContain(`[Incoming message from agent with ID '${boss.id}' (Boss)`);
    expect(textsOf(model.requests.filter(asks('Boss'))[1]!).some((text) => text.includes('Ann says 1'))).toBe(true);
  }, 120_000);
});
