import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Agent, Group, Run } from '@engram/db';
import { type ChatRequest, type ScriptStep, until } from '@engram/testing';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, model, client, api, patch, systemMessageText, stop } = await startAgentTestContext();
afterEach(() => model.reset());
afterAll(stop);

const isSleeptime = (request: ChatRequest) => String(request.messages[0]?.content ?? '').includes('You are a sleep-time memory agent');
const lastUserText = (request: ChatRequest) => String([...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '');

async function createPrimary(name: string) {
  const primary = await client.agents.create({
    name,
    model: 'openai/gpt-4o-mini',
    enable_sleeptime: true,
    memory_blocks: [
      { label: 'persona', value: `I am ${name}.` },
      { label: 'human', value: 'Nothing known about the user yet.' },
    ],
  });
  const withGroup = await client.agents.retrieve(primary.id, { include: ['agent.managed_group'] });
  const group = withGroup.managed_group!;
  return { primary, group, sleeptimeAgentId: group.agent_ids[0]! };
}

const sleeptimeRunsOf = async (agentId: string) => Run.query(stack.db).where({ agentId }).orderBy('created_at');

describe('sleep-time agents', () => {
  it('enable_sleeptime makes a sleep-time agent sharing the blocks, in a sleeptime group the agent manages', async () => {
    const { primary, group, sleeptimeAgentId } = await createPrimary('Keeper');
    expect(primary.enable_sleeptime).toBe(true);
    expect(group).toMatchObject({ manager_type: 'sleeptime', manager_agent_id: primary.id, sleeptime_agent_frequency: 5, turns_counter: 0, last_processed_message_id: null });
    expect((await client.agents.retrieve(primary.id, { include: ['agent.managed_group'] })).multi_agent_group?.id).toBe(group.id);

    const sleeptimeAgent = await client.agents.retrieve(sleeptimeAgentId, { include: ['agent.blocks', 'agent.tools'] });
    expect(sleeptimeAgent).toMatchObject({ name: 'Keeper-sleeptime', agent_type: 'sleeptime_agent' });
    const primaryBlocks = (await client.agents.retrieve(primary.id, { include: ['agent.blocks'] })).blocks;
    const human = primaryBlocks.find((block) => block.label === 'human')!;
    expect(sleeptimeAgent.blocks.find((block) => block.label === 'human')?.id).toBe(human.id);
    expect(sleeptimeAgent.blocks.map((block) => block.label)).toContain('memory_persona');
    const toolTypes = Object.fromEntries(sleeptimeAgent.tools.map((tool) => [tool.name, tool.tool_type]));
    expect(toolTypes).toMatchObject({ memory_rethink: 'letta_sleeptime_core', memory_finish_edits: 'letta_sleeptime_core' });

    // Turning it off removes the group and the sleep-time agent it made; turning it on makes them again.
    expect((await client.agents.update(primary.id, { enable_sleeptime: false })).enable_sleeptime).toBe(false);
    expect((await api(`/groups/${group.id}`)).status).toBe(404);
    expect((await api(`/agents/${sleeptimeAgentId}`)).status).toBe(404);
    await client.agents.update(primary.id, { enable_sleeptime: true });
    const again = (await client.agents.retrieve(primary.id, { include: ['agent.managed_group'] })).managed_group!;
    expect(again.manager_type).toBe('sleeptime');

    // Deleting the agent deletes its sleep-time agent.
    await client.agents.delete(primary.id);
    expect((await api(`/agents/${again.agent_ids[0]}`)).status).toBe(404);
    expect(await Group.query(stack.db).findById(again.id)).toBeUndefined();
  });

  it('every N turns the sleep-time agent edits a shared block from the new messages, and the primary agent sees it next turn', async () => {
    const { primary, group, sleeptimeAgentId } = await createPrimary('Host');
    expect((await patch(`/groups/${group.id}`, { manager_config: { manager_type: 'sleeptime', sleeptime_agent_frequency: 2 } })).status).toBe(200);

    const sleeptimeReplies: ScriptStep[] = [];
    model.onRequest((request) => (isSleeptime(request) ? (sleeptimeReplies.shift() ?? { type: 'text', text: 'Nothing to change.' }) : undefined));
    model.onRequest((request) => ({ type: 'text', text: `Noted: ${lastUserText(request)}` }));
    sleeptimeReplies.push(
      { type: 'tool_calls', calls: [{ name: 'memory_rethink', arguments: { label: 'human', new_memory: 'The user likes green tea and lives in Oslo.' } }] },
      { type: 'tool_calls', calls: [{ name: 'memory_finish_edits', arguments: {} }] },
    );

    const say = (text: string) => client.agents.messages.create(primary.id, { messages: [{ role: 'user', content: text }] });
    await say('I like green tea.');
    // The turn is counted as the run's workflow closes, just after its answer was written.
    await until(async () => Group.query(stack.db).findById(group.id), (found) => found?.turnsCounter === 1);
    expect(await sleeptimeRunsOf(sleeptimeAgentId)).toEqual([]);

    const second = await say('I live in Oslo.');
    expect(second.stop_reason.stop_reason).toBe('end_turn');
    const [sleeptimeRun] = await until(() => sleeptimeRunsOf(sleeptimeAgentId), (runs) => runs.length === 1 && runs[0]!.status === 'completed');
    expect(sleeptimeRun!.metadata).toMatchObject({ run_type: 'sleeptime_agent_send_message_async', sleeptime_group_id: group.id });

    // The sleep-time agent read both turns and rewrote the shared block.
    const sleeptimeRequest = model.requests.find(isSleeptime)!;
    expect(lastUserText(sleeptimeRequest)).toContain('user: I like green tea.');
    expect(lastUserText(sleeptimeRequest)).toContain('Host: Noted: I live in Oslo.');
    const human = (await client.agents.blocks.retrieve('human', { agent_id: primary.id })).value;
    expect(human).toBe('The user likes green tea and lives in Oslo.');
    const afterSpan = await until(async () => Group.query(stack.db).findById(group.id), (found) => found?.turnsCounter === 2);
    const lastAnswer = (await Agent.query(stack.db).findById(primary.id))!.messageIds.at(-1);
    expect(afterSpan).toMatchObject({ turnsCounter: 2, lastProcessedMessageId: lastAnswer });

    // The primary agent's next turn is compiled with the edited block.
    model.requests.length = 0;
    await say('What do I drink?');
    const primaryRequest = model.requests.find((request) => !isSleeptime(request))!;
    expect(String(primaryRequest.messages[0]?.content)).toContain('The user likes green tea and lives in Oslo.');
    expect(await systemMessageText(primary.id)).toContain('The user likes green tea and lives in Oslo.');

    // The next span starts after the processed one: turn 4 hands only turns 3 and 4 to the sleep-time agent.
    await say('Goodbye.');
    const runs = await until(() => sleeptimeRunsOf(sleeptimeAgentId), (found) => found.length === 2 && found[1]!.status === 'completed');
    const spanRequest = model.requests.filter(isSleeptime).at(-1)!;
    expect(lastUserText(spanRequest)).toContain('user: What do I drink?');
    expect(lastUserText(spanRequest)).not.toContain('green tea.');
    expect(runs[1]!.metadata.processed_message_ids).toMatchObject({ to: (await Agent.query(stack.db).findById(primary.id))!.messageIds.at(-1) });
  }, 120_000);

  it('a message to the sleeptime group is answered by its primary agent, whose turn hands its span to the sleep-time agent', async () => {
    const { primary, group, sleeptimeAgentId } = await createPrimary('Front');
    expect((await patch(`/groups/${group.id}`, { manager_config: { manager_type: 'sleeptime', sleeptime_agent_frequency: 1 } })).status).toBe(200);
    model.onRequest((request) => (isSleeptime(request) ? { type: 'tool_calls', calls: [{ name: 'memory_finish_edits', arguments: {} }] } : { type: 'text', text: 'Front here.' }));
    const sent = await api(`/groups/${group.id}/messages`, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content: 'Hello group' }] }) });
    expect(sent.status).toBe(200);
    const answer = await sent.json();
    expect(answer.messages.map((message: { message_type: string; name: string; content: string }) => [message.message_type, message.name, message.content])).toEqual([
      ['assistant_message', 'Front', 'Front here.'],
    ]);
    const [handedOver] = await until(() => sleeptimeRunsOf(sleeptimeAgentId), (runs) => runs[0]?.status === 'completed');
    expect(handedOver!.metadata).toMatchObject({ parent_run_id: (await Run.query(stack.db).where({ agentId: primary.id }).first())!.id });
    const transcript = await (await api(`/groups/${group.id}/messages`)).json();
    expect(transcript.map((message: { message_type: string; content: string }) => [message.message_type, message.content])).toEqual([
      ['user_message', 'Hello group'],
      ['assistant_message', 'Front here.'],
    ]);
  }, 120_000);

  it('a failing sleep-time run never fails the primary agent\'s turn', async () => {
    const { primary, group, sleeptimeAgentId } = await createPrimary('Sturdy');
    expect((await patch(`/groups/${group.id}`, { manager_config: { manager_type: 'sleeptime', sleeptime_agent_frequency: 1 } })).status).toBe(200);
    model.onRequest((request) => (isSleeptime(request) ? { type: 'error', status: 400, message: 'the sleep-time model refuses' } : undefined));
    model.onRequest(() => ({ type: 'text', text: 'Fine.' }));
    const answer = await client.agents.messages.create(primary.id, { messages: [{ role: 'user', content: 'hello' }] });
    expect(answer.stop_reason.stop_reason).toBe('end_turn');
    const [failed] = await until(() => sleeptimeRunsOf(sleeptimeAgentId), (runs) => runs.length === 1 && runs[0]!.status === 'failed');
    expect(failed!.status).toBe('failed');
    const primaryRuns = await Run.query(stack.db).where({ agentId: primary.id });
    expect(primaryRuns.map((run) => [run.status, run.stopReason])).toEqual([['completed', 'end_turn']]);
  }, 120_000);
});
