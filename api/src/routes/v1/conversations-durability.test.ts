import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Run } from '@engram/db';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { crashTestProcesses, until, type ChatRequest } from '@engram/testing';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { AGENT_ID } from '@engram/temporal/client';
import { createLegacyAgentRunClient } from '@engram/testing/legacy-agent-runs';
import { createMessageService } from '../../services/messages/message-service.js';
import { createRunService } from '../../services/runs/run-service.js';
import { SendMessageBody, toRunRequest } from './agents/messages.js';
import { loopbackEgress } from '@engram/testing/egress';

/** The issue's scale: messages queued on one conversation when its worker dies, and conversations left idle. */
const QUEUED_MESSAGES = 20;
const IDLE_CONVERSATIONS = 1000;
/** The previous release's queue workflow continues as new after this many runs (RUNS_PER_HISTORY in it). */
const RUNS_PER_HISTORY = 200;

const { stack, model, client, stop } = await startAgentTestContext({ inProcessWorker: false });
const { worker, killAll } = crashTestProcesses(() => stack.workerEnv);
// Each test answers through its own responders: an earlier test's must not answer the next one's requests.
afterEach(() => model.reset());
afterAll(async () => {
  await killAll();
  await stop();
});

const textOf = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));
const lastUserText = (request: ChatRequest) => textOf(request.messages.filter((message) => message.role === 'user').at(-1)?.content);
const requestsFor = (text: string) => model.requests.filter((request) => lastUserText(request) === text);

type Frame = Record<string, unknown> & { message_type: string };

async function framesOf(stream: AsyncIterable<unknown>): Promise<Frame[]> {
  const frames: Frame[] = [];
  for await (const frame of stream) frames.push(frame as unknown as Frame);
  return frames.filter((frame) => frame.message_type !== 'ping');
}

type SendMessage = Parameters<typeof client.conversations.messages.create>[1]['messages'] & object;

/** Sends to a conversation; resolves once the API accepted the send (its run is queued), with its frames to come. */
async function send(conversationId: string, text: string, messages: SendMessage = [{ role: 'user', content: text }]): Promise<{ frames: Promise<Frame[]> }> {
  const stream = await client.conversations.messages.create(conversationId, { messages, include_pings: false });
  return { frames: framesOf(stream) };
}

/** Queues a send without following its stream: the run goes on without a reader, as a background send would. */
async function queue(conversationId: string, text: string): Promise<void> {
  const stream = await client.conversations.messages.create(conversationId, { messages: [{ role: 'user', content: text }], include_pings: false });
  stream.controller.abort();
}

/** Every workflow Temporal lists for the agent (its queues and its runs carry its id), matching `where`. */
async function workflowsOf(agentId: string, where = ''): Promise<WorkflowExecutionInfo[]> {
  const found: WorkflowExecutionInfo[] = [];
  const query = `${AGENT_ID.name} = '${agentId}'${where ? ` AND ${where}` : ''}`;
  for await (const execution of stack.temporal.workflow.list({ query })) found.push(execution);
  return found;
}

const completedRuns = (conversationId: string) => Run.query(stack.db).where({ conversationId, status: 'completed' }).resultSize();

