import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { toFile } from '@letta-ai/letta-client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Run } from '@engram/db';
import { startAgentTestContext } from '../agent-test-context.js';
import { until } from '../until.js';

/*
 * Records the Temporal histories that workflows/src/replay.test.ts replays against the current workflow bundle.
 * Not part of `npm test`: run it on purpose, after a deliberate, versioned change to a workflow
 * (README "Changing a workflow safely"):
 *
 *   npx vitest run --config vitest.record-histories.config.ts
 *
 * Each scenario drives a real run through the API, a worker and the scripted model server, then saves the
 * history of every workflow it touched as workflows/src/replay-histories/<scenario>--<workflow type>.json
 * (overwritten on each recording; other files there are left alone: the `queue-era-` ones were recorded when runs
 * were queued through agentQueueWorkflow, and stay to prove that runs and queues of that release still replay).
 */

const OUT_DIR = fileURLToPath(new URL('../../../workflows/src/replay-histories/', import.meta.url));

const { stack, model, client, api, stop } = await startAgentTestContext();
afterAll(stop);

async function save(scenario: string, workflowType: string, workflowId: string): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  const history = await stack.temporal.workflow.getHandle(workflowId).fetchHistory();
  const first = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
  expect(first).toBe(workflowType);
  writeFileSync(path.join(OUT_DIR, `${scenario}--${workflowType}.json`), `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 1)}\n`);
}

/** Waits until the workflow has closed. */
async function closed(workflowId: string): Promise<void> {
  await stack.temporal.workflow.getHandle(workflowId).result().catch(() => undefined);
}

async function runsOf(agentId: string): Promise<string[]> {
  const runs = await Run.query(stack.db).forOrg(stack.tenant.organizationId).where({ agentId }).orderBy('createdAt');
  return runs.map((run) => run.id);
}

async function newAgent(extra: Record<string, unknown> = {}) {
  return client.agents.create({ model: 'openai/gpt-4o-mini', ...extra } as Parameters<typeof client.agents.create>[0]);
}

