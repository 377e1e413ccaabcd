import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Message, Run } from '@engram/db';
import { crashTestProcesses, readSse, startScriptedModelServer, startTestStack, until, type ScriptedModelServer, type TestStack } from '@engram/testing';
import { createAgent as createAgentAt } from '@engram/testing/factories/index';

let stack: TestStack;
let model: ScriptedModelServer;
const { worker, api, killAll } = crashTestProcesses(() => stack.workerEnv);

beforeAll(async () => {
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({
    inProcessWorker: false,
    baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }],
  });
});

afterAll(async () => {
  await killAll();
  await stack?.stop();
  await model?.close();
});

const createAgent = async (baseUrl: string): Promise<string> => (await createAgentAt({ baseUrl, apiKey: stack.apiKey })).id;

type Frame = Record<string, unknown> & { message_type: string; seq_id?: number };

async function readFrames(response: Response, frames: Frame[], stopAfter?: (frame: Frame) => boolean): Promise<boolean> {
  for await (const event of readSse(response)) {
    if (event.data === '[DONE]') return true;
    frames.push(event.data as Frame);
    if (stopAfter?.(event.data as Frame)) return false;
  }
  return false;
}

describe('a run survives the death of its processes', () => {
  it('completes after the worker is killed during a slow model call, each message once, the stream whole', async () => {
    const { baseUrl } = await api();
    const firstWorker = worker();
    const agentId = await createAgent(baseUrl);
    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'before' } }] },
      { type: 'text', text: 'never delivered', delayMs: 4000 },
      { type: 'text', text: 'Answer after the crash.' },
    );
    const stream = await fetch(`${baseUrl}/v1/agents/${agentId}/messages/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'survive this' }], include_pings: false }),
    });
    const frames: Frame[] = [];
    const reading = readFrames(stream, frames);

    await until(() => model.requests.length === 2);
    await firstWorker.kill();
    worker();
    expect(await reading).toBe(true);

    const types = frames.map((frame) => frame.message_type);
    expect(types).toEqual(['tool_call_message', 'tool_return_message', 'assistant_message', 'stop_reason', 'usage_statistics']);
    expect(frames.map((frame) => frame.seq_id)).toEqual([1, 2, 3, 4, 5]);
    expect(frames[2]).toMatchObject({ content: 'Answer after the crash.' });

    const runId = frames[0]?.run_id as string;
    const run = await Run.query(stack.db).forOrg(stack.tenant.organizationId).findById(runId);
    expect(run).toMatchObject({ status: 'completed', stopReason: 'end_turn' });
    const stored = await Message.query(stack.db).forOrg(stack.tenant.organizationId).where({ agentId }).whereNot('role', 'system');
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  }, 120_000);

  it('streams the tokens of a model call whose worker died mid-stream once, not again from the retry', async () => {
    // The model call must run on the worker this test kills: no worker of an earlier test may take it.
    await killAll();
    const { baseUrl } = await api();
    const firstWorker = worker();
    const agentId = await createAgent(baseUrl);
    const answer = 'Tokens arrive one by one and none of them twice.';
    const requestsBefore = model.requests.length;
    model.enqueue({ type: 'text', text: answer, chunkDelayMs: 300 }, { type: 'text', text: answer });
    const stream = await fetch(`${baseUrl}/v1/agents/${agentId}/messages/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'stream it' }], stream_tokens: true, include_pings: false }),
    });
    const frames: Frame[] = [];
    const reading = readFrames(stream, frames);
    const assistantDeltas = () => frames.filter((frame) => frame.message_type === 'assistant_message');

    await until(() => assistantDeltas().length >= 3);
    await firstWorker.kill();
    worker();
    expect(await reading).toBe(true);

    expect(model.requests.length - requestsBefore).toBe(2);
    expect(assistantDeltas().map((frame) => frame.content).join('')).toBe(answer);
    expect(new Set(assistantDeltas().map((frame) => frame.id)).size).toBe(1);
    const stored = await Message.query(stack.db).forOrg(stack.tenant.organizationId).where({ agentId, role: 'assistant' });
    expect(stored).toHaveLength(1);
  }, 120_000);

  it('lets a client resume with starting_after when the API process restarts mid-stream', async () => {
    const firstApi = await api();
    const { baseUrl } = firstApi;
    worker();
    const agentId = await createAgent(baseUrl);
    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'one' } }] },
      { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'two' } }], delayMs: 2500 },
      { type: 'text', text: 'All done.' },
    );
    const stream = await fetch(`${baseUrl}/v1/agents/${agentId}/messages/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'keep going' }], include_pings: false }),
    });
    const before: Frame[] = [];
    await readFrames(stream, before, (frame) => frame.message_type === 'tool_return_message').catch(() => false);
    const runId = before[0]?.run_id as string;
    await firstApi.kill();
    // The client resumes at the address it knows: the successor listens on the same port.
    await api(firstApi.port);

    const lastSeen = before.at(-1)?.seq_id ?? 0;
    const resumed = await fetch(`${baseUrl}/v1/runs/${runId}/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ starting_after: lastSeen, include_pings: false }),
    });
    const after: Frame[] = [];
    expect(await readFrames(resumed, after)).toBe(true);
    const all = [...before, ...after];
    expect(all.map((frame) => frame.seq_id)).toEqual(all.map((_, index) => index + 1));
    expect(all.map((frame) => frame.message_type)).toEqual([
      'tool_call_message',
      'tool_return_message',
      'tool_call_message',
      'tool_return_message',
      'assistant_message',
      'stop_reason',
      'usage_statistics',
    ]);
  }, 120_000);
});