describe("a conversation's queue survives the death of its worker", () => {
  it(`loses none and reorders none of ${QUEUED_MESSAGES} queued messages when the worker is SIGKILLed, while another conversation keeps working`, { timeout: 300_000 }, async () => {
    const firstWorker = worker();
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini', include_base_tools: false });
    const [busy, side] = [await client.conversations.create({ agent_id: agent.id }), await client.conversations.create({ agent_id: agent.id })];
    // The busy conversation's model is slow, so its queue still holds most of its messages when the worker dies.
    model.onRequest((request) => {
      const queued = /^message (\d+)$/.exec(lastUserText(request));
      if (queued) return { type: 'text', text: `answer ${queued[1]}`, delayMs: 400 };
      const aside = /^aside (\d+)$/.exec(lastUserText(request));
      return aside ? { type: 'text', text: `aside answer ${aside[1]}` } : undefined;
    });

    // Each send is accepted (its run queued) before the next is made: the send order is the order of this loop.
    const sent: Array<{ frames: Promise<Frame[]> }> = [];
    for (let index = 0; index < QUEUED_MESSAGES; index++) sent.push(await send(busy.id, `message ${index}`));

    await until(() => requestsFor('message 3').length > 0);
    const firstAside = await (await send(side.id, 'aside 1')).frames;
    expect(firstAside.find((frame) => frame.message_type === 'assistant_message')).toMatchObject({ content: 'aside answer 1' });
    expect(await completedRuns(busy.id)).toBeLessThan(QUEUED_MESSAGES / 2);

    // The worker dies while the model call of the seventh message is under way and thirteen more wait behind it.
    await until(() => requestsFor('message 6').length > 0);
    await firstWorker.kill();
    const completedAtCrash = await completedRuns(busy.id);
    expect(completedAtCrash).toBeLessThan(7);
    worker();

    // The other conversation is answered on the new worker without waiting for the busy queue to drain.
    const secondAside = await (await send(side.id, 'aside 2')).frames;
    expect(secondAside.find((frame) => frame.message_type === 'assistant_message')).toMatchObject({ content: 'aside answer 2' });
    expect(await completedRuns(busy.id)).toBeLessThan(QUEUED_MESSAGES);

    const streams = await Promise.all(sent.map((send) => send.frames));
    streams.forEach((frames, index) => {
      expect(frames.filter((frame) => frame.message_type === 'assistant_message').map((frame) => frame.content)).toEqual([`answer ${index}`]);
      expect(frames.find((frame) => frame.message_type === 'stop_reason')).toMatchObject({ stop_reason: 'end_turn' });
    });

    // Every run completed once, one after the other in send order.
    const runs = await Run.query(stack.db).where({ conversationId: busy.id }).orderBy('createdAt');
    expect(runs.map((run) => run.status)).toEqual(Array(QUEUED_MESSAGES).fill('completed'));
    for (const [index, run] of runs.entries()) {
      if (index > 0) expect(run.startedAt!.getTime()).toBeGreaterThanOrEqual(runs[index - 1]!.completedAt!.getTime());
    }
    // Only the model call cut by the crash was made twice.
    const calls = Array.from({ length: QUEUED_MESSAGES }, (_, index) => requestsFor(`message ${index}`).length);
    expect(calls.every((count) => count === 1 || count === 2)).toBe(true);
    expect(calls.reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(QUEUED_MESSAGES + 1);

    // The conversation reads as it was sent: each message once, its answer right after it, nothing twice.
    const history = await client.conversations.messages.list(busy.id, { order: 'asc', limit: 1000 });
    const turns = history.items
      .filter((message) => message.message_type === 'user_message' || message.message_type === 'assistant_message')
      .map((message) => textOf('content' in message ? message.content : null));
    expect(turns).toEqual(Array.from({ length: QUEUED_MESSAGES }, (_, index) => [`message ${index}`, `answer ${index}`]).flat());
    // Each prompt carried the whole earlier conversation, in order.
    const lastPrompt = JSON.stringify(requestsFor(`message ${QUEUED_MESSAGES - 1}`).at(-1)?.messages);
    expect(lastPrompt.indexOf('answer 18')).toBeGreaterThan(lastPrompt.indexOf('message 18'));
    expect(lastPrompt).not.toContain('aside');

    // Every run was one workflow of its own, started once; no queue workflow held them.
    const sideRuns = await Run.query(stack.db).where({ conversationId: side.id });
    const workflows = await workflowsOf(agent.id);
    expect(workflows.map((execution) => execution.workflowId).sort()).toEqual([...runs, ...sideRuns].map((run) => run.id).sort());
  });

  it(`keeps no workflow for ${IDLE_CONVERSATIONS} idle conversations, and nothing open or timing for those just answered`, { timeout: 300_000 }, async () => {
    await killAll();
    worker();
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini', include_base_tools: false });
    const conversationIds: string[] = [];
    for (let start = 0; start < IDLE_CONVERSATIONS; start += 25) {
      const batch = Array.from({ length: Math.min(25, IDLE_CONVERSATIONS - start) }, () => client.conversations.create({ agent_id: agent.id }));
      conversationIds.push(...(await Promise.all(batch)).map((conversation) => conversation.id));
    }
    expect(new Set(conversationIds).size).toBe(IDLE_CONVERSATIONS);
    model.onRequest((request) => ({ type: 'text', text: `answer to ${lastUserText(request)}` }));

    const answered = [conversationIds[0]!, conversationIds[499]!, conversationIds[999]!];
    const sends = await Promise.all(answered.map((conversationId) => send(conversationId, `hello ${conversationId}`)));
    for (const [index, sent] of sends.entries()) {
      const frames = await sent.frames;
      expect(frames.find((frame) => frame.message_type === 'assistant_message')).toMatchObject({ content: `answer to hello ${answered[index]}` });
    }

    // Visibility lags a little: wait until the answered runs' workflows are listed as closed.
    await until(async () => (await workflowsOf(agent.id, `ExecutionStatus = 'Completed'`)).length === answered.length);
    const everything = await workflowsOf(agent.id);
    const runIds = (await Run.query(stack.db).where({ agentId: agent.id })).map((run) => run.id);
    // The 997 conversations never sent to have no workflow of any kind, open or closed; the 3 answered ones have
    // their runs' workflows, closed.
    expect(everything.map((execution) => execution.workflowId).sort()).toEqual([...runIds].sort());
    expect(await workflowsOf(agent.id, `ExecutionStatus = 'Running'`)).toEqual([]);
    // A run that found its turn free set no timer: nothing of an idle conversation will ever fire.
    for (const runId of runIds) {
      const events = (await stack.temporal.workflow.getHandle(runId).fetchHistory()).events ?? [];
      expect(events.filter((event) => event.timerStartedEventAttributes)).toEqual([]);
    }
  });
});

describe('work in flight across the upgrade to runs that start their own workflows', () => {
  it(`completes a queue of the previous release past its history limit (${RUNS_PER_HISTORY} runs, continued as new) in order with new sends between, and answers its pending approval after the upgrade`, { timeout: 600_000 }, async () => {
    await killAll();
    worker();
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini', memory_blocks: [{ label: 'human', value: 'Name: Ada' }] });
    await client.agents.tools.updateApproval('memory_insert', { agent_id: agent.id, body_requires_approval: true });
    const conversation = await client.conversations.create({ agent_id: agent.id });
    model.onRequest((request) => {
      if (request.messages.at(-1)?.role === 'tool') return { type: 'text', text: 'Saved.' };
      const text = lastUserText(request);
      if (text === 'remember I like jazz') {
        return { type: 'tool_calls', calls: [{ id: 'call_jazz', name: 'memory_insert', arguments: { label: 'human', new_string: 'Likes jazz.' } }] };
      }
      return { type: 'text', text: `answer to ${text}` };
    });

    // The previous release's API: the same run records, each queued by signal-with-start of the queue workflow.
    const legacyRuns = createRunService({
      db: stack.db,
      agentRuns: createLegacyAgentRunClient({ client: stack.temporal, taskQueue: stack.taskQueue }),
      messages: createMessageService({ db: stack.db }),
      egress: loopbackEgress(),
    });
    const ctx = { organizationId: stack.tenant.organizationId, userId: stack.tenant.userId, role: 'admin' as const, requestId: 'upgrade-test', project: {} };
    const legacySend = (text: string) =>
      legacyRuns.createRun(ctx, agent.id, toRunRequest(SendMessageBody.parse({ messages: [{ role: 'user', content: text }] })), {
        runType: 'send_message_async',
        background: true,
        callbackUrl: null,
        conversationId: conversation.id,
      });

    // The old queue gets 200 runs, the approval request last; a send through the current API comes between its
    // last two, and must wait for the runs queued before it and hold up the one queued after.
    for (let index = 0; index < RUNS_PER_HISTORY - 1; index++) await legacySend(`message ${index}`);
    await queue(conversation.id, 'sent after the upgrade');
    await legacySend('remember I like jazz');
    const approvalRun = () => Run.query(stack.db).where({ conversationId: conversation.id, stopReason: 'requires_approval' }).first();
    await until(async () => (await approvalRun()) !== undefined, { timeoutMs: 300_000 });
    const queueId = `agent-queue-${agent.id}-${conversation.id}`;
    const queueExecutions = () => workflowsOf(agent.id, `WorkflowId = '${queueId}'`);
    await until(async () => (await queueExecutions()).some((execution) => execution.status.name === 'CONTINUED_AS_NEW'));

    // The approval the old queue's run asked for is answered through the current API, and the agent goes on.
    const refused = await client.conversations.messages.create(conversation.id, { messages: [{ role: 'user', content: 'hello?' }] }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 409 });
    const approved = await (await send(conversation.id, '', [{ type: 'approval', approvals: [{ type: 'approval', tool_call_id: 'call_jazz', approve: true }] }])).frames;
    expect(approved.filter((frame) => frame.message_type !== 'usage_statistics').map((frame) => frame.message_type)).toEqual(['tool_return_message', 'assistant_message', 'stop_reason']);
    const after = await (await send(conversation.id, 'after the approval')).frames;
    expect(after.find((frame) => frame.message_type === 'assistant_message')).toMatchObject({ content: 'answer to after the approval' });

    const runs = await Run.query(stack.db).where({ conversationId: conversation.id }).orderBy('createdAt');
    expect(runs).toHaveLength(RUNS_PER_HISTORY + 3);
    expect(runs.map((run) => run.status)).toEqual(Array(RUNS_PER_HISTORY + 3).fill('completed'));
    expect(runs.map((run) => run.stopReason)).toEqual([...Array(RUNS_PER_HISTORY).fill('end_turn'), 'requires_approval', 'end_turn', 'end_turn']);
    for (const [index, run] of runs.entries()) {
      if (index > 0) expect(run.startedAt!.getTime()).toBeGreaterThanOrEqual(runs[index - 1]!.completedAt!.getTime());
    }
    // The old queue ran its 200 runs as children in its first history and continued as new; the runs sent through
    // the current API were never its children.
    const executions = await queueExecutions();
    expect(executions.map((execution) => execution.status.name).sort()).toEqual(['CONTINUED_AS_NEW', 'RUNNING']);
    const childrenOf = async (execution: WorkflowExecutionInfo) => {
      const events = (await stack.temporal.workflow.getHandle(queueId, execution.runId).fetchHistory()).events ?? [];
      return events.flatMap((event) => event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? []);
    };
    const [first, next] = [executions.find((execution) => execution.status.name === 'CONTINUED_AS_NEW')!, executions.find((execution) => execution.status.name === 'RUNNING')!];
    const legacyRunIds = runs.filter((_, index) => index !== RUNS_PER_HISTORY - 1 && index < RUNS_PER_HISTORY + 1).map((run) => run.id);
    expect(await childrenOf(first)).toEqual(legacyRunIds);
    expect(await childrenOf(next)).toEqual([]);

    // Every message once, in send order, and the approved tool ran once.
    const history = await client.conversations.messages.list(conversation.id, { order: 'asc', limit: 1000 });
    const turns = history.items
      .filter((message) => message.message_type === 'user_message' || message.message_type === 'assistant_message')
      .map((message) => textOf('content' in message ? message.content : null));
    expect(turns).toEqual([
      ...Array.from({ length: RUNS_PER_HISTORY - 1 }, (_, index) => [`message ${index}`, `answer to message ${index}`]).flat(),
      'sent after the upgrade',
      'answer to sent after the upgrade',
      'remember I like jazz',
      'Saved.',
      'after the approval',
      'answer to after the approval',
    ]);
    const kinds = history.items.map((message) => message.message_type);
    expect(kinds.filter((kind) => kind === 'approval_request_message')).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'tool_return_message')).toHaveLength(1);
    const human = (await client.agents.blocks.retrieve('human', { agent_id: agent.id })).value;
    expect(human.split('Likes jazz.')).toHaveLength(2);
  });
});