describe('record workflow histories', () => {
  it('a sync send answered with text', async () => {
    model.reset();
    const agent = await newAgent();
    model.enqueue({ type: 'text', text: 'Hello there.' });
    await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'hi' }] });
    const [runId] = await runsOf(agent.id);
    await closed(runId!);
    await save('sync-send', 'agentRunWorkflowV2', runId!);
  });

  it('a send queued behind a running one, begun when the first hands over its turn', async () => {
    model.reset();
    const agent = await newAgent();
    model.enqueue({ type: 'text', text: 'First, slowly.', delayMs: 1_000 }, { type: 'text', text: 'Second.' });
    const first = await client.agents.messages.createAsync(agent.id, { messages: [{ role: 'user', content: 'one' }] });
    const second = await client.agents.messages.createAsync(agent.id, { messages: [{ role: 'user', content: 'two' }] });
    await closed(first.id);
    await closed(second.id);
    expect((await client.runs.retrieve(second.id)).status).toBe('completed');
    await save('turn-handed-over', 'agentRunWorkflowV2', first.id);
    await save('turn-waited', 'agentRunWorkflowV2', second.id);
  });

  it('a tool call, then the answer', async () => {
    model.reset();
    const agent = await newAgent();
    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'earlier' } }] },
      { type: 'text', text: 'Nothing earlier.' },
    );
    await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'what did we say?' }] });
    const [runId] = await runsOf(agent.id);
    await closed(runId!);
    await save('tool-call', 'agentRunWorkflowV2', runId!);
  });

  it('an approval wait, then the approved tool runs', async () => {
    model.reset();
    const agent = await newAgent({ memory_blocks: [{ label: 'human', value: 'Name: Ada' }] });
    const toggled = await api(`/agents/${agent.id}/tools/approval/memory_insert`, { method: 'PATCH', body: JSON.stringify({ requires_approval: true }) });
    expect(toggled.status).toBe(200);
    model.enqueue({ type: 'tool_calls', calls: [{ id: 'call_rec', name: 'memory_insert', arguments: { label: 'human', new_string: 'Likes jazz.' } }] });
    const paused = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'remember I like jazz' }] });
    expect(paused.stop_reason.stop_reason).toBe('requires_approval');
    model.enqueue({ type: 'text', text: 'Saved.' });
    await client.agents.messages.create(agent.id, {
      messages: [{ type: 'approval', approvals: [{ type: 'approval', tool_call_id: 'call_rec', approve: true }] }],
    });
    const [pausedRun, approvedRun] = await runsOf(agent.id);
    await closed(pausedRun!);
    await closed(approvedRun!);
    await save('approval-request', 'agentRunWorkflowV2', pausedRun!);
    await save('approval-approved', 'agentRunWorkflowV2', approvedRun!);
  });

  it('a run cancelled during its model call', async () => {
    model.reset();
    const agent = await newAgent();
    model.enqueue({ type: 'text', text: 'far too late', delayMs: 60_000 });
    const run = await client.agents.messages.createAsync(agent.id, { messages: [{ role: 'user', content: 'take your time' }] });
    await until(() => model.requests.length > 0);
    await client.agents.messages.cancel(agent.id);
    await until(async () => (await client.runs.retrieve(run.id)).status === 'cancelled');
    await closed(run.id);
    await save('cancel', 'agentRunWorkflowV2', run.id);
  });

  it('a run that compacts the context', async () => {
    model.reset();
    const agent = await newAgent({ context_window_limit: 2000 });
    const isSummary = (request: { messages: Array<{ content?: unknown }> }) =>
      JSON.stringify(request.messages[0]?.content ?? '').includes('Summarize the conversation');
    model.onRequest((request) =>
      isSummary(request)
        ? { type: 'text', text: 'The user talked about fruit.' }
        : { type: 'text', text: 'ok', usage: { prompt_tokens: request.messages.length > 6 ? 1900 : 400, completion_tokens: 10, total_tokens: 0 } },
    );
    let compactingRun: string | undefined;
    for (const word of ['apple', 'banana', 'cherry', 'damson']) {
      const summariesBefore = model.requests.filter(isSummary).length;
      await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: `${word} `.repeat(300).trim() }] });
      if (!compactingRun && model.requests.filter(isSummary).length > summariesBefore) compactingRun = (await runsOf(agent.id)).at(-1);
    }
    expect(compactingRun).toBeDefined();
    await closed(compactingRun!);
    await save('compaction', 'agentRunWorkflowV2', compactingRun!);
  });

  it('a round-robin group turn', async () => {
    model.reset();
    model.onRequest(() => ({ type: 'text', text: 'My turn.' }));
    const [first, second] = [await newAgent(), await newAgent()];
    const group = await (await api('/groups/', { method: 'POST', body: JSON.stringify({ agent_ids: [first.id, second.id], description: 'replay' }) })).json();
    const answered = await api(`/groups/${group.id}/messages`, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content: 'hello, both' }] }) });
    expect(answered.status).toBe(200);
    const turnId = answered.headers.get('x-group-turn-id')!;
    await closed(turnId);
    await save('group-turn', 'groupTurnWorkflow', turnId);
    const [secondRun] = await runsOf(second.id);
    await closed(secondRun!);
    await save('group-turn', 'agentRunWorkflowV2', secondRun!);
  });

  it('an agent waiting for the reply of another agent it messaged', async () => {
    model.reset();
    const caller = await newAgent({ include_multi_agent_tools: true, memory_blocks: [{ label: 'persona', value: 'I am the caller.' }] });
    const callee = await newAgent();
    const isCaller = (request: { messages: Array<{ content?: unknown }> }) => JSON.stringify(request.messages[0]?.content ?? '').includes('I am the caller.');
    let callerSteps = 0;
    model.onRequest((request) => {
      if (!isCaller(request)) return { type: 'text', text: 'Here is my answer.' };
      callerSteps += 1;
      return callerSteps === 1
        ? { type: 'tool_calls', calls: [{ name: 'send_message_to_agent_and_wait_for_reply', arguments: { other_agent_id: callee.id, message: 'What do you think?' } }] }
        : { type: 'text', text: 'They answered.' };
    });
    await client.agents.messages.create(caller.id, { messages: [{ role: 'user', content: 'ask the other agent' }] });
    const [callerRun] = await runsOf(caller.id);
    await closed(callerRun!);
    await save('agent-call', 'agentRunWorkflowV2', callerRun!);
    const [calleeRun] = await runsOf(callee.id);
    await closed(calleeRun!);
    await save('agent-called', 'agentRunWorkflowV2', calleeRun!);
  });

  it('a primary agent turn that hands its messages to its sleep-time agent', async () => {
    model.reset();
    model.onRequest(() => ({ type: 'text', text: 'Noted.' }));
    const primary = await newAgent({ enable_sleeptime: true });
    const group = (await client.agents.retrieve(primary.id, { include: ['agent.managed_group'] })).managed_group!;
    await api(`/groups/${group.id}`, { method: 'PATCH', body: JSON.stringify({ manager_config: { manager_type: 'sleeptime', sleeptime_agent_frequency: 1 } }) });
    await client.agents.messages.create(primary.id, { messages: [{ role: 'user', content: 'remember this' }] });
    const [primaryRun] = await runsOf(primary.id);
    await closed(primaryRun!);
    await until(async () => (await runsOf(group.agent_ids[0]!)).length === 1);
    await save('sleeptime', 'agentRunWorkflowV2', primaryRun!);
  });

  it('a file ingested into a folder attached to an agent', async () => {
    model.reset();
    const agent = await newAgent();
    const folder = await client.folders.create({ name: `replay-${Date.now()}` });
    await client.agents.folders.attach(folder.id, { agent_id: agent.id });
    const text = Array.from({ length: 20 }, (_, index) => `Section ${index}: lemon trees need water twice a week in summer.`).join('\n\n');
    const uploaded = await client.folders.files.upload(folder.id, { file: await toFile(Buffer.from(text), 'orchard.md', { type: 'text/markdown' }) });
    const workflowId = `file-ingestion-${uploaded.id}`;
    await closed(workflowId);
    await save('ingestion', 'fileIngestionWorkflow', workflowId);
  });
});
