import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Message, MessageBatchItem } from '@engram/db';
import { createAgent } from '@engram/testing/factories/index';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { type ChatRequest, until } from '@engram/testing';

const { stack, model, api, post, patch, stop } = await startAgentTestContext();
afterEach(() => model.reset());

/** A batch runs every item as a run of its own: its waits get longer than one run's. */
const BATCH_WAIT = { timeoutMs: 90_000 };

type Callback = { body: Record<string, unknown> };
const callbacks: Callback[] = [];
const receiver: Server = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString()));
  request.on('end', () => {
    callbacks.push({ body: JSON.parse(body) as Record<string, unknown> });
    response.end('ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/batch-done`;
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
  await stop();
});

function lastUserText(request: ChatRequest): string {
  const user = [...request.messages].reverse().find((message) => message.role === 'user');
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content);
}

/** Every model call answers the last user message it was sent, after `delayMs`. */
function echoModel(delayMs = 0) {
  model.onRequest((request) => ({ type: 'text', text: `answer to ${lastUserText(request)}`, delayMs }));
}

const batchOf = async (id: string): Promise<Record<string, any>> => (await api(`/messages/batches/${id}`)).json();
const finished = (batch: Record<string, any>) => batch.status === 'completed' || batch.status === 'cancelled';

describe('message batches', () => {
  it('runs every request as a run of its agent, in each agent\'s order, and calls back once', async () => {
    echoModel();
    const agents = await Promise.all([0, 1, 2].map(() => createAgent(stack)));
    const requests = [0, 1, 2, 3].flatMap((turn) =>
      agents.map((agent, index) => ({ agent_id: agent.id, messages: [{ role: 'user', content: `agent ${index} turn ${turn}` }] })),
    );
    const created = await post('/messages/batches', { requests, callback_url: callbackUrl });
    expect(created.status).toBe(200);
    const job = await created.json();
    expect(job).toMatchObject({ job_type: 'batch', status: expect.stringMatching(/created|running/), callback_url: callbackUrl });

    // The batch is completed first and its callback sent after, so wait for the callback's outcome as well.
    const done = await until(() => batchOf(job.id), (batch) => finished(batch) && batch.callback_sent_at !== null, BATCH_WAIT);
    expect(done).toMatchObject({ status: 'completed', callback_status_code: 200, callback_error: null });
    expect(done.metadata.item_counts).toEqual({ completed: 12 });
    await until(async () => callbacks.filter((callback) => callback.body.job_id === job.id).length, (count) => count >= 1, BATCH_WAIT);
    expect(callbacks.filter((callback) => callback.body.job_id === job.id)).toEqual([
      { body: expect.objectContaining({ job_id: job.id, status: 'completed' }) },
    ]);

    for (const [index, agent] of agents.entries()) {
      const stored = await Message.query(stack.db).forOrg(stack.tenant.organizationId).where({ agentId: agent.id }).whereNot('role', 'system').orderBy('sequence');
      const texts = stored.map((message) => (message.content[0] as { text: string }).text);
      expect(texts).toEqual([0, 1, 2, 3].flatMap((turn) => [`agent ${index} turn ${turn}`, `answer to agent ${index} turn ${turn}`]));
      // Every message of an item's run, its answer included, carries the item.
      expect(stored.every((message) => message.batchItemId !== null)).toBe(true);
      const items = await MessageBatchItem.query(stack.db).where({ batchId: job.id, agentId: agent.id });
      for (const message of stored) expect(items.find((item) => item.id === message.batchItemId)?.runId).toBe(message.runId);
    }

    const items = await (await api(`/messages/batches/${job.id}/items`)).json();
    expect(items).toHaveLength(12);
    expect(items.every((item: { status: string; run_id: string | null }) => item.status === 'completed' && item.run_id)).toBe(true);

    const forOneAgent = await (await api(`/messages/batches/${job.id}/messages?agent_id=${agents[1]!.id}`)).json();
    expect(forOneAgent.messages).toHaveLength(8);
    type BatchMessage = { agent_id: string; role: string; batch_item_id: string | null };
    expect(forOneAgent.messages.every((message: BatchMessage) => message.agent_id === agents[1]!.id)).toBe(true);
    const inputs = forOneAgent.messages.filter((message: BatchMessage) => message.role === 'user');
    expect(inputs).toHaveLength(4);
    expect(inputs.every((message: BatchMessage) => message.batch_item_id)).toBe(true);
    expect(forOneAgent.messages[0]).toMatchObject({ role: 'user', batch_item_id: items[1].id });

    const listed = await (await api('/messages/batches')).json();
    expect(listed.map((batch: { id: string }) => batch.id)).toContain(job.id);

    // The batch is a job of type batch among the runs of /v1/jobs (its items' runs are jobs too).
    const jobs: Array<{ id: string; job_type: string; agent_id: string | null }> = await (await api('/jobs/?limit=100')).json();
    expect(jobs.find((found) => found.id === job.id)).toMatchObject({ job_type: 'batch', agent_id: null, status: 'completed' });
    expect(jobs.filter((found) => found.job_type === 'run').length).toBeGreaterThanOrEqual(12);
    expect(await (await api(`/jobs/${job.id}`)).json()).toMatchObject({ id: job.id, job_type: 'batch', metadata: { item_counts: { completed: 12 } } });
    const page = await (await api('/jobs/?limit=1')).json();
    const next = await (await api(`/jobs/?limit=1&after=${page[0].id}`)).json();
    expect(next).toHaveLength(1);
    expect(next[0].id).not.toBe(page[0].id);
  }, 180_000);

  it('cancels mid-batch: requests not started never start, the running one is cancelled', async () => {
    echoModel(1500);
    const agent = await createAgent(stack);
    const requests = [0, 1, 2, 3, 4].map((turn) => ({ agent_id: agent.id, messages: [{ role: 'user', content: `turn ${turn}` }] }));
    const job = await (await post('/messages/batches', { requests, callback_url: callbackUrl })).json();
    await until(async () => MessageBatchItem.query(stack.db).where({ batchId: job.id, status: 'running' }).resultSize(), (running) => running === 1, BATCH_WAIT);

    const cancelled = await patch(`/messages/batches/${job.id}/cancel`);
    expect(cancelled.status).toBe(200);
    const done = await until(() => batchOf(job.id), finished, BATCH_WAIT);
    expect(done.status).toBe('cancelled');
    const items: Array<{ status: string; run_id: string | null }> = await (await api(`/messages/batches/${job.id}/items`)).json();
    const started = items.filter((item) => item.run_id !== null);
    const neverStarted = items.filter((item) => item.run_id === null);
    expect(started.length).toBeLessThanOrEqual(2);
    expect(neverStarted.length).toBeGreaterThanOrEqual(3);
    expect(neverStarted.every((item) => item.status === 'cancelled')).toBe(true);
    expect(started.every((item) => ['cancelled', 'completed', 'failed'].includes(item.status))).toBe(true);
    expect(items[0]!.status).toBe('cancelled');
    expect((await patch(`/messages/batches/${job.id}/cancel`)).status).toBe(409);
    // Through /v1/jobs a finished batch is answered as it is, and deleting it deletes it.
    expect(await (await patch(`/jobs/${job.id}/cancel`)).json()).toMatchObject({ id: job.id, status: 'cancelled', job_type: 'batch' });
    expect((await api(`/jobs/${job.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await api(`/messages/batches/${job.id}`)).status).toBe(404);
  }, 120_000);

  it('refuses an unknown agent with a 422 naming the request, and hides batches of other organizations', async () => {
    const refused = await post('/messages/batches', { requests: [{ agent_id: 'agent-00000000-0000-4000-8000-000000000000', messages: [{ role: 'user', content: 'hi' }] }] });
    expect(refused.status).toBe(422);
    expect((await refused.json()).detail[0].loc).toEqual(['body', 'requests', 0, 'agent_id']);

    echoModel();
    const agent = await createAgent(stack);
    const job = await (await post('/messages/batches', { requests: [{ agent_id: agent.id, messages: [{ role: 'user', content: 'hi' }] }] })).json();
    const other = await stack.createTenant();
    for (const path of [`/messages/batches/${job.id}`, `/messages/batches/${job.id}/messages`, `/messages/batches/${job.id}/items`, `/jobs/${job.id}`]) {
      expect((await api(path, { key: other.apiKey.key })).status).toBe(404);
    }
    expect((await api(`/messages/batches/${job.id}/cancel`, { method: 'PATCH', key: other.apiKey.key })).status).toBe(404);
    await until(() => batchOf(job.id), finished, BATCH_WAIT);
  }, 120_000);
});
