import http from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { collectSse, startTestStack, until } from '@engram/testing';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, model, client, api, stop } = await startAgentTestContext({ pingIntervalMs: 200 });
afterEach(() => model.reset());
afterAll(stop);

const newAgent = () => client.agents.create({ model: 'openai/gpt-4o-mini' } as Parameters<typeof client.agents.create>[0]);

function waitForStatus(runId: string, statuses: string[]) {
  return until(() => client.runs.retrieve(runId), (run) => statuses.includes(run.status ?? ''), { what: `run ${runId} ${statuses.join('/')}` });
}

/** The workflow ids a visibility query finds once it finds `expected` (visibility lags a little behind), within 20 s. */
async function workflowIdsWhen(query: string, expected: string[]): Promise<string[]> {
  const listed = async () => {
    const found: string[] = [];
    for await (const execution of stack.temporal.workflow.list({ query })) found.push(execution.workflowId);
    return found.sort();
  };
  return until(listed, (found) => found.join() === [...expected].sort().join(), { timeoutMs: 20_000 }).catch(() => listed());
}

describe('runs as operators see them in Temporal', () => {
  it('follows a termination from the Temporal side: the run record fails with a clear error', async () => {
    const agent = await newAgent();
    model.enqueue({ type: 'hang' });
    const run = await client.agents.messages.createAsync(agent.id, { messages: [{ role: 'user', content: 'hang' }] });
    await waitForStatus(run.id, ['running']);
    const handle = stack.temporal.workflow.getHandle(run.id);
    const description = await handle.describe();
    expect(description.searchAttributes).toMatchObject({
      EngramOrganizationId: [stack.tenant.organizationId],
      EngramAgentId: [agent.id],
      EngramRunType: ['send_message_async'],
      EngramRunStatus: ['running'],
    });
    await handle.terminate('operator stopped it');
    const ended = await waitForStatus(run.id, ['failed', 'cancelled']);
    expect(ended).toMatchObject({ status: 'failed', stop_reason: 'error' });
    expect(JSON.stringify(ended.metadata)).toContain('terminated');
  });

  it('hands the turn of a run terminated there to the run queued behind it, which then answers', async () => {
    const agent = await newAgent();
    model.enqueue({ type: 'hang' }, { type: 'text', text: 'my turn came' });
    const stuck = await client.agents.messages.createAsync(agent.id, { messages: [{ role: 'user', content: 'hang' }] });
    await waitForStatus(stuck.id, ['running']);
    const queued = await client.agents.messages.createAsync(agent.id, { messages: [{ role: 'user', content: 'after it' }] });
    expect((await client.runs.retrieve(queued.id)).status).toBe('created');
    await stack.temporal.workflow.getHandle(stuck.id).terminate('operator stopped it');
    expect(await waitForStatus(stuck.id, ['failed'])).toMatchObject({ stop_reason: 'error' });
    expect(await waitForStatus(queued.id, ['completed'])).toMatchObject({ stop_reason: 'end_turn' });
    const messages = await client.runs.messages.list(queued.id);
    expect(messages.items.find((message) => message.message_type === 'assistant_message')).toMatchObject({ content: 'my turn came' });
  });

  it('ends a run cancelled from the Temporal side as cancelled', async () => {
    const agent = await newAgent();
    model.enqueue({ type: 'hang' });
    const run = await client.agents.messages.createAsync(agent.id, { messages: [{ role: 'user', content: 'hang' }] });
    await waitForStatus(run.id, ['running']);
    await stack.temporal.workflow.getHandle(run.id).cancel();
    expect(await waitForStatus(run.id, ['cancelled'])).toMatchObject({ stop_reason: 'cancelled' });
    expect(await workflowIdsWhen(`EngramRunStatus = 'cancelled' AND EngramAgentId = '${agent.id}'`, [run.id])).toEqual([run.id]);
  });

  it('records each run’s outcome in EngramRunStatus, so a visibility query finds the failed ones', async () => {
    const agent = await newAgent();
    model.enqueue({ type: 'error', status: 400, message: 'the model refuses this request' }, { type: 'text', text: 'fine' });
    const failed = await client.agents.messages.createAsync(agent.id, { messages: [{ role: 'user', content: 'fail' }] });
    const completed = await client.agents.messages.createAsync(agent.id, { messages: [{ role: 'user', content: 'succeed' }] });
    await waitForStatus(failed.id, ['failed']);
    await waitForStatus(completed.id, ['completed']);

    expect(await workflowIdsWhen(`EngramRunStatus = 'failed' AND EngramAgentId = '${agent.id}'`, [failed.id])).toEqual([failed.id]);
    expect(await workflowIdsWhen(`EngramRunStatus = 'completed' AND EngramAgentId = '${agent.id}'`, [completed.id])).toEqual([completed.id]);
    // The workflow itself completed: the run's failure is the agent's, not the engine's.
    expect((await stack.temporal.workflow.getHandle(failed.id).describe()).status.name).toBe('COMPLETED');
  });
});

