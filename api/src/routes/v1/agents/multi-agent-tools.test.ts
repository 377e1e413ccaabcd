import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AgentCall, Run } from '@engram/db';
import { type ChatRequest, type ScriptStep, until } from '@engram/testing';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, model, client, post, stop } = await startAgentTestContext();
afterEach(() => model.reset());
afterAll(stop);

const asks = (name: string) => (request: ChatRequest) => String(request.messages[0]?.content ?? '').includes(`I am ${name}.`);
const lastToolResult = (request: ChatRequest) => String([...request.messages].reverse().find((message) => message.role === 'tool')?.content ?? '');

/** Each agent answers from its own script, in order; a script step may depend on the request it answers. */
function scripts(byName: Record<string, Array<ScriptStep | ((request: ChatRequest) => ScriptStep)>>) {
  for (const [name, steps] of Object.entries(byName)) {
    model.onRequest((request) => {
      if (!asks(name)(request)) return undefined;
      const next = steps.shift();
      if (!next) return { type: 'text', text: `${name} has nothing more to say` };
      return typeof next === 'function' ? next(request) : next;
    });
  }
}

/** `include_multi_agent_tools` is not among the Letta client's create parameters, so agents are made over HTTP. */
async function agentNamed(name: string, tags: string[] = []): Promise<{ id: string }> {
  const created = await post('/agents/', { name, model: 'openai/gpt-4o-mini', include_multi_agent_tools: true, tags, memory_blocks: [{ label: 'persona', value: `I am ${name}.` }] });
  expect(created.status).toBe(200);
  return (await created.json()) as { id: string };
}

type ToolReturn = { message_type: 'tool_return_message'; status: string; tool_return: string };
const toolReturns = (messages: ReadonlyArray<{ message_type?: string }>) =>
  messages.filter((message) => message.message_type === 'tool_return_message') as unknown as ToolReturn[];

