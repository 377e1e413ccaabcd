import { temporal } from '@temporalio/proto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTemporalCli } from '@engram/temporal/dev-server';
import {
  readSse,
  startApiProcess,
  startScriptedModelServer,
  startTestStack,
  startWorkerProcess,
  type ManagedProcess,
  type ScriptedModelServer,
  type TestStack,
  until,
} from '@engram/testing';
import { ensureTemporalServer, startTemporalCluster, type TemporalCluster } from '@engram/testing/temporal-cluster';

/**
 * The shape Engram scales out to: a Temporal server with PostgreSQL persistence (not the dev server), two API
 * processes and two workers sharing it and one Engram database. The durability scenarios hold across them.
 */

let cluster: TemporalCluster;
let stack: TestStack;
let model: ScriptedModelServer;
let apiA: string;
let apiB: string;
const workers = new Map<number, ManagedProcess>();
const processes: ManagedProcess[] = [];

function startWorker(): ManagedProcess {
  const worker = startWorkerProcess(stack.workerEnv);
  workers.set(worker.child.pid!, worker);
  processes.push(worker);
  return worker;
}

/** `pid@host`, the SDK's default worker identity, as Temporal records which worker polls or ran a task. */
const pidOfIdentity = (identity: string | null | undefined) => Number(identity?.split('@')[0]);

/** Waits until each of these workers polls the task queue for activities (a worker takes seconds to start). */
async function untilPolling(pids: number[]): Promise<void> {
  await until(async () => {
    const { pollers } = await stack.temporal.workflowService.describeTaskQueue({
      namespace: cluster.namespace,
      taskQueue: { name: stack.taskQueue },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    });
    const polling = new Set((pollers ?? []).map((poller) => pidOfIdentity(poller.identity)));
    return pids.every((pid) => polling.has(pid));
  }, { timeoutMs: 120_000, what: `workers ${pids.join(', ')} polling` });
}

async function startApi(): Promise<string> {
  const api = await startApiProcess(stack.workerEnv, 0, 120_000);
  processes.push(api);
  return api.baseUrl;
}

beforeAll(async () => {
  const binaries = ensureTemporalServer({ log: (line) => console.log(line) });
  cluster = await startTemporalCluster({ adminUrl: inject('postgresAdminUrl'), binaries, cliPath: ensureTemporalCli() });
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({
    inProcessWorker: false,
    temporalAddress: cluster.address,
    baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }],
  });
  [apiA, apiB] = await Promise.all([startApi(), startApi()]);
  await untilPolling([startWorker().child.pid!, startWorker().child.pid!]);
}, 600_000);

afterEach(() => model.reset());

afterAll(async () => {
  await Promise.all(processes.map((managed) => managed.kill()));
  await stack?.stop();
  await model?.close();
  await cluster?.stop();
});

