import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Message, MessageBatch, MessageBatchItem, Run } from '@engram/db';
import { crashTestProcesses, startScriptedModelServer, startTestStack, type ChatRequest, type ScriptedModelServer, type TestStack, until } from '@engram/testing';
import { requestV1 } from '@engram/testing/agent-test-context';

/**
 * The size of the batch: 500 requests over 100 agents (five per agent) takes a few minutes on the CI's two cores,
 * the worker killed twice on the way.
 */
const AGENTS = 100;
const REQUESTS_PER_AGENT = 5;

let stack: TestStack;
let model: ScriptedModelServer;
let receiver: Server;
const callbacks: Array<Record<string, unknown>> = [];
const processes = crashTestProcesses(() => stack.workerEnv);

beforeAll(async () => {
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({ inProcessWorker: false, baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }] });
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      callbacks.push(JSON.parse(body) as Record<string, unknown>);
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await processes.killAll();
  await new Promise((resolve) => receiver?.close(resolve));
  await stack?.stop();
  await model?.close();
});

async function call(method: string, path: string, body?: unknown) {
  const response = await requestV1(stack.baseUrl, stack.apiKey, method, path, body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

const lastUserText = (request: ChatRequest) => String([...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '');

describe('a message batch survives the death of its worker', () => {
  it(`answers ${AGENTS * REQUESTS_PER_AGENT} requests over ${AGENTS} agents exactly once, with one callback, though the worker is SIGKILLed twice`, async () => {
    // A short pause per answer, so the kills land while model calls are in flight.
    model.onRequest((request) => ({ type: 'text', text: `answer to ${lastUserText(request)}`, delayMs: 20 }));
    const agentIds: string[] = [];
    for (let index = 0; index < AGENTS; index++) {
      agentIds.push((await call('POST', '/agents/', { model: 'openai/gpt-4o-mini', name: `batch-${index}`, include_base_tools: false })).id);
    }
    const requests = Array.from({ length: REQUESTS_PER_AGENT }, (_, turn) =>
      agentIds.map((agentId, index) => ({ agent_id: agentId, messages: [{ role: 'user', content: `agent ${index} turn ${turn}` }] })),
    ).flat();
    const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/done`;

    const first = processes.worker();
    const job = await call('POST', '/messages/batches', { requests, callback_url: callbackUrl });
    const completedItems = () => MessageBatchItem.query(stack.db).where({ batchId: job.id, status: 'completed' }).resultSize();
    const total = requests.length;
    await until(completedItems, (done) => done >= total / 5, { what: 'a fifth of the batch', timeoutMs: 300_000 });
    await first.kill();
    const second = processes.worker();
    await until(completedItems, (done) => done >= (3 * total) / 5, { what: 'three fifths of the batch', timeoutMs: 300_000 });
    await second.kill();
    processes.worker();

    await until(() => MessageBatch.query(stack.db).findById(job.id), (batch) => batch?.status === 'completed' || batch?.status === 'cancelled', { what: 'the batch to finish', timeoutMs: 600_000 });
    // The job closes, then its callback is sent: the workflow ends once it was delivered.
    await stack.temporal.workflow.getHandle(job.id).result();
    expect(await MessageBatch.query(stack.db).findById(job.id)).toMatchObject({ status: 'completed', callbackStatusCode: 200, callbackError: null, callbackAttempts: 1 });
    expect((await call('GET', `/messages/batches/${job.id}`)).metadata.item_counts).toEqual({ completed: total });

    // Every request was answered exactly once, in its agent's order: one run per item, one answer per run.
    const items = await MessageBatchItem.query(stack.db).where({ batchId: job.id }).orderBy('position');
    expect(new Set(items.map((item) => item.runId)).size).toBe(total);
    const runs = await Run.query(stack.db).whereIn('id', items.map((item) => item.runId!));
    expect(runs.filter((run) => run.status === 'completed')).toHaveLength(total);
    const stored = await Message.query(stack.db).whereIn('agentId', agentIds).whereNot('role', 'system').orderBy('sequence');
    expect(stored).toHaveLength(2 * total);
    for (const [index, agentId] of agentIds.entries()) {
      const texts = stored.filter((message) => message.agentId === agentId).map((message) => (message.content[0] as { text: string }).text);
      expect(texts).toEqual(Array.from({ length: REQUESTS_PER_AGENT }, (_, turn) => [`agent ${index} turn ${turn}`, `answer to agent ${index} turn ${turn}`]).flat());
    }
    const itemOfRun = new Map(items.map((item) => [item.runId, item.id]));
    expect(stored.every((message) => message.batchItemId === itemOfRun.get(message.runId))).toBe(true);

    // One callback (a retried callback after a delivered one would show here).
    expect(callbacks.filter((callback) => callback.job_id === job.id)).toEqual([expect.objectContaining({ job_id: job.id, status: 'completed' })]);
  }, 900_000);
});