describe('listing runs', () => {
  it('filters by agent, status and stop reason and pages by cursor', async () => {
    const agent = await newAgent();
    model.onRequest(() => ({ type: 'text', text: 'ok' }));
    for (const word of ['one', 'two', 'three']) await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: word }] });
    const runs = await client.runs.list({ agent_ids: [agent.id] });
    expect(runs.items).toHaveLength(3);
    expect(runs.items.every((run) => run.status === 'completed' && run.stop_reason === 'end_turn')).toBe(true);
    const firstPage = await api(`/runs/?agent_id=${agent.id}&limit=2`);
    const page = (await firstPage.json()) as Array<{ id: string }>;
    expect(page).toHaveLength(2);
    const rest = (await (await api(`/runs/?agent_id=${agent.id}&limit=2&after=${page[1]?.id}`)).json()) as Array<{ id: string }>;
    expect(rest.map((run) => run.id)).toEqual([runs.items[2]?.id]);
    const failed = (await (await api(`/runs/?agent_id=${agent.id}&statuses=failed`)).json()) as unknown[];
    expect(failed).toEqual([]);
    const other = await stack.createTenant();
    const foreign = await fetch(`${stack.baseUrl}/v1/runs/${page[0]?.id}`, { headers: { authorization: `Bearer ${other.apiKey.key}` } });
    expect(foreign.status).toBe(404);
  });

  it('shows a run through the jobs routes, with steps and metrics', async () => {
    const agent = await newAgent();
    model.enqueue({ type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'x' } }] }, { type: 'text', text: 'done' });
    const response = await api(`/agents/${agent.id}/messages`, { method: 'POST', body: JSON.stringify({ input: 'go' }) });
    const runId = response.headers.get('x-run-id') as string;
    const job = (await (await api(`/jobs/${runId}`)).json()) as Record<string, unknown>;
    expect(job).toMatchObject({ id: runId, job_type: 'run', status: 'completed' });
    const steps = await client.runs.steps.list(runId);
    expect(steps.items).toHaveLength(2);
    const metrics = (await (await api(`/runs/${runId}/metrics`)).json()) as Record<string, unknown>;
    expect(metrics).toMatchObject({ id: runId, num_steps: 2, tools_used: ['conversation_search'] });
  });
});

describe('stream keepalive', () => {
  it('sends pings with the last seq id while the model is silent', async () => {
    const agent = await newAgent();
    model.enqueue({ type: 'text', text: 'slow answer', delayMs: 900 });
    const response = await api(`/agents/${agent.id}/messages/stream`, {
      method: 'POST',
      body: JSON.stringify({ messages: [{ role: 'user', content: 'take your time' }], include_pings: true }),
    });
    const frames = (await collectSse(response)).map((event) => event.data).filter((data) => data !== '[DONE]') as Array<Record<string, unknown>>;
    const pings = frames.filter((frame) => frame.message_type === 'ping');
    expect(pings.length).toBeGreaterThanOrEqual(3);
    expect(pings[0]).toMatchObject({ run_id: expect.stringMatching(/^run-/), seq_id: 0, id: expect.stringMatching(/^ping-/) });
    expect(frames.filter((frame) => frame.message_type !== 'ping').map((frame) => frame.message_type)).toEqual([
      'assistant_message',
      'stop_reason',
      'usage_statistics',
    ]);
  });
});

describe('async callbacks', () => {
  it('POSTs the run outcome to callback_url and records the answer on the run', async () => {
    const received: Array<Record<string, unknown>> = [];
    const receiver = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push(JSON.parse(body) as Record<string, unknown>);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as { port: number };
    try {
      const agent = await newAgent();
      model.enqueue({ type: 'text', text: 'done' });
      const run = await client.agents.messages.createAsync(agent.id, {
        messages: [{ role: 'user', content: 'call me back' }],
        callback_url: `http://127.0.0.1:${port}/hook`,
      });
      await until(() => received.length > 0);
      expect(received).toEqual([expect.objectContaining({ job_id: run.id, status: 'completed' })]);
      const after = await client.runs.retrieve(run.id);
      expect(after).toMatchObject({ callback_status_code: 204, callback_error: null });
      expect(after.callback_sent_at).toBeTruthy();
    } finally {
      receiver.close();
    }
  });
});

describe('without a model provider', () => {
  it('fails a send with one clear error naming what to configure', async () => {
    const bare = await startTestStack();
    try {
      const agent = await fetch(`${bare.baseUrl}/v1/agents/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bare.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ llm_config: { model: 'gpt-4o-mini', model_endpoint_type: 'openai', context_window: 8000 } }),
      });
      expect(agent.status).toBe(200);
      const { id } = (await agent.json()) as { id: string };
      const response = await fetch(`${bare.baseUrl}/v1/agents/${id}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bare.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'hello' }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { detail: string }).detail).toMatch(/OPENAI_API_KEY/);
    } finally {
      await bare.stop();
    }
  });
});