describe('multi-agent tools', () => {
  it('are attached with include_multi_agent_tools, typed letta_multi_agent_core', async () => {
    const agent = await client.agents.retrieve((await agentNamed('Toolful')).id, { include: ['agent.tools'] });
    const types = Object.fromEntries(agent.tools.map((tool) => [tool.name, tool.tool_type]));
    expect(types).toMatchObject({
      send_message_to_agent_and_wait_for_reply: 'letta_multi_agent_core',
      send_message_to_agent_async: 'letta_multi_agent_core',
      send_message_to_agents_matching_tags: 'letta_multi_agent_core',
    });
  });

  it('a call waits for a child run of the callee across three agents, and a cycle of agents waiting on each other is refused', async () => {
    const [alma, bert, cora] = await Promise.all([agentNamed('Alma'), agentNamed('Bert'), agentNamed('Cora')]);
    scripts({
      Alma: [
        { type: 'tool_calls', calls: [{ name: 'send_message_to_agent_and_wait_for_reply', arguments: { other_agent_id: bert.id, message: 'Ask Cora when we ship.' } }] },
        (request) => ({ type: 'text', text: `Alma heard: ${lastToolResult(request)}` }),
      ],
      Bert: [
        { type: 'tool_calls', calls: [{ name: 'send_message_to_agent_and_wait_for_reply', arguments: { other_agent_id: cora.id, message: 'When do we ship?' } }] },
        { type: 'text', text: 'Bert relays: Friday.' },
      ],
      Cora: [
        // Alma waits on Bert, who waits on Cora: Cora waiting on Alma would close the cycle.
        { type: 'tool_calls', calls: [{ name: 'send_message_to_agent_and_wait_for_reply', arguments: { other_agent_id: alma.id, message: 'Do you know?' } }] },
        { type: 'text', text: 'We ship on Friday.' },
      ],
    });

    const answer = await client.agents.messages.create(alma.id, { messages: [{ role: 'user', content: 'When do we ship?' }] });
    expect(answer.stop_reason.stop_reason).toBe('end_turn');
    const [almaReturn] = toolReturns(answer.messages);
    expect(almaReturn?.status).toBe('success');
    expect(JSON.parse(almaReturn!.tool_return)).toEqual({ agent_id: bert.id, response: ['Bert relays: Friday.'] });

    // Each callee answered in a run of its own, a child of its caller's run.
    const [almaRun] = await Run.query(stack.db).where({ agentId: alma.id });
    const [bertRun] = await Run.query(stack.db).where({ agentId: bert.id });
    const [coraRun] = await Run.query(stack.db).where({ agentId: cora.id });
    expect(bertRun).toMatchObject({ status: 'completed', metadata: expect.objectContaining({ run_type: 'agent_call', parent_run_id: almaRun!.id }) });
    expect(coraRun).toMatchObject({ status: 'completed', metadata: expect.objectContaining({ parent_run_id: bertRun!.id }) });

    const coraMessages = await client.runs.messages.list(coraRun!.id);
    const coraReturn = coraMessages.items.find((message) => message.message_type === 'tool_return_message') as { status: string; tool_return: string };
    expect(coraReturn.status).toBe('error');
    expect(coraReturn.tool_return).toContain(`Refused: agent ${alma.id} is already waiting`);
    const bertReturn = (await client.runs.messages.list(bertRun!.id)).items.find((message) => message.message_type === 'tool_return_message') as { tool_return: string };
    expect(JSON.parse(bertReturn.tool_return)).toEqual({ agent_id: cora.id, response: ['We ship on Friday.'] });

    // The callee saw who sent the message; every wait is over.
    const toCora = model.requests.find(asks('Cora'))!;
    expect(String(toCora.messages.at(-1)?.content)).toBe(`[Incoming message from agent with ID '${bert.id}' (Bert) - your response will be delivered to the sender] When do we ship?`);
    expect(await AgentCall.query(stack.db).whereIn('callerAgentId', [alma.id, bert.id, cora.id]).select('status').orderBy('created_at')).toEqual([
      expect.objectContaining({ status: 'answered' }),
      expect.objectContaining({ status: 'answered' }),
      expect.objectContaining({ status: 'refused' }),
    ]);
  }, 120_000);

  it('an agent cannot wait for itself, and the async call returns at once while the callee answers in its own time', async () => {
    const [dora, eli] = await Promise.all([agentNamed('Dora'), agentNamed('Eli')]);
    scripts({
      Dora: [
        { type: 'tool_calls', calls: [{ name: 'send_message_to_agent_and_wait_for_reply', arguments: { other_agent_id: dora.id, message: 'Me?' } }] },
        { type: 'tool_calls', calls: [{ name: 'send_message_to_agent_async', arguments: { other_agent_id: eli.id, message: 'FYI: shipping Friday.' } }] },
        { type: 'text', text: 'Told Eli.' },
      ],
      Eli: [{ type: 'text', text: 'Thanks, noted.', delayMs: 500 }],
    });
    const answer = await client.agents.messages.create(dora.id, { messages: [{ role: 'user', content: 'Tell Eli.' }] });
    const [self, sent] = toolReturns(answer.messages);
    expect(self).toMatchObject({ status: 'error', tool_return: 'Refused: an agent cannot wait for a reply from itself.' });
    expect(sent?.status).toBe('success');
    expect(sent?.tool_return).toContain(`Sent the message to agent ${eli.id}`);
    const [eliRun] = await until(async () => Run.query(stack.db).where({ agentId: eli.id }), (runs) => runs[0]?.status === 'completed');
    expect(eliRun!.metadata).toMatchObject({ run_type: 'agent_call' });
  }, 120_000);

  it('send_message_to_agents_matching_tags fans out to the matching agents but the sender, and returns every reply', async () => {
    // Made one after another: the replies come back in the order the agents were created.
    const fay = await agentNamed('Fay', ['crew', 'ops']);
    const gus = await agentNamed('Gus', ['crew', 'dev']);
    const hal = await agentNamed('Hal', ['crew', 'ops']);
    await agentNamed('Ivy', ['guest']);
    scripts({
      Fay: [
        { type: 'tool_calls', calls: [{ name: 'send_message_to_agents_matching_tags', arguments: { message: 'Status?', match_all: ['crew'], match_some: [] } }] },
        { type: 'text', text: 'All reported.' },
      ],
      Gus: [{ type: 'text', text: 'Gus: green' }],
      Hal: [{ type: 'text', text: 'Hal: green' }],
    });
    const answer = await client.agents.messages.create(fay.id, { messages: [{ role: 'user', content: 'Check the crew.' }] });
    const [fanOut] = toolReturns(answer.messages);
    expect(JSON.parse(fanOut!.tool_return)).toEqual([
      { agent_id: gus.id, response: ['Gus: green'] },
      { agent_id: hal.id, response: ['Hal: green'] },
    ]);
  }, 120_000);

  it('cancelling the caller cancels the callee\'s run', async () => {
    const [jon, kim] = await Promise.all([agentNamed('Jon'), agentNamed('Kim')]);
    scripts({
      Jon: [{ type: 'tool_calls', calls: [{ name: 'send_message_to_agent_and_wait_for_reply', arguments: { other_agent_id: kim.id, message: 'Take your time.' } }] }],
      Kim: [{ type: 'hang' }],
    });
    const started = await post(`/agents/${jon.id}/messages/async`, { messages: [{ role: 'user', content: 'Ask Kim.' }] });
    const jonRun = await started.json();
    const [kimRun] = await until(async () => Run.query(stack.db).where({ agentId: kim.id }), (runs) => runs[0]?.status === 'running');
    await client.agents.messages.cancel(jon.id);
    const [cancelledKim] = await until(async () => Run.query(stack.db).where({ id: kimRun!.id }), (runs) => runs[0]?.status === 'cancelled');
    expect(cancelledKim!.stopReason).toBe('cancelled');
    expect((await Run.query(stack.db).findById(jonRun.id))?.status).toBe('cancelled');
    expect(await AgentCall.query(stack.db).where({ callerRunId: jonRun.id }).select('status')).toEqual([expect.objectContaining({ status: 'cancelled' })]);
  }, 120_000);
});