async function call(baseUrl: string, method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${stack.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function createAgent(baseUrl: string): Promise<string> {
  const created = await call(baseUrl, 'POST', '/agents/', { model: 'openai/gpt-4o-mini', memory_blocks: [{ label: 'human', value: 'Name: Ada' }] });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.id as string;
}

type Frame = Record<string, unknown> & { message_type: string; seq_id?: number; id?: string };

async function readFrames(response: Response): Promise<Frame[]> {
  const frames: Frame[] = [];
  for await (const event of readSse(response)) {
    if (event.data === '[DONE]') return frames;
    frames.push(event.data as Frame);
  }
  throw new Error(`the stream ended without [DONE] after ${frames.length} frames`);
}

describe('two API processes and two workers on a Temporal cluster with PostgreSQL persistence', () => {
  it('streams a run started through API B from API A: every frame once, in order', async () => {
    const agentId = await createAgent(apiB);
    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'earlier' } }] },
      { type: 'text', text: 'Answered across processes.', delayMs: 1_500 },
    );
    const started = await call(apiB, 'POST', `/agents/${agentId}/messages/async`, { messages: [{ role: 'user', content: 'across processes' }] });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const stream = await fetch(`${apiA}/v1/runs/${started.body.id}/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ include_pings: false }),
    });
    expect(stream.status).toBe(200);
    const frames = await readFrames(stream);
    expect(frames.map((frame) => frame.message_type)).toEqual(['tool_call_message', 'tool_return_message', 'assistant_message', 'stop_reason', 'usage_statistics']);
    expect(frames.map((frame) => frame.seq_id)).toEqual([1, 2, 3, 4, 5]);
    expect(frames[2]).toMatchObject({ content: 'Answered across processes.' });
    expect((await call(apiA, 'GET', `/runs/${started.body.id}`)).body).toMatchObject({ status: 'completed', stop_reason: 'end_turn' });
  }, 180_000);

  it('moves a run to the other worker when the worker running its model call is killed', async () => {
    const agentId = await createAgent(apiA);
    model.enqueue(
      { type: 'text', text: 'never delivered', delayMs: 60_000 },
      { type: 'text', text: 'Answered by the surviving worker.' },
    );
    const started = await call(apiA, 'POST', `/agents/${agentId}/messages/async`, { messages: [{ role: 'user', content: 'survive a worker' }] });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const runId = started.body.id as string;
    const handle = stack.temporal.workflow.getHandle(runId);
    // The slow answer is being awaited: the worker that holds the model call has sent it.
    await until(() => model.requests.length === 1);
    const holder = await until(async () => {
      // The run's workflow schedules its step once it has begun: until then there is nothing pending.
      const described = await handle.describe().catch(() => undefined);
      const pending = described?.raw.pendingActivities ?? [];
      const modelCall = pending.find((activity) => activity.activityType?.name === 'runStep' && activity.lastWorkerIdentity);
      return modelCall ? pidOfIdentity(modelCall.lastWorkerIdentity) : undefined;
    });
    const doomed = workers.get(holder);
    expect(doomed, `the model call runs on worker ${holder}, one of ours`).toBeDefined();
    await doomed!.kill();
    const survivor = [...workers.keys()].find((pid) => pid !== holder)!;

    const run = await until(async () => {
      const current = (await call(apiB, 'GET', `/runs/${runId}`)).body;
      return current.status === 'created' || current.status === 'running' ? undefined : current;
    }, { timeoutMs: 150_000 });
    expect(run).toMatchObject({ status: 'completed', stop_reason: 'end_turn' });
    const history = await handle.fetchHistory();
    const modelCallsStarted = (history.events ?? []).flatMap((event) => (event.activityTaskStartedEventAttributes ? [event.activityTaskStartedEventAttributes.identity] : []));
    expect(modelCallsStarted.map(pidOfIdentity)).toContain(survivor);
    const messages = (await call(apiB, 'GET', `/agents/${agentId}/messages?order=asc&limit=50`)).body as Frame[];
    expect(messages.filter((message) => message.message_type === 'user_message').map((message) => message.content)).toEqual(['survive a worker']);
    expect(messages.filter((message) => message.message_type === 'assistant_message').map((message) => message.content)).toEqual(['Answered by the surviving worker.']);
    // The cluster keeps two workers for the scenarios after this one.
    workers.delete(holder);
    await untilPolling([startWorker().child.pid!]);
  }, 240_000);

  it('lists runs and messages in the same order from either API, and an approval asked through one is answered through the other', async () => {
    const agentId = await createAgent(apiA);
    const toggled = await call(apiB, 'PATCH', `/agents/${agentId}/tools/approval/memory_insert`, { requires_approval: true });
    expect(toggled.status, JSON.stringify(toggled.body)).toBe(200);

    const sent: Array<{ via: string; status: number; body: any }> = [];
    model.enqueue({ type: 'text', text: 'first answer' });
    sent.push({ via: 'A', ...(await call(apiA, 'POST', `/agents/${agentId}/messages`, { messages: [{ role: 'user', content: 'first' }] })) });
    model.enqueue({ type: 'text', text: 'second answer' });
    sent.push({ via: 'B', ...(await call(apiB, 'POST', `/agents/${agentId}/messages`, { messages: [{ role: 'user', content: 'second' }] })) });
    model.enqueue({ type: 'tool_calls', calls: [{ id: 'call_jazz', name: 'memory_insert', arguments: { label: 'human', new_string: 'Likes jazz.' } }] });
    sent.push({ via: 'A', ...(await call(apiA, 'POST', `/agents/${agentId}/messages`, { messages: [{ role: 'user', content: 'remember jazz' }] })) });
    expect(sent.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(sent[2]!.body.stop_reason.stop_reason).toBe('requires_approval');
    expect(sent[2]!.body.messages.at(-1)).toMatchObject({ message_type: 'approval_request_message', tool_call: { tool_call_id: 'call_jazz' } });

    const refused = await call(apiB, 'POST', `/agents/${agentId}/messages`, { messages: [{ role: 'user', content: 'hello?' }] });
    expect(refused.status).toBe(409);
    model.enqueue({ type: 'text', text: 'Saved.' });
    const approved = await call(apiB, 'POST', `/agents/${agentId}/messages`, {
      messages: [{ type: 'approval', approvals: [{ type: 'approval', tool_call_id: 'call_jazz', approve: true }] }],
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.messages.map((message: Frame) => message.message_type)).toEqual(['tool_return_message', 'assistant_message']);
    const block = await call(apiA, 'GET', `/agents/${agentId}/core-memory/blocks/human`);
    expect(block.body.value).toContain('Likes jazz.');

    const runsA = (await call(apiA, 'GET', `/runs/?agent_id=${agentId}`)).body as Array<{ id: string; stop_reason: string; created_at: string }>;
    const runsB = (await call(apiB, 'GET', `/runs/?agent_id=${agentId}`)).body as typeof runsA;
    expect(runsB).toEqual(runsA);
    expect(runsA).toHaveLength(4);
    const byCreation = [...runsA].sort((left, right) => left.created_at.localeCompare(right.created_at));
    expect(byCreation.map((run) => run.stop_reason)).toEqual(['end_turn', 'end_turn', 'requires_approval', 'end_turn']);

    const messagesA = (await call(apiA, 'GET', `/agents/${agentId}/messages?order=asc&limit=50`)).body as Frame[];
    const messagesB = (await call(apiB, 'GET', `/agents/${agentId}/messages?order=asc&limit=50`)).body as Frame[];
    expect(messagesB).toEqual(messagesA);
    expect(messagesA.filter((message) => message.message_type === 'user_message').map((message) => message.content)).toEqual(['first', 'second', 'remember jazz']);
    expect(messagesA.filter((message) => message.message_type === 'assistant_message').map((message) => message.content)).toEqual(['first answer', 'second answer', 'Saved.']);
  }, 240_000);
});
